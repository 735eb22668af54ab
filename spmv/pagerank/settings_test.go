package pagerank

import (
	"errors"
	"runtime/debug"
	"slices"
	"testing"

	"github.com/graphrun/graphrun/graph/edgelist"
	"github.com/graphrun/graphrun/internal/fielderr"
)

// pagerankDefaults are graphrun pagerank's defaults, with the flags of
// given given.
func pagerankDefaults(given ...string) Settings {
	return Settings{Alpha: DefaultPageRankAlpha, Tol: DefaultPageRankTol, MaxIter: DefaultPageRankMaxIter,
		Allreduce: AllreduceKylix.String(), Degrees: "auto", Partition: PartitionRandomEdge.String(), Top: 10,
		Given: func(flag string) bool { return slices.Contains(given, flag) }}
}

// with returns s changed by mod.
func with(s Settings, mod func(*Settings)) Settings { mod(&s); return s }

// fieldCase is a check of settings s, given the transport's verdict, that
// should fail naming field ("" for none).
type fieldCase struct {
	name    string
	s       Settings
	verdict error
	field   string
}

// wantField fails t unless err is the error of field ("" for none).
func wantField(t *testing.T, name string, err error, field string) {
	t.Helper()
	if fielderr.Field(err) != field || (field == "") != (err == nil) {
		t.Errorf("%s: %v, want an error of %q", name, err, field)
	}
}

// TestSettingsConfig: the defaults give spmv's configuration with the
// threads, top and gather of the settings, and the kylix degrees parsed
// against the ranks.
func TestSettingsConfig(t *testing.T) {
	s := with(pagerankDefaults("degrees"), func(s *Settings) { s.Degrees, s.Out, s.Top, s.Undirected = "2x2", "scores.tsv", 3, true })
	cfg, err := s.Config(4, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := DefaultPageRankConfig()
	if cfg.Threads != 2 || cfg.Top != 3 || !cfg.Gather || !cfg.Undirected || !slices.Equal(cfg.Degrees, []int{2, 2}) ||
		cfg.Alpha != want.Alpha || cfg.Tol != want.Tol || cfg.MaxIter != want.MaxIter || cfg.Allreduce != AllreduceKylix {
		t.Fatalf("Config = %+v", cfg)
	}
	dense := with(pagerankDefaults(), func(s *Settings) { s.Allreduce = "dense" })
	if cfg, err := dense.Config(3, 1, nil); err != nil || cfg.Allreduce != AllreduceDense || cfg.Degrees != nil || cfg.Gather {
		t.Fatalf("dense: %+v, %v", cfg, err)
	}
}

// TestSettingsNameTheFlagAtFault: every bad setting is refused naming its
// flag, in the order the command line checks them: the fields, the
// names, the degrees, then the elastic job.
func TestSettingsNameTheFlagAtFault(t *testing.T) {
	notTCP := fielderr.New("elastic", "needs the TCP transport")
	for _, tc := range []fieldCase{
		{"defaults", pagerankDefaults(), nil, ""},
		{"iterations 0 given", with(pagerankDefaults("iterations"), func(s *Settings) { s.Iterations = 0 }), nil, "iterations"},
		{"negative top", with(pagerankDefaults(), func(s *Settings) { s.Top = -1 }), nil, "top"},
		{"alpha before top", with(pagerankDefaults(), func(s *Settings) { s.Top, s.Alpha = -1, 2 }), nil, "top"},
		{"alpha", with(pagerankDefaults(), func(s *Settings) { s.Alpha = 2 }), nil, "alpha"},
		{"negative iterations", with(pagerankDefaults(), func(s *Settings) { s.Iterations = -3 }), nil, "iterations"},
		{"tol", with(pagerankDefaults(), func(s *Settings) { s.Tol = 0 }), nil, "tol"},
		{"max-iter", with(pagerankDefaults(), func(s *Settings) { s.MaxIter = 0 }), nil, "max-iter"},
		{"partition", with(pagerankDefaults(), func(s *Settings) { s.Partition = "foo" }), nil, "partition"},
		{"partition before allreduce", with(pagerankDefaults(), func(s *Settings) { s.Partition, s.Allreduce = "foo", "bar" }), nil, "partition"},
		{"allreduce", with(pagerankDefaults(), func(s *Settings) { s.Allreduce = "bar" }), nil, "allreduce"},
		{"degrees of 9 ranks on 4", with(pagerankDefaults("degrees"), func(s *Settings) { s.Degrees = "3x3" }), nil, "degrees"},
		{"degrees of direct", with(pagerankDefaults("degrees"), func(s *Settings) { s.Allreduce = "direct" }), nil, "degrees"},
		{"elastic off the TCP transport", with(pagerankDefaults(), func(s *Settings) { s.Elastic = true }), notTCP, "elastic"},
		{"not elastic: its verdict unused", pagerankDefaults(), notTCP, ""},
		{"elastic dense", with(pagerankDefaults(), func(s *Settings) { s.Elastic, s.Allreduce = true, "dense" }), nil, "elastic"},
		{"degrees before elastic", with(pagerankDefaults("degrees"), func(s *Settings) { s.Elastic, s.Degrees = true, "x" }), notTCP, "degrees"},
		{"gauss-seidel on 4 ranks", with(pagerankDefaults(), func(s *Settings) { s.GaussSeidel = true }), nil, "gauss-seidel"},
		{"gauss-seidel dense", with(pagerankDefaults(), func(s *Settings) { s.GaussSeidel, s.Allreduce = true, "dense" }), nil, "gauss-seidel"},
	} {
		_, err := tc.s.Config(4, 1, tc.verdict)
		wantField(t, tc.name, err, tc.field)
	}
	_, err := with(pagerankDefaults(), func(s *Settings) { s.Elastic = true }).Config(4, 1, notTCP)
	if err != notTCP {
		t.Fatalf("the elastic verdict came back as %v", err)
	}
	gaussSeidel := with(pagerankDefaults(), func(s *Settings) { s.GaussSeidel = true })
	if cfg, err := gaussSeidel.Config(1, 2, nil); err != nil || !cfg.GaussSeidel || cfg.Threads != 2 {
		t.Fatalf("gauss-seidel on one rank: %+v, %v", cfg, err)
	}
	_, err = with(gaussSeidel, func(s *Settings) { s.Elastic = true }).Config(1, 1, nil)
	wantField(t, "gauss-seidel elastic", err, "gauss-seidel")
}

// TestSettingsCheckJoin: --join needs --elastic first, then the
// transport's verdict, then takes no degrees but auto.
func TestSettingsCheckJoin(t *testing.T) {
	jobErr := fielderr.New("ranks", "cannot be combined with --join")
	for _, tc := range []fieldCase{
		{"elastic", with(pagerankDefaults(), func(s *Settings) { s.Elastic = true }), nil, ""},
		{"auto degrees given", with(pagerankDefaults("degrees"), func(s *Settings) { s.Elastic, s.Degrees = true, " AUTO " }), nil, ""},
		{"not elastic", pagerankDefaults(), jobErr, "join"},
		{"the job's verdict before the degrees", with(pagerankDefaults("degrees"), func(s *Settings) { s.Elastic, s.Degrees = true, "2x2" }), jobErr, "ranks"},
		{"degrees", with(pagerankDefaults("degrees"), func(s *Settings) { s.Elastic, s.Degrees = true, "2x2" }), nil, "degrees"},
	} {
		wantField(t, tc.name, tc.s.CheckJoin(tc.verdict), tc.field)
	}
}

// TestSettingsSource: --kron or FILE, one of them; a stream can be read
// neither by an elastic job nor by replicas; the file's own errors are
// returned as they are.
func TestSettingsSource(t *testing.T) {
	regular := func(path string) (*edgelist.Input, error) { return &edgelist.Input{Path: path}, nil }
	stream := func(path string) (*edgelist.Input, error) { return &edgelist.Input{Path: path, Stream: true}, nil }
	notRead := func(string) (*edgelist.Input, error) { t.Fatal("the file was resolved"); return nil, nil }

	src, err := with(pagerankDefaults("kron"), func(s *Settings) { s.Kron = 6 }).Source("", notRead, false)
	if err != nil || src.File != nil || src.Kron.Scale != 6 || src.Name() != "kron:6" || src.Path() != "" {
		t.Fatalf("--kron 6: %+v, %v", src, err)
	}
	if src, err := pagerankDefaults().Source("g.el", regular, true); err != nil || src.File == nil || src.Path() != "g.el" {
		t.Fatalf("g.el: %+v, %v", src, err)
	}
	if src, err := pagerankDefaults().Source("-", stream, false); err != nil || !src.File.Stream {
		t.Fatalf("a stream: %+v, %v", src, err)
	}
	for _, tc := range []struct {
		name       string
		s          Settings
		file       string
		open       func(string) (*edgelist.Input, error)
		replicated bool
		field      string
	}{
		{"kron and a file", with(pagerankDefaults("kron"), func(s *Settings) { s.Kron = 6 }), "g.el", notRead, false, "kron"},
		{"kron 0", pagerankDefaults("kron"), "", notRead, false, "kron"},
		{"kron too large", with(pagerankDefaults("kron"), func(s *Settings) { s.Kron = 99 }), "", notRead, false, "kron"},
		{"elastic stream", with(pagerankDefaults(), func(s *Settings) { s.Elastic = true }), "-", stream, true, "elastic"},
		{"replicated stream", pagerankDefaults(), "-", stream, true, "replicas"},
	} {
		_, err := tc.s.Source(tc.file, tc.open, tc.replicated)
		wantField(t, tc.name, err, tc.field)
	}
	if _, err := pagerankDefaults().Source("", notRead, false); err == nil || fielderr.Field(err) != "" {
		t.Fatalf("no input: %v", err)
	}
	bad := errors.New("stat g.el: no such file")
	if _, err := pagerankDefaults().Source("g.el", func(string) (*edgelist.Input, error) { return nil, bad }, false); err != bad {
		t.Fatalf("the file's error came back as %v", err)
	}
}

// TestLeanHeap: the run sets the collector's target to GCPercent, its
// set-up callback is safe to call from every rank, and restore puts the
// target back.
func TestLeanHeap(t *testing.T) {
	orig := debug.SetGCPercent(77)
	defer debug.SetGCPercent(orig)
	var cfg Config
	restore := LeanHeap(&cfg)
	if got := debug.SetGCPercent(GCPercent); got != GCPercent || cfg.SetupDone == nil {
		t.Fatalf("during the run: target %d, set-up callback %v", got, cfg.SetupDone != nil)
	}
	cfg.SetupDone()
	cfg.SetupDone()
	restore()
	if got := debug.SetGCPercent(orig); got != 77 {
		t.Fatalf("restored target %d, want 77", got)
	}
}
