package allreduce

import (
	"strconv"

	"github.com/graphrun/graphrun/comm"
)

// Phase names of the collectives that are not per layer.
const (
	// PhaseCheck is the small AllreduceInt64 by which New and ConfigReduce
	// check that every rank's arguments are valid and agree.
	PhaseCheck = "allreduce.check"
	// PhaseDesign is AutoDegrees' AllreduceInt64 of the set sizes.
	PhaseDesign = "allreduce.design"
)

// Passes of the network; with a 1-based layer number they name the phases
// "allreduce.<pass>.<layer>" (PhaseName).
const (
	PassConfig       = "config"       // configuration down pass (New)
	PassConfigReduce = "configreduce" // ConfigReduce's combined down pass
	PassDown         = "down"         // Reduce's scatter-reduce down pass
	PassUp           = "up"           // the allgather up pass of Reduce and ConfigReduce
)

// PhaseName is the phase of pass at layer (1-based), e.g. "allreduce.down.2".
func PhaseName(pass string, layer int) string {
	return "allreduce." + pass + "." + strconv.Itoa(layer)
}

// LayerVolume is one rank's traffic in one layer of the network, by pass.
type LayerVolume struct {
	Layer        int // 1-based
	Config       comm.PhaseCounters
	ConfigReduce comm.PhaseCounters
	Down         comm.PhaseCounters
	Up           comm.PhaseCounters
}

// Total is the layer's traffic over all passes.
func (v LayerVolume) Total() comm.PhaseCounters {
	var t comm.PhaseCounters
	t.Add(v.Config)
	t.Add(v.ConfigReduce)
	t.Add(v.Down)
	t.Add(v.Up)
	return t
}

// Add accumulates o into v (to sum the layers of several ranks).
func (v *LayerVolume) Add(o LayerVolume) {
	v.Config.Add(o.Config)
	v.ConfigReduce.Add(o.ConfigReduce)
	v.Down.Add(o.Down)
	v.Up.Add(o.Up)
}

// Sub returns v − o (to diff two readings).
func (v LayerVolume) Sub(o LayerVolume) LayerVolume {
	return LayerVolume{
		Layer:        v.Layer,
		Config:       v.Config.Sub(o.Config),
		ConfigReduce: v.ConfigReduce.Sub(o.ConfigReduce),
		Down:         v.Down.Sub(o.Down),
		Up:           v.Up.Sub(o.Up),
	}
}

// LayerStats reads the per-layer counters of layers 1..layers from a rank's
// comm.Stats: the volume of each layer, which summed over ranks draws the
// "Kylix shape" of Kylix Fig. 5. Bytes to the rank itself are not
// counted (see package comm).
func LayerStats(s *comm.Stats, layers int) []LayerVolume {
	out := make([]LayerVolume, layers)
	for i := range out {
		l := i + 1
		out[i] = LayerVolume{
			Layer:        l,
			Config:       s.Phase(PhaseName(PassConfig, l)),
			ConfigReduce: s.Phase(PhaseName(PassConfigReduce, l)),
			Down:         s.Phase(PhaseName(PassDown, l)),
			Up:           s.Phase(PhaseName(PassUp, l)),
		}
	}
	return out
}
