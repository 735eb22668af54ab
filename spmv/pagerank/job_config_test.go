package pagerank

import (
	"errors"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"github.com/graphrun/graphrun/graph/edgelist"
	"github.com/graphrun/graphrun/internal/fielderr"
)

// pagerankDefaults is DefaultJobConfig with the fields of set marked as
// chosen ("Kron", "Iterations", "Degrees").
func pagerankDefaults(set ...string) JobConfig {
	jc := DefaultJobConfig()
	jc.KronSet, jc.IterationsSet, jc.DegreesSet = slices.Contains(set, "Kron"), slices.Contains(set, "Iterations"), slices.Contains(set, "Degrees")
	return jc
}

// with returns s changed by mod.
func with(s JobConfig, mod func(*JobConfig)) JobConfig { mod(&s); return s }

// fieldCase is a check of settings s, given the transport's verdict, that
// should fail naming field ("" for none).
type fieldCase struct {
	name    string
	s       JobConfig
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

// TestJobConfigJob: the defaults give DefaultConfig with the
// threads, top and gather of the settings, and the kylix degrees parsed
// against the ranks.
func TestJobConfigJob(t *testing.T) {
	s := with(pagerankDefaults("Degrees"), func(s *JobConfig) { s.Degrees, s.Gather, s.Top, s.Undirected = "2x2", true, 3, true })
	cfg, err := s.Job(4, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := DefaultConfig()
	if cfg.Threads != 2 || cfg.Top != 3 || !cfg.Gather || !cfg.Undirected || !slices.Equal(cfg.Degrees, []int{2, 2}) ||
		cfg.Alpha != want.Alpha || cfg.Tol != want.Tol || cfg.MaxIter != want.MaxIter || cfg.Allreduce != AllreduceKylix {
		t.Fatalf("Job = %+v", cfg)
	}
	dense := with(pagerankDefaults(), func(s *JobConfig) { s.Allreduce = "dense" })
	if cfg, err := dense.Job(3, 1, nil); err != nil || cfg.Allreduce != AllreduceDense || cfg.Degrees != nil || cfg.Gather {
		t.Fatalf("dense: %+v, %v", cfg, err)
	}
}

// TestJobConfigNamesTheFieldAtFault: every bad setting is refused naming its
// field, in a fixed order: the fields, the
// names, the degrees, then the elastic job.
func TestJobConfigNamesTheFieldAtFault(t *testing.T) {
	notTCP := fielderr.New("Elastic", "needs the TCP transport")
	for _, tc := range []fieldCase{
		{"defaults", pagerankDefaults(), nil, ""},
		{"iterations 0 given", with(pagerankDefaults("Iterations"), func(s *JobConfig) { s.Iterations = 0 }), nil, "Iterations"},
		{"negative top", with(pagerankDefaults(), func(s *JobConfig) { s.Top = -1 }), nil, "Top"},
		{"alpha before top", with(pagerankDefaults(), func(s *JobConfig) { s.Top, s.Alpha = -1, 2 }), nil, "Top"},
		{"alpha", with(pagerankDefaults(), func(s *JobConfig) { s.Alpha = 2 }), nil, "Alpha"},
		{"negative iterations", with(pagerankDefaults(), func(s *JobConfig) { s.Iterations = -3 }), nil, "Iterations"},
		{"tol", with(pagerankDefaults(), func(s *JobConfig) { s.Tol = 0 }), nil, "Tol"},
		{"MaxIter", with(pagerankDefaults(), func(s *JobConfig) { s.MaxIter = 0 }), nil, "MaxIter"},
		{"partition", with(pagerankDefaults(), func(s *JobConfig) { s.Partition = "foo" }), nil, "Partition"},
		{"partition before allreduce", with(pagerankDefaults(), func(s *JobConfig) { s.Partition, s.Allreduce = "foo", "bar" }), nil, "Partition"},
		{"allreduce", with(pagerankDefaults(), func(s *JobConfig) { s.Allreduce = "bar" }), nil, "Allreduce"},
		{"degrees of 9 ranks on 4", with(pagerankDefaults("Degrees"), func(s *JobConfig) { s.Degrees = "3x3" }), nil, "Degrees"},
		{"degrees of direct", with(pagerankDefaults("Degrees"), func(s *JobConfig) { s.Allreduce = "direct" }), nil, "Degrees"},
		{"elastic off the TCP transport", with(pagerankDefaults(), func(s *JobConfig) { s.Elastic = true }), notTCP, "Elastic"},
		{"not elastic: its verdict unused", pagerankDefaults(), notTCP, ""},
		{"elastic dense", with(pagerankDefaults(), func(s *JobConfig) { s.Elastic, s.Allreduce = true, "dense" }), nil, "Elastic"},
		{"degrees before elastic", with(pagerankDefaults("Degrees"), func(s *JobConfig) { s.Elastic, s.Degrees = true, "x" }), notTCP, "Degrees"},
		{"gauss-seidel on 4 ranks", with(pagerankDefaults(), func(s *JobConfig) { s.GaussSeidel = true }), nil, "GaussSeidel"},
		{"gauss-seidel dense", with(pagerankDefaults(), func(s *JobConfig) { s.GaussSeidel, s.Allreduce = true, "dense" }), nil, "GaussSeidel"},
	} {
		_, err := tc.s.Job(4, 1, tc.verdict)
		wantField(t, tc.name, err, tc.field)
	}
	_, err := with(pagerankDefaults(), func(s *JobConfig) { s.Elastic = true }).Job(4, 1, notTCP)
	if err != notTCP {
		t.Fatalf("the elastic verdict came back as %v", err)
	}
	gaussSeidel := with(pagerankDefaults(), func(s *JobConfig) { s.GaussSeidel = true })
	if cfg, err := gaussSeidel.Job(1, 2, nil); err != nil || !cfg.GaussSeidel || cfg.Threads != 2 {
		t.Fatalf("gauss-seidel on one rank: %+v, %v", cfg, err)
	}
	_, err = with(gaussSeidel, func(s *JobConfig) { s.Elastic = true }).Job(1, 1, nil)
	wantField(t, "gauss-seidel elastic", err, "GaussSeidel")
}

// TestJobConfigCheckJoin: Join needs Elastic first, then the
// transport's verdict, then takes no degrees but auto.
func TestJobConfigCheckJoin(t *testing.T) {
	jobErr := fielderr.New("Ranks", "cannot be combined with joining")
	for _, tc := range []fieldCase{
		{"elastic", with(pagerankDefaults(), func(s *JobConfig) { s.Elastic = true }), nil, ""},
		{"auto degrees given", with(pagerankDefaults("Degrees"), func(s *JobConfig) { s.Elastic, s.Degrees = true, " AUTO " }), nil, ""},
		{"not elastic", pagerankDefaults(), jobErr, "Join"},
		{"the job's verdict before the degrees", with(pagerankDefaults("Degrees"), func(s *JobConfig) { s.Elastic, s.Degrees = true, "2x2" }), jobErr, "Ranks"},
		{"degrees", with(pagerankDefaults("Degrees"), func(s *JobConfig) { s.Elastic, s.Degrees = true, "2x2" }), nil, "Degrees"},
	} {
		wantField(t, tc.name, tc.s.CheckJoin(tc.verdict), tc.field)
	}
}

// TestJobConfigSource: Kron or a file, one of them; a stream can be read
// neither by an elastic job nor by replicas; the file's own errors are
// returned as they are.
func TestJobConfigSource(t *testing.T) {
	regular := func(path string) (*edgelist.Input, error) { return &edgelist.Input{Path: path}, nil }
	stream := func(path string) (*edgelist.Input, error) { return &edgelist.Input{Path: path, Stream: true}, nil }
	notRead := func(string) (*edgelist.Input, error) { t.Fatal("the file was resolved"); return nil, nil }

	src, err := with(pagerankDefaults("Kron"), func(s *JobConfig) { s.Kron = 6 }).Source("", notRead, false)
	if err != nil || src.File != nil || src.Kron.Scale != 6 || src.Name() != "kron:6" || src.Path() != "" {
		t.Fatalf("Kron 6: %+v, %v", src, err)
	}
	if src, err := pagerankDefaults().Source("g.el", regular, true); err != nil || src.File == nil || src.Path() != "g.el" {
		t.Fatalf("g.el: %+v, %v", src, err)
	}
	if src, err := pagerankDefaults().Source("-", stream, false); err != nil || !src.File.Stream {
		t.Fatalf("a stream: %+v, %v", src, err)
	}
	for _, tc := range []struct {
		name       string
		s          JobConfig
		file       string
		open       func(string) (*edgelist.Input, error)
		replicated bool
		field      string
	}{
		{"kron and a file", with(pagerankDefaults("Kron"), func(s *JobConfig) { s.Kron = 6 }), "g.el", notRead, false, "Kron"},
		{"kron 0", pagerankDefaults("Kron"), "", notRead, false, "Kron"},
		{"kron too large", with(pagerankDefaults("Kron"), func(s *JobConfig) { s.Kron = 99 }), "", notRead, false, "Kron"},
		{"elastic stream", with(pagerankDefaults(), func(s *JobConfig) { s.Elastic = true }), "-", stream, true, "Elastic"},
		{"replicated stream", pagerankDefaults(), "-", stream, true, "Replicas"},
	} {
		_, err := tc.s.Source(tc.file, tc.open, tc.replicated)
		wantField(t, tc.name, err, tc.field)
	}
	if _, err := pagerankDefaults().Source("", notRead, false); !errors.Is(err, ErrNoInput) || fielderr.Field(err) != "" {
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
	var cfg Job
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

// TestJobConfigSetVectors: the vector files are read with the input's id
// offset, a seed set is a uniform vector, and every error names its field
// and, for a file, the file and line.
func TestJobConfigSetVectors(t *testing.T) {
	dir := t.TempDir()
	file := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	pers, nstart := file("p.txt", "1 2\n3 1\n"), file("n.txt", "2 1\n")
	mtx := &Source{File: &edgelist.Input{Path: "g.mtx", IDOffset: 1}}
	job := Job{Config: DefaultConfig()}
	jc := with(pagerankDefaults(), func(s *JobConfig) { s.Personalize, s.Dangling, s.NStart = pers, pers, nstart })
	if err := jc.SetVectors(&job, mtx); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(job.Personalization.IDs, []int64{0, 2}) || !slices.Equal(job.Dangling.Weights, []float64{2, 1}) || job.NStart.IDs[0] != 1 {
		t.Fatalf("vectors %+v %+v %+v", job.Personalization, job.Dangling, job.NStart)
	}
	job = Job{Config: DefaultConfig()}
	if err := with(pagerankDefaults(), func(s *JobConfig) { s.PersonalizeIDs = []int64{5, 9} }).SetVectors(&job, &Source{}); err != nil ||
		!slices.Equal(job.Personalization.IDs, []int64{5, 9}) || !slices.Equal(job.Personalization.Weights, []float64{1, 1}) || job.Dangling != nil {
		t.Fatalf("seed set: %+v, %v", job.Personalization, err)
	}
	gs := Job{Config: DefaultConfig()}
	gs.GaussSeidel = true
	if err := with(pagerankDefaults(), func(s *JobConfig) { s.Personalize = pers }).SetVectors(&gs, mtx); fielderr.Field(err) != "GaussSeidel" {
		t.Errorf("a personalization with GaussSeidel: %v", err)
	}
	bad := file("bad.txt", "1 1\n2 -3\n")
	for _, tc := range []struct {
		name, field, want string
		s                 JobConfig
	}{
		{"bad weight", "Dangling", "bad.txt:2:", with(pagerankDefaults(), func(s *JobConfig) { s.Dangling = bad })},
		{"no file", "NStart", "none.txt", with(pagerankDefaults(), func(s *JobConfig) { s.NStart = filepath.Join(dir, "none.txt") })},
		{"both", "PersonalizeIDs", "cannot be combined", with(pagerankDefaults(), func(s *JobConfig) { s.Personalize, s.PersonalizeIDs = pers, []int64{1} })},
		{"seed twice", "PersonalizeIDs", "entry 1: vertex 4 is listed again", with(pagerankDefaults(), func(s *JobConfig) { s.PersonalizeIDs = []int64{4, 4} })},
		{"no seed", "PersonalizeIDs", "no vertex", with(pagerankDefaults(), func(s *JobConfig) { s.PersonalizeIDs = []int64{} })},
	} {
		err := tc.s.SetVectors(&Job{Config: DefaultConfig()}, mtx)
		wantField(t, tc.name, err, tc.field)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestJoinTagNamesTheVectors: a joining process with other vectors
// presents another tag; the same vectors read anew, the same tag.
func TestJoinTagNamesTheVectors(t *testing.T) {
	cfg := DefaultConfig()
	plain := JoinTag("g.el", cfg)
	cfg.Personalization = UniformVector([]int64{1, 2})
	seeds := JoinTag("g.el", cfg)
	cfg.Personalization = UniformVector([]int64{1, 2})
	again := JoinTag("g.el", cfg)
	cfg.Personalization = UniformVector([]int64{1, 3})
	other := JoinTag("g.el", cfg)
	if seeds == plain || seeds != again || other == seeds || !strings.Contains(seeds, "Personalization=") {
		t.Errorf("tags %q, %q, %q, %q", plain, seeds, again, other)
	}
}
