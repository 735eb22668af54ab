package progress

import (
	"fmt"
	"io"
	"sync"

	"github.com/graphrun/graphrun/spmv/pagerank"
	"github.com/schollz/progressbar/v3"
)

// A line off a terminal reports a batch of at least batchIterations
// iterations taking at least batchSeconds, whichever is rarer, so that a
// log gets a line every few seconds of a long run and few of a short one.
const (
	batchIterations = 10
	batchSeconds    = 2.0
)

// Iterations is PageRank's progress. On a terminal it draws the last
// iteration's number and L1 change, with a bar over the iterations when
// the run has a fixed count, else beside a spinner and the L1 change it
// stops below, N·tol (most runs converge long before their maximum). Elsewhere it
// prints a line per batch of iterations and one for the last:
//
//	graphrun: PageRank iteration 40: L1 3.1e-9, 0.021 s/iteration
//
// (the batch's mean time per iteration). Every in-process rank reports
// each iteration; the first report of an iteration counts.
type Iterations struct {
	mu   sync.Mutex
	bar  *progressbar.ProgressBar
	max  int // the bar's count of iterations; 0 for a spinner
	last pagerank.Iteration

	w       io.Writer // the lines' writer, off a terminal
	batch   int       // the iterations reported since the last line
	seconds float64   // and their time
}

// NewIterations returns the progress on w of a run of iterations
// iterations, or (iterations 0) of one that runs until its L1 change falls
// below the threshold its iterations report.
func NewIterations(w io.Writer, iterations int) *Iterations {
	if !IsTerminal(w) {
		return &Iterations{w: w}
	}
	return newIterationBar(w, iterations)
}

// newIterationBar draws on w whatever it is.
func newIterationBar(w io.Writer, iterations int) *Iterations {
	p := &Iterations{max: iterations}
	total := iterations
	if total <= 0 {
		total, p.max = -1, 0 // a spinner: the count is not known
	}
	p.bar = progressbar.NewOptions(total,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription("pagerank"),
		progressbar.OptionShowCount(),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionSetPredictTime(false),
		progressbar.OptionThrottle(0),
	)
	return p
}

// Update is the pagerank.Config.Progress callback.
func (p *Iterations) Update(it pagerank.Iteration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if it.Number <= p.last.Number {
		return // another rank's report of the same iteration
	}
	p.last = it
	if p.bar == nil {
		p.batch++
		p.seconds += it.Seconds
		if p.batch >= batchIterations && p.seconds >= batchSeconds {
			p.line()
		}
		return
	}
	desc := fmt.Sprintf("iteration %d, L1 change %.3g", it.Number, it.L1)
	if it.Threshold > 0 {
		desc += fmt.Sprintf(" (stops below N·tol = %.3g)", it.Threshold)
	}
	p.bar.Describe(desc)
	n := it.Number
	if p.max > 0 {
		n = min(n, p.max) // a spinner's own maximum is its width, not a count
	}
	_ = p.bar.Set(n)
}

// line prints the batch's line and starts the next batch.
func (p *Iterations) line() {
	fmt.Fprintf(p.w, "graphrun: PageRank iteration %d: L1 %s, %s s/iteration\n",
		p.last.Number, number(p.last.L1), seconds(p.seconds/float64(p.batch)))
	p.batch, p.seconds = 0, 0
}

// Finish ends the progress before the results are printed: it removes the
// bar, or off a terminal prints the last iteration's line if its batch
// has not been printed.
func (p *Iterations) Finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		_ = p.bar.Clear()
	} else if p.batch > 0 {
		p.line()
	}
}
