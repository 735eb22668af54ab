package results

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/graphrun/graphrun/internal/units"
)

// ClusterModel estimates what a run's counted traffic would cost on a
// cluster network: the α–β (latency–bandwidth) model, plus Kylix's minimum
// efficient packet size (Kylix §II-A, Fig. 2): a message shorter than MinPacket
// takes as long as one of MinPacket bytes, because below that size the
// network does not reach its bandwidth.
//
// For one BFS level the model charges the busiest rank: with m messages and
// b bytes sent by all p ranks, a rank sends m/p messages of b/m bytes on
// average, so the level costs
//
//	t = (m/p)·(Latency + max(b/m, MinPacket)/Bandwidth) · imbalance
//
// where imbalance ≥ 1 is the run's max/mean bytes per rank (1 when the run
// does not report per-rank loads). Collectives' messages of one rank are
// charged one after the other, as a single network interface sends them.
type ClusterModel struct {
	Bandwidth float64 // bytes per second per rank
	Latency   float64 // seconds per message
	MinPacket float64 // bytes; 0 for the plain α–β model
}

// ParseClusterModel reads a model such as
// "bw=10Gbit/s,lat=50us,min-packet=5MB". Bandwidth and size take the unit
// syntax of every graphrun flag (internal/units: k, M, G powers of ten,
// Ki, Mi, Gi powers of two) with their unit said: B/s or bit/s for the
// bandwidth, B for the size; latency: s, ms, us, ns. bw and lat are
// required.
func ParseClusterModel(s string) (ClusterModel, error) {
	var m ClusterModel
	seen := map[string]bool{}
	for _, field := range strings.Split(s, ",") {
		key, value, ok := strings.Cut(strings.TrimSpace(field), "=")
		if !ok {
			return m, fmt.Errorf("model field %q is not key=value", field)
		}
		var err error
		switch key {
		case "bw":
			if !strings.HasSuffix(value, "/s") {
				return m, fmt.Errorf("model field bw: %q has no unit (want B/s or bit/s, e.g. 10Gbit/s or 1.25GB/s)", value)
			}
			m.Bandwidth, err = units.ParseRate(value)
		case "lat":
			m.Latency, err = parseUnit(value, timeUnits)
		case "min-packet":
			if !strings.HasSuffix(value, "B") {
				return m, fmt.Errorf("model field min-packet: %q has no unit (want bytes, e.g. 5MB or 4MiB)", value)
			}
			var n int64
			n, err = units.ParseBytes(value, 0, 1<<50)
			m.MinPacket = float64(n)
		default:
			return m, fmt.Errorf("unknown model field %q (want bw, lat, min-packet)", key)
		}
		if err != nil {
			return m, fmt.Errorf("model field %s: %w", key, err)
		}
		seen[key] = true
	}
	if !seen["bw"] || !seen["lat"] {
		return m, fmt.Errorf("model %q needs bw= and lat=", s)
	}
	if m.Bandwidth <= 0 {
		return m, fmt.Errorf("model bandwidth must be positive")
	}
	return m, nil
}

type unit struct {
	suffix string
	scale  float64
}

// Longest suffixes first, so that "Gbit/s" is not read as "s".
var (
	timeUnits = []unit{{"ms", 1e-3}, {"us", 1e-6}, {"µs", 1e-6}, {"ns", 1e-9}, {"s", 1}}
)

func parseUnit(s string, units []unit) (float64, error) {
	for _, u := range units {
		if num, ok := strings.CutSuffix(s, u.suffix); ok {
			v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
			if v *= u.scale; err != nil || !(v >= 0) || math.IsInf(v, 0) {
				return 0, fmt.Errorf("%q is not a non-negative finite number of %s", s, u.suffix)
			}
			return v, nil
		}
	}
	names := make([]string, len(units))
	for i, u := range units {
		names[i] = u.suffix
	}
	return 0, fmt.Errorf("%q has no unit (want one of %s)", s, strings.Join(names, ", "))
}

// LevelTime is the modelled communication time of one level whose ranks sent
// messages messages and bytes bytes in all.
func (m ClusterModel) LevelTime(ranks int, messages, bytes int64, imbalance float64) float64 {
	if messages <= 0 || ranks < 1 {
		return 0
	}
	perMessage := max(float64(bytes)/float64(messages), m.MinPacket)
	return float64(messages) / float64(ranks) * (m.Latency + perMessage/m.Bandwidth) * max(1, imbalance)
}

// ModelledSearch is one search of a run under a cluster model.
type ModelledSearch struct {
	Compute       float64 // measured seconds outside communication (traversal, reduction waits, compression)
	Communication float64 // modelled seconds of the levels' traffic
	NEdge         int64
}

// TEPS is the search's predicted edges per second.
func (s ModelledSearch) TEPS() float64 { return float64(s.NEdge) / (s.Compute + s.Communication) }

// Model replaces every search's measured communication time by the model's
// estimate from its counted bytes and messages, keeping the measured compute
// time (traversing and compression & sieve; reducing is mostly waiting for
// the slowest rank, which the model does not know, so it is left out).
func (m ClusterModel) Model(r *Graph500Run, imbalance float64) []ModelledSearch {
	out := make([]ModelledSearch, len(r.Searches))
	for i, s := range r.Searches {
		ms := ModelledSearch{NEdge: s.NEdge}
		for _, l := range s.Levels {
			ms.Compute += l.Traverse + l.Compress
			ms.Communication += m.LevelTime(r.NumRanks, l.Messages, l.Bytes, imbalance)
		}
		out[i] = ms
	}
	return out
}

// HarmonicTEPS is the Graph500 figure of merit of modelled searches.
func HarmonicTEPS(searches []ModelledSearch) float64 {
	var sum float64
	for _, s := range searches {
		sum += 1 / s.TEPS()
	}
	return float64(len(searches)) / sum
}
