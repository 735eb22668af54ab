package graph500

import (
	"testing"

	"github.com/graphrun/graphrun/gen/kronecker"
	"github.com/graphrun/graphrun/internal/fielderr"
	"github.com/graphrun/graphrun/spmv"
)

// bfsDefaults are graphrun bfs's defaults, with the flags of given given.
func bfsDefaults(given ...string) Settings {
	set := map[string]bool{}
	for _, g := range given {
		set[g] = true
	}
	return Settings{Roots: DefaultRoots, Root: -1, Exchange: "allgather", Codec: "raw", Direction: "auto", Partition: "1d",
		Placement: "lshs", BlocksPerRank: 1, Given: func(flag string) bool { return set[flag] }}
}

// TestKroneckerParams: scale and edgefactor out of range, or whose bytes
// overflow, name their flag.
func TestKroneckerParams(t *testing.T) {
	p, err := KroneckerParams(10, 16, 7, true)
	if err != nil || p.Scale != 10 || p.EdgeFactor != 16 || p.Seed != 7 || !p.Unpermuted {
		t.Fatalf("KroneckerParams(10, 16, 7, true) = %+v, %v", p, err)
	}
	for _, tc := range []struct {
		scale, edgefactor int
		field             string
	}{
		{0, 16, "scale"}, {kronecker.MaxScale + 1, 16, "scale"}, {10, 0, "edgefactor"}, {30, 1 << 40, "edgefactor"},
	} {
		if _, err := KroneckerParams(tc.scale, tc.edgefactor, 1, false); fielderr.Field(err) != tc.field {
			t.Errorf("KroneckerParams(%d, %d): %v, want an error of %s", tc.scale, tc.edgefactor, err, tc.field)
		}
	}
}

// TestSettingsNameTheFlagAtFault: every contradiction between bfs's
// settings is refused naming the flag, in the order the command line
// checks them.
func TestSettingsNameTheFlagAtFault(t *testing.T) {
	g := kronecker.DefaultParams(8)
	for _, tc := range []struct {
		name  string
		s     Settings
		file  string
		ranks int
		field string
	}{
		{"defaults", bfsDefaults(), "", 4, ""},
		{"format without a file", bfsDefaults("format"), "", 1, "format"},
		{"directed without a file", bfsDefaults("directed"), "", 1, "directed"},
		{"scale with a file", bfsDefaults("scale"), "g.el", 1, "scale"},
		{"force with a file", bfsDefaults("force"), "g.el", 1, "force"},
		{"directed with an exchange", func() Settings { s := bfsDefaults("exchange"); s.Directed = true; return s }(), "g.el", 1, "exchange"},
		{"unknown exchange", func() Settings { s := bfsDefaults(); s.Exchange = "ring"; return s }(), "", 1, "exchange"},
		{"unknown direction", func() Settings { s := bfsDefaults(); s.Direction = "up"; return s }(), "", 1, "direction"},
		{"unknown codec", func() Settings { s := bfsDefaults(); s.Codec = "lz9"; return s }(), "", 1, "codec"},
		{"push bottom-up", func() Settings {
			s := bfsDefaults("direction")
			s.Exchange, s.Direction = "push", "bottom-up"
			return s
		}(), "", 1, "direction"},
		{"no blocks", func() Settings { s := bfsDefaults(); s.BlocksPerRank = 0; return s }(), "", 1, "blocks-per-rank"},
		{"blocks in 1D", func() Settings { s := bfsDefaults(); s.BlocksPerRank = 2; return s }(), "", 1, "blocks-per-rank"},
		{"unknown placement", func() Settings { s := bfsDefaults(); s.Placement = "x"; return s }(), "", 1, "placement"},
		{"grid in 1D", bfsDefaults("grid"), "", 4, "grid"},
		{"unknown partition", func() Settings { s := bfsDefaults(); s.Partition = "3d"; return s }(), "", 4, "partition"},
		{"grid of other ranks", func() Settings { s := bfsDefaults("grid"); s.Partition, s.Grid = "2d", "3x3"; return s }(), "", 4, "grid"},
		{"root out of the graph", func() Settings { s := bfsDefaults("root"); s.Root = 256; return s }(), "", 1, "root"},
		{"negative root of a file", func() Settings { s := bfsDefaults("root"); s.Root = -2; return s }(), "g.el", 1, "root"},
		{"no roots", func() Settings { s := bfsDefaults(); s.Roots = 0; return s }(), "", 1, "roots"},
		{"out without a root", func() Settings { s := bfsDefaults(); s.Out = "tree.txt"; return s }(), "", 1, "out"},
	} {
		err := tc.s.CheckSource(tc.file)
		if err == nil {
			_, _, err = tc.s.Config(g, tc.file != "", tc.ranks)
		}
		if got := fielderr.Field(err); got != tc.field {
			t.Errorf("%s: %v names %q, want %q", tc.name, err, got, tc.field)
		}
	}
}

// TestSettingsConfig: the checked settings become the run's Config: a
// directed file search is push and top-down, a job of processes defaults
// to the packed exchange, a 2D partition gets the most square grid of its
// blocks.
func TestSettingsConfig(t *testing.T) {
	s := bfsDefaults()
	s.Directed = true
	if err := s.CheckSource("g.el"); err != nil || s.Exchange != "push" || s.Direction != "top-down" {
		t.Fatalf("directed: %v, exchange %q, direction %q", err, s.Exchange, s.Direction)
	}
	s = bfsDefaults()
	if !s.DefaultExchange(true) || s.Exchange != NetworkExchange || s.Codec != NetworkCodec {
		t.Fatalf("job of processes: exchange %q codec %q", s.Exchange, s.Codec)
	}
	if s = bfsDefaults("exchange"); s.DefaultExchange(true) || s.Exchange != "allgather" {
		t.Fatalf("--exchange given: defaulted to %q", s.Exchange)
	}
	s = bfsDefaults()
	s.Partition, s.BlocksPerRank = "2d", 2
	cfg, _, err := s.Config(kronecker.DefaultParams(8), false, 8)
	if err != nil || !cfg.Partition2D || cfg.GridRows*cfg.GridCols != 16 || cfg.GridRows != 4 || cfg.Root != -1 || !cfg.Validate ||
		cfg.Exchange != spmv.ExchangeAllgather || cfg.NumRoots != DefaultRoots {
		t.Fatalf("2D config: %+v, %v", cfg, err)
	}
}
