package bench

// Peak memory of whole runs against the memory models of graph500
// (graph500.EstimateMemory) and PageRank (pagerank.EstimateMemory): each
// run a process of its own.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/graphrun/graphrun/graph500"
	"github.com/graphrun/graphrun/spmv"
	"github.com/graphrun/graphrun/spmv/pagerank"
)

// Kinds of run MeasureMemory measures.
const (
	MemoryBFS      = "bfs"      // a validated Graph500 run of R keys, 1D
	MemoryBFS2D    = "bfs-2d"   // the same on the 2D partition
	MemoryPageRank = "pagerank" // 5 iterations of PageRank on the undirected Kronecker graph
)

// MemoryCommand returns the process that runs one configuration of kind on
// scale and ranks (roots keys for bfs) and writes its JSON report to json.
type MemoryCommand func(ctx context.Context, kind string, scale, ranks, roots int, json string) *exec.Cmd

// MemoryRun is one measured run: a row of the table and of summary.json.
type MemoryRun struct {
	Kind      string  `json:"kind"`
	Scale     int     `json:"SCALE"`
	Ranks     int     `json:"ranks"`
	Units     int64   `json:"units"` // tuples (bfs) or arcs (pagerank)
	PeakBytes int64   `json:"peak_memory_bytes"`
	Model     int64   `json:"model_bytes,omitempty"`
	Seconds   float64 `json:"seconds"`
	File      string  `json:"file"`
}

// MemoryUnit is what a kind's bytes are counted per: tuple or arc.
func MemoryUnit(kind string) string {
	if kind == MemoryPageRank {
		return "arc"
	}
	return "tuple"
}

// MeasureMemory runs one configuration as a child process (command), its
// JSON written into dir, and returns its peak resident
// set size (getrusage's maximum, or the run's own report where getrusage
// says nothing).
func MeasureMemory(ctx context.Context, command MemoryCommand, dir, kind string, scale, ranks, roots int) (MemoryRun, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	file := fmt.Sprintf("memory-%s-s%d-p%d.json", kind, scale, ranks)
	r := MemoryRun{Kind: kind, Scale: scale, Ranks: ranks, File: file}
	tuples := int64(16) << scale
	switch kind {
	case MemoryBFS, MemoryBFS2D:
		r.Units = tuples
		cfg := graph500.MemoryConfig{Scale: scale, EdgeFactor: 16, Ranks: ranks, Validate: true,
			Exchange: spmv.ExchangeAllgather, Direction: spmv.DirectionAuto, Partition2D: kind == MemoryBFS2D}
		if est, err := graph500.EstimateMemory(cfg); err == nil {
			r.Model = est.Machine
		}
	case MemoryPageRank:
		r.Units = 2 * tuples
		if est, err := pagerank.EstimateMemory(pagerank.MemoryConfig{Scale: scale, EdgeFactor: 16, Undirected: true, Ranks: ranks}); err == nil {
			r.Model = est
		}
	default:
		return r, fmt.Errorf("unknown kind %q (want %s, %s or %s)", kind, MemoryBFS, MemoryBFS2D, MemoryPageRank)
	}
	c := command(ctx, kind, scale, ranks, roots, filepath.Join(dir, file))
	var errOut bytes.Buffer
	c.Stderr = &errOut
	t0 := time.Now()
	if err := c.Run(); err != nil {
		return r, fmt.Errorf("%s: %w\n%s", strings.Join(c.Args, " "), err, errOut.String())
	}
	r.Seconds = time.Since(t0).Seconds()
	if ru, ok := c.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.PeakBytes = int64(ru.Maxrss) << 10 // kilobytes on Linux
	}
	// The run's own report of its peak (VmHWM) agrees with getrusage; take
	// it where getrusage said nothing.
	if r.PeakBytes == 0 {
		var doc struct {
			Peak int64 `json:"peak_memory_bytes"`
		}
		if b, err := os.ReadFile(filepath.Join(dir, file)); err == nil && json.Unmarshal(b, &doc) == nil {
			r.PeakBytes = doc.Peak
		}
	}
	if r.PeakBytes == 0 {
		return r, fmt.Errorf("%s: its peak memory is not known on this system", strings.Join(c.Args, " "))
	}
	return r, nil
}

// MemoryTable renders the runs as a Markdown table.
func MemoryTable(runs []MemoryRun) string {
	var b strings.Builder
	b.WriteString("| run | SCALE | ranks | tuples or arcs | peak RSS | bytes per tuple or arc | model | model / measured | wall s |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range runs {
		model, ratio := "—", "—"
		if r.Model > 0 {
			model = fmt.Sprintf("%.2f GB", float64(r.Model)/1e9)
			ratio = fmt.Sprintf("%.2f", float64(r.Model)/float64(r.PeakBytes))
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %s %ss | %.3f GB | %.1f | %s | %s | %.1f |\n", r.Kind, r.Scale, r.Ranks,
			SICount(r.Units), MemoryUnit(r.Kind), float64(r.PeakBytes)/1e9,
			float64(r.PeakBytes)/float64(r.Units), model, ratio, r.Seconds)
	}
	return b.String()
}
