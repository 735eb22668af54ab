package progress

import (
	"bytes"
	"strings"
	"testing"
)

// TestIterationProgress: the PageRank bar shows the last iteration and its
// L1 change once per iteration (whichever rank reports it first), is
// cleared before the results, and is not drawn when stderr is no terminal.
func TestIterationProgress(t *testing.T) {
	var buf bytes.Buffer
	p := newIterationBar(&buf, 100, 1e-10)
	for _, it := range []int{1, 1, 1, 2, 3} {
		p.Update(it, 0.5/float64(it*it))
	}
	out := buf.String()
	for _, want := range []string{"iteration 1, L1 change 0.5", "iteration 2, L1 change 0.125", "iteration 3, L1 change 0.0556", "3/100"} {
		if !strings.Contains(out, want) {
			t.Errorf("progress %q lacks %q", out, want)
		}
	}
	if n1, n2 := strings.Count(out, "iteration 1,"), strings.Count(out, "iteration 2,"); n1 != n2 || n1 == 0 {
		t.Errorf("iterations drawn %d and %d times: a rank's repeated report redrew the bar", n1, n2)
	}
	if got := p.bar.State().CurrentNum; got != 3 {
		t.Errorf("bar at %d, want 3", got)
	}
	p.Clear()
	// A run to a tolerance: no bar over the iteration limit, the tolerance named.
	buf.Reset()
	p = newIterationBar(&buf, 0, 1e-10)
	p.Update(1, 0.5)
	p.Update(2, 0.25)
	if out := buf.String(); !strings.Contains(out, "iteration 2, L1 change 0.25 (runs to 1e-10)") || strings.Contains(out, "/100") {
		t.Errorf("progress to a tolerance: %q", out)
	}
	p.Clear()
	var none bytes.Buffer
	q := NewIterations(&none, 10, 0)
	q.Update(1, 0.1)
	q.Clear()
	if none.Len() != 0 {
		t.Errorf("progress drawn on a non-terminal: %q", none.String())
	}
}

// TestStagesAndMatrixOffTerminal: off a terminal the Graph500 bar draws
// nothing and a matrix prints one line per run.
func TestStagesAndMatrixOffTerminal(t *testing.T) {
	var buf bytes.Buffer
	s := NewStages(&buf, 10, 4, false)
	s.Update("search", 1, 4)
	s.Clear()
	if buf.Len() != 0 {
		t.Fatalf("stages drawn on a non-terminal: %q", buf.String())
	}
	m := NewMatrix(&buf, "pagerank", 2)
	m.Step("a")
	m.Step("b")
	m.Finish()
	if got, want := buf.String(), "graphrun: bench pagerank [1/2] a\ngraphrun: bench pagerank [2/2] b\n"; got != want {
		t.Fatalf("matrix lines %q, want %q", got, want)
	}
}
