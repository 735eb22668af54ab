package main

// bfs's flags mapped to the one configuration of a run, graph500.Config
// (with graph500.FileConfig for an edge list). The command line checks
// what only a command line has: which flags were given (a flag refused
// beside another even at its default value, an algorithm that sets the
// exchange and codec, the exchange a job of processes defaults to) and the
// flags' own syntax (names of exchanges, directions, partitions, grids).
// graph500 checks the values (Config.Check, FileConfig.CheckSettings),
// naming the Go field at fault, which flagOf maps to its flag.

import (
	"github.com/spf13/pflag"

	"github.com/graphrun/graphrun/gen/kronecker"
	"github.com/graphrun/graphrun/graph500"
	"github.com/graphrun/graphrun/internal/fielderr"
	"github.com/graphrun/graphrun/partition"
	"github.com/graphrun/graphrun/spmv"
)

// bfsSettings are bfs's search flags as given.
type bfsSettings struct {
	Roots                            int
	Root                             int64 // with --root: one search from this vertex
	Out                              string
	Exchange, Codec, Algo, Direction string
	Partition, Grid, Placement       string
	Compress                         string // auto, on or off
	BlocksPerRank                    int
	Directed                         bool
	NoValidate                       bool
	NoFuse                           bool
	SSSP                             bool    // sssp: kernel 3's searches after the BFS's
	Delta                            float64 // sssp: their bucket width (0: from the graph)
	UnitWeights                      bool    // sssp FILE: every edge weighs 1
}

// checkSource checks the flags given (given) against the graph searched:
// a Kronecker graph (file "") takes neither --format nor --directed; an
// edge list file takes none of the Kronecker graph's flags, and a directed
// search sets the push exchange, top-down, which no other exchange flag
// may contradict.
func (s *bfsSettings) checkSource(given func(flag string) bool, file string) error {
	if file == "" {
		for _, flag := range []string{"format", "directed", "unit-weights"} {
			if given(flag) {
				return flagError(flag, "needs an edge list FILE")
			}
		}
		return nil
	}
	for _, flag := range []string{"scale", "edgefactor", "force"} {
		if given(flag) {
			return flagError(flag, "chooses a Kronecker graph: it cannot be combined with the edge list %s", file)
		}
	}
	if s.Directed {
		for _, flag := range []string{"exchange", "codec", "algo", "direction", "partition", "grid"} {
			if given(flag) {
				return flagError(flag, "cannot be combined with --directed (top-down, push exchange, 1D partition)")
			}
		}
		s.Exchange, s.Direction = "push", "top-down"
	}
	return nil
}

// defaultExchange gives the exchange its default for the job when neither
// --exchange nor --algo was given: in a job of processes
// graph500.NetworkExchange with graph500.NetworkCodec (unless --codec was
// given), else the exchange's own default. It reports whether the
// exchange was defaulted.
func (s *bfsSettings) defaultExchange(given func(flag string) bool, jobOfProcesses bool) bool {
	if given("exchange") || given("algo") {
		return false
	}
	if jobOfProcesses {
		s.Exchange = graph500.NetworkExchange
		if !given("codec") {
			s.Codec = graph500.NetworkCodec
		}
	}
	return true
}

// applyAlgorithm sets the exchange and codec from --algo
// (graph500.ParseAlgorithm), and the direction to bottom-up unless
// --direction was given: Lv et al.'s algorithms are bottom-up at every
// level. Nothing without --algo. An algorithm given with --exchange or
// --codec is refused, as is an unknown one.
func (s *bfsSettings) applyAlgorithm(given func(flag string) bool) error {
	if s.Algo == "" {
		return nil
	}
	for _, flag := range []string{"exchange", "codec"} {
		if given(flag) {
			return flagError("algo", "cannot be combined with --%s (it sets both --exchange and --codec)", flag)
		}
	}
	exchange, codec, err := graph500.ParseAlgorithm(s.Algo)
	if err != nil {
		return flagError("algo", "%v", err)
	}
	s.Exchange, s.Codec = exchange, codec
	if !given("direction") {
		s.Direction = "bottom-up"
	}
	return nil
}

// config maps the search flags to the run's Config on the graph (a
// Kronecker graph, or with file an edge list, whose ids any root may be)
// over ranks ranks of threads threads, checked, with the note of an
// automatic 2D grid far from square. The caller sets the in-process rank
// count and the callbacks.
func (s *bfsSettings) config(fl *pflag.FlagSet, graph kronecker.Params, file bool, ranks, threads int) (cfg graph500.Config, gridNote string, err error) {
	cfg = graph500.Config{Graph: graph, Ranks: ranks, Threads: threads, NumRoots: s.Roots, Root: s.Root, RootSet: fl.Changed("root"),
		Validate: !s.NoValidate, Codec: s.Codec, BlocksPerRank: s.BlocksPerRank, Unfused: s.NoFuse,
		SSSP: s.SSSP, Delta: s.Delta}
	if cfg.Exchange, err = spmv.ParseExchange(s.Exchange); err != nil {
		return cfg, "", flagError("exchange", "%v", err)
	}
	if cfg.Direction, err = spmv.ParseDirection(s.Direction); err != nil {
		return cfg, "", flagError("direction", "%v", err)
	}
	if cfg.Exchange == spmv.ExchangePush && fl.Changed("direction") && cfg.Direction != spmv.DirectionTopDown {
		return cfg, "", flagError("direction", "%s needs --exchange allgather (push is top-down at every level)", cfg.Direction)
	}
	if s.BlocksPerRank < 1 {
		return cfg, "", flagError("blocks-per-rank", "%d is less than 1", s.BlocksPerRank)
	}
	switch s.Compress {
	case "on":
		cfg.Compress = true
	case "off", "auto": // auto: decided with the memory guard (runBFS)
	default:
		return cfg, "", flagError("compress", "unknown value %q (want auto, on or off)", s.Compress)
	}
	if cfg.Placement, err = graph500.ParsePlacement(s.Placement); err != nil {
		return cfg, "", flagError("placement", "%v", err)
	}
	if gridNote, err = s.grid(fl, &cfg, ranks*s.BlocksPerRank); err != nil {
		return cfg, "", err
	}
	if file {
		err = (&graph500.FileConfig{Config: cfg, Directed: s.Directed}).CheckSettings()
	} else {
		err = cfg.Check()
	}
	if err != nil {
		return cfg, "", usage(err)
	}
	if s.Out != "" && !cfg.RootSet {
		return cfg, "", flagError("out", "needs --root (the tree of one search)")
	}
	if !cfg.RootSet {
		cfg.Root = -1
	}
	return cfg, gridNote, nil
}

// grid maps --partition and --grid to cfg's partition and grid: the most
// square grid of the job's ranks (times the blocks per rank) when --grid
// was not given. It returns AutoGrid's note when the automatic grid is far
// from square.
func (s *bfsSettings) grid(fl *pflag.FlagSet, cfg *graph500.Config, ranks int) (note string, err error) {
	switch s.Partition {
	case "1d":
		if fl.Changed("grid") {
			return "", flagError("grid", "needs --partition 2d")
		}
		return "", nil
	case "2d":
		cfg.Partition2D = true
	default:
		return "", flagError("partition", "unknown partition %q (want 1d or 2d)", s.Partition)
	}
	if !fl.Changed("grid") {
		cfg.GridRows, cfg.GridCols, note = partition.AutoGrid(ranks) // note: only for a prime or lopsided rank count
		return note, nil
	}
	if cfg.GridRows, cfg.GridCols, err = partition.ParseGrid(s.Grid); err != nil {
		return "", flagError("grid", "%v", err)
	}
	return "", nil
}

// forceHint adds to a memory check's refusal of the graph's scale that
// --force runs anyway.
func forceHint(err error) error {
	if fe, ok := fielderr.As(err); ok && (fe.Field == "Scale" || fe.Field == "Kron") {
		fe.Msg += " (--force runs anyway)"
	}
	return err
}
