package pagerank

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/inproc"
	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/internal/fielderr"
)

func TestReadVector(t *testing.T) {
	v, err := ReadVector(strings.NewReader("# seeds\n% too\n\n3 0.5\r\n 7\t2 \n9\n"), "p.txt", 1)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int64{2, 6, 8}; !slices.Equal(v.IDs, want) || v.Weights[0] != 0.5 || v.Weights[1] != 2 || v.Weights[2] != 1 {
		t.Fatalf("ids %v weights %v", v.IDs, v.Weights)
	}
	if v.Lines[0] != 4 || v.Lines[2] != 6 {
		t.Fatalf("lines %v", v.Lines)
	}
	for _, c := range []struct{ in, want string }{
		{"1 1\nx 2\n", `p.txt:2: id "x" is not an integer`},
		{"1 -1\n", `p.txt:1: weight "-1" of vertex 1`},
		{"1 NaN\n", `p.txt:1: weight "NaN"`},
		{"1 +Inf\n", `p.txt:1: weight "+Inf"`},
		{"1 2 3\n", "p.txt:1: 3 fields"},
		{"-4 1\n", "p.txt:1: id -4 is negative"},
		{"5 1\n\n5 2\n", "p.txt:3: vertex 5 is listed again (first at p.txt:1)"},
		{"# nothing\n", "p.txt: no vertex"},
		{"1 0\n2 0\n", "p.txt: the weights sum to 0"},
		{"1 " + strings.Repeat("0", maxVectorLine) + "\n", "p.txt:1: a line longer than"},
	} {
		_, err := ReadVector(strings.NewReader(c.in), "p.txt", 0)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.in, err, c.want)
		}
	}
}

// FuzzReadVector: any bytes give a vector that passes the configuration's
// check, or an error naming the file; never a panic.
func FuzzReadVector(f *testing.F) {
	for _, s := range []string{"1 0.5\n2 1\n", "# c\n3\n", "1 1e308\n2 1e308\n", "1 -0\n2 1\n", "4 0x1p-3\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := ReadVector(strings.NewReader(string(data)), "f.txt", 0)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.txt") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		cfg := DefaultConfig()
		cfg.Personalization = v
		if err := cfg.Check(); err != nil {
			t.Fatalf("read vector fails the check: %v", err)
		}
	})
}

// TestVectorErrors: a bad vector is refused naming the Config field and
// the entry's file and line; an id in no edge is refused on every rank.
func TestVectorErrors(t *testing.T) {
	check := func(field string, set func(*Config, *Vector), v *Vector, want string) {
		t.Helper()
		cfg := DefaultConfig()
		set(&cfg, v)
		err := cfg.Check()
		var fe *fielderr.Error
		if !errors.Is(err, ErrConfig) || !errors.As(err, &fe) || fe.Field != field || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want the field and %q", field, err, want)
		}
	}
	pers := func(c *Config, v *Vector) { c.Personalization = v }
	check("Personalization", pers, &Vector{IDs: []int64{1}, Weights: []float64{-1}, Name: "s.txt", Lines: []int{7}}, "s.txt:7: vertex 1")
	check("Personalization", pers, UniformVector(nil), "no vertex")
	check("Dangling", func(c *Config, v *Vector) { c.Dangling = v }, &Vector{IDs: []int64{1, 2}, Weights: []float64{0, 0}}, "sum to 0")
	check("NStart", func(c *Config, v *Vector) { c.NStart = v }, &Vector{IDs: []int64{3, 3}, Weights: []float64{1, 1}}, "entry 1: vertex 3 is listed again")
	check("GaussSeidel", func(c *Config, v *Vector) { c.Personalization, c.GaussSeidel = v, true }, UniformVector([]int64{1}), "personalization")

	edges := []graph.Edge{{U: 1, V: 2}, {U: 2, V: 3}, {U: 3, V: 1}, {U: 5, V: 1}}
	cfg := DefaultConfig()
	cfg.NStart = &Vector{IDs: []int64{2, 4}, Weights: []float64{1, 1}, Name: "n.txt", Lines: []int{1, 2}, IDOffset: 1}
	for _, p := range []int{1, 3} {
		errs := make([]error, p)
		_ = inproc.Run(context.Background(), p, func(ctx context.Context, c comm.Comm) error {
			_, errs[c.Rank()] = Run(ctx, c, edges[c.Rank()*len(edges)/p:(c.Rank()+1)*len(edges)/p], cfg)
			return errs[c.Rank()]
		})
		for r, err := range errs {
			var fe *fielderr.Error
			if !errors.As(err, &fe) || fe.Field != "NStart" || !strings.Contains(err.Error(), "n.txt:2: vertex 5 occurs in no edge") {
				t.Errorf("p=%d rank %d: %v", p, r, err)
			}
		}
	}
}

// TestPersonalizedSeeds: PageRank from a seed set gives no score to the
// vertices the seeds do not reach, and sums to 1.
func TestPersonalizedSeeds(t *testing.T) {
	edges := []graph.Edge{{U: 1, V: 2}, {U: 2, V: 3}, {U: 3, V: 1}, {U: 4, V: 1}, {U: 3, V: 5}}
	cfg := DefaultConfig()
	cfg.Personalization = UniformVector([]int64{2})
	for _, p := range []int{1, 2} {
		res, scores, _ := runPageRank(t, p, edges, cfg, 1)
		var total float64
		for _, s := range scores {
			total += s
		}
		if scores[4] != 0 || scores[2] <= scores[1] || res.Total < 1-1e-12 || total < 1-1e-12 || total > 1+1e-12 {
			t.Errorf("p=%d: scores %v, total %v", p, scores, total)
		}
	}
}
