// Package progress reports graphrun's progress on stderr: the stages of a
// Graph500 run (generation, construction, each search; the Graph500
// spec's benchmark, REFERENCES.md), PageRank's iterations and their L1
// change (Kylix §VII-D), and a benchmark matrix run by run. On a terminal
// it draws a bar; elsewhere (a log, a pipe) it prints a line per finished
// step instead, as the Graph500 reference and gapbs print one per search,
// so that a batch log shows life and carries no escape codes.
package progress

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// IsTerminal reports whether w writes to a terminal (an *os.File, or a
// writer that passes on the file descriptor of one).
func IsTerminal(w io.Writer) bool {
	f, ok := w.(interface{ Fd() uintptr })
	return ok && term.IsTerminal(int(f.Fd()))
}

// Matrix reports a benchmark matrix run by run: a bar on a terminal, one
// line per finished run otherwise (so logs show the progress too).
type Matrix struct {
	w     io.Writer
	bar   *progressbar.ProgressBar
	name  string
	count int
	total int
}

// NewMatrix returns the progress of the matrix name of total runs on w.
func NewMatrix(w io.Writer, name string, total int) *Matrix {
	p := &Matrix{w: w, name: name, total: total}
	if IsTerminal(w) {
		p.bar = progressbar.NewOptions(total,
			progressbar.OptionSetWriter(w),
			progressbar.OptionSetDescription(name),
			progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(true),
		)
	}
	return p
}

// Step records a finished run and its one-line result.
func (p *Matrix) Step(result string) {
	p.count++
	if p.bar != nil {
		p.bar.Describe(result)
		_ = p.bar.Add(1)
		return
	}
	fmt.Fprintf(p.w, "graphrun: bench %s [%d/%d] %s\n", p.name, p.count, p.total, result)
}

// Finish ends the bar, if one is drawn.
func (p *Matrix) Finish() {
	if p.bar != nil {
		_ = p.bar.Finish()
		fmt.Fprintln(p.w)
	}
}

// number formats v with three significant digits and a bare exponent, if
// any: 0.0143, 12.3, 1.17e9, 3.1e-9 (strconv.ParseFloat reads them all).
func number(v float64) string {
	s := strconv.FormatFloat(v, 'g', 3, 64)
	mant, exp, ok := strings.Cut(s, "e")
	if !ok {
		return s
	}
	n, err := strconv.Atoi(exp)
	if err != nil {
		return s
	}
	return mant + "e" + strconv.Itoa(n)
}

// seconds formats a time in seconds as number does, whole from 100 s on.
func seconds(v float64) string {
	if v >= 100 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return number(v)
}
