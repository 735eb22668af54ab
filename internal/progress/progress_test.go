package progress

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/graphrun/graphrun/graph500"
	"github.com/graphrun/graphrun/results"
	"github.com/graphrun/graphrun/spmv/pagerank"
)

// iteration is a report of iteration n of a run whose L1 change halves.
func iteration(n int, seconds float64) pagerank.Iteration {
	return pagerank.Iteration{Number: n, L1: 0.5 / float64(n*n), Seconds: seconds}
}

// TestIterationProgress: the PageRank bar shows the last iteration and its
// L1 change once per iteration (whichever rank reports it first) and is
// cleared before the results.
func TestIterationProgress(t *testing.T) {
	var buf bytes.Buffer
	p := newIterationBar(&buf, 100)
	for _, it := range []int{1, 1, 1, 2, 3} {
		p.Update(iteration(it, 0.1))
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
	p.Finish()
	// A run to a tolerance: no bar over the iteration limit, the tolerance named.
	buf.Reset()
	p = newIterationBar(&buf, 0)
	for n := 1; n <= 2; n++ {
		it := iteration(n, 0.1)
		it.Threshold = 1e-10
		p.Update(it)
	}
	if out := buf.String(); !strings.Contains(out, "iteration 2, L1 change 0.125 (stops below N·tol = 1e-10)") || strings.Contains(out, "/100") {
		t.Errorf("progress to a tolerance: %q", out)
	}
	p.Finish()
}

// TestSpinnerCounterMoves: a run to a tolerance counts its iterations past
// the spinner's width (40 characters, which the bar library keeps as the
// maximum of a bar of unknown length): the counter reads (50/-) after 50.
func TestSpinnerCounterMoves(t *testing.T) {
	var buf bytes.Buffer
	p := newIterationBar(&buf, 0)
	for it := 1; it <= 50; it++ {
		p.Update(iteration(it, 0.01))
	}
	if got := p.bar.State().CurrentBytes; got != 50 {
		t.Errorf("counter at %v after 50 iterations, want 50", got)
	}
	if out := buf.String(); !strings.Contains(out, "(50/-") || strings.Contains(out[strings.LastIndex(out, "iteration 50"):], "(40/-") {
		t.Errorf("the spinner's counter does not read 50: %q", out[max(0, len(out)-200):])
	}
	p.Finish()
}

var iterationLine = regexp.MustCompile(`^graphrun: PageRank iteration (\d+): L1 (\S+), (\S+) s/iteration$`)

// TestIterationLinesOffTerminal: off a terminal PageRank prints a line per
// batch of at least 10 iterations and 2 s, whichever is rarer, and one for
// the last iteration, each with its L1 change and the batch's mean time
// per iteration; no bar, no escape codes.
func TestIterationLinesOffTerminal(t *testing.T) {
	for _, c := range []struct {
		per  float64 // seconds per iteration
		want []int   // the iterations printed of 35
	}{
		{0.5, []int{10, 20, 30, 35}}, // 10 iterations take 5 s: every 10
		{0.125, []int{16, 32, 35}},   // 10 take 1.25 s: every 2 s
		{0.001, []int{35}},           // a short run: its last line only
	} {
		var buf bytes.Buffer
		p := NewIterations(&buf, 0)
		for it := 1; it <= 35; it++ {
			p.Update(iteration(it, c.per))
			p.Update(iteration(it, 9)) // another rank's report: ignored
		}
		p.Finish()
		out := buf.String()
		if strings.ContainsRune(out, '\x1b') || strings.ContainsRune(out, '\r') {
			t.Fatalf("escape codes in a log: %q", out)
		}
		var got []int
		for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
			m := iterationLine.FindStringSubmatch(l)
			if m == nil {
				t.Fatalf("%v s/iteration: line %q is not an iteration line", c.per, l)
			}
			n, _ := strconv.Atoi(m[1])
			l1, err1 := strconv.ParseFloat(m[2], 64)
			per, err2 := strconv.ParseFloat(m[3], 64)
			if err1 != nil || err2 != nil || m[2] != number(iteration(n, 0).L1) || per != c.per {
				t.Errorf("line %q: L1 %v (%v), %v s/iteration (%v)", l, l1, err1, per, err2)
			}
			got = append(got, n)
		}
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%v s/iteration: lines for iterations %v, want %v", c.per, got, c.want)
		}
	}
}

// TestStagesOffTerminal: off a terminal a Graph500 run prints a line for
// generation, construction and each search (its time, TEPS and
// validation), then each SSSP search, and nothing as a step starts.
func TestStagesOffTerminal(t *testing.T) {
	var buf bytes.Buffer
	s := NewStages(&buf, 10, 3, false)
	s.Update(graph500.Event{Stage: graph500.StageConstruct, Steps: 1})
	s.Update(graph500.Event{Stage: graph500.StageGenerate, Steps: 1, End: true, Seconds: 0.0831})
	s.Update(graph500.Event{Stage: graph500.StageConstruct, Steps: 1, End: true, Seconds: 0.412})
	searches := []results.Search{
		{Time: 0.0143, NEdge: 16_731_000, ValidateTime: 0.0512, Validated: true},
		{Time: 0.5, NEdge: 1000, ValidateTime: 1234.5},
		{Time: 2e-5, NEdge: 100, ValidateTime: -1},
	}
	for i := range searches {
		s.Update(graph500.Event{Stage: graph500.StageSearch, Step: i, Steps: 3})
		s.Update(graph500.Event{Stage: graph500.StageValidate, Step: i, Steps: 3})
		s.Update(graph500.Event{Stage: graph500.StageSearch, Step: i, Steps: 3, End: true, Seconds: searches[i].Time, Search: &searches[i]})
	}
	s.Update(graph500.Event{Stage: graph500.StageSSSP, Step: 0, Steps: 3})
	s.Update(graph500.Event{Stage: graph500.StageSSSP, Step: 0, Steps: 3, End: true, Seconds: searches[0].Time, Search: &searches[0]})
	s.Clear()
	want := "graphrun: generation: 0.0831 s\n" +
		"graphrun: construction: 0.412 s\n" +
		"graphrun: BFS 0: 0.0143 s, 1.17e9 TEPS, validated in 0.0512 s\n" +
		"graphrun: BFS 1: 0.5 s, 2e3 TEPS, validation failed in 1234 s\n" +
		"graphrun: BFS 2: 2e-5 s, 5e6 TEPS\n" +
		"graphrun: SSSP 0: 0.0143 s, 1.17e9 TEPS, validated in 0.0512 s\n"
	if got := buf.String(); got != want {
		t.Fatalf("lines:\n%s\nwant:\n%s", got, want)
	}
}

// TestStagesBar: on a terminal the bar moves over generation, construction
// and the searches; a generated graph's generation, which ends with kernel
// 1, does not move it back.
func TestStagesBar(t *testing.T) {
	var buf bytes.Buffer
	s := &Stages{steps: 4}
	s.bar = newStagesBar(&buf, 10, 4)
	for _, c := range []struct {
		e    graph500.Event
		want int
	}{
		{graph500.Event{Stage: graph500.StageConstruct, Steps: 1}, 1},
		{graph500.Event{Stage: graph500.StageGenerate, Steps: 1, End: true}, 1},
		{graph500.Event{Stage: graph500.StageConstruct, Steps: 1, End: true}, 2},
		{graph500.Event{Stage: graph500.StageSearch, Steps: 2}, 2},
		{graph500.Event{Stage: graph500.StageValidate, Steps: 2}, 2},
		{graph500.Event{Stage: graph500.StageSearch, Steps: 2, End: true, Search: &results.Search{}}, 3},
		{graph500.Event{Stage: graph500.StageSearch, Step: 1, Steps: 2}, 3},
		// Kernel 3's searches follow and the bar grows to hold them.
		{graph500.Event{Stage: graph500.StageSSSP, Step: 1, Steps: 2, End: true, Search: &results.Search{}}, 6},
	} {
		s.Update(c.e)
		if got := s.bar.State().CurrentNum; got != int64(c.want) {
			t.Fatalf("after %+v the bar is at %d, want %d", c.e, got, c.want)
		}
	}
	if !strings.Contains(buf.String(), "search") {
		t.Errorf("the bar does not name the stage: %q", buf.String())
	}
	s.Clear()
}

// TestMatrixOffTerminal: off a terminal a matrix prints one line per run.
func TestMatrixOffTerminal(t *testing.T) {
	var buf bytes.Buffer
	m := NewMatrix(&buf, "pagerank", 2)
	m.Step("a")
	m.Step("b")
	m.Finish()
	if got, want := buf.String(), "graphrun: bench pagerank [1/2] a\ngraphrun: bench pagerank [2/2] b\n"; got != want {
		t.Fatalf("matrix lines %q, want %q", got, want)
	}
}
