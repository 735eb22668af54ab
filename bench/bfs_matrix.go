package bench

// bench bfs-codecs and bench bfs-scaling as a whole: the matrix's
// settings checked, every configuration run by graph500.Run (validation
// skipped: the test suite validates every mode), a JSON per run,
// summary.json and the table (Lv et al. Table V's comparison).

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"time"

	"github.com/graphrun/graphrun/comm/launch"
	"github.com/graphrun/graphrun/gen/kronecker"
	"github.com/graphrun/graphrun/graph500"
	"github.com/graphrun/graphrun/internal/fielderr"
	"github.com/graphrun/graphrun/internal/progress"
	"github.com/graphrun/graphrun/results"
	"github.com/graphrun/graphrun/results/report"
	"github.com/graphrun/graphrun/spmv"
)

// The BFS matrices.
const (
	BFSCodecs  = "bfs-codecs"  // CodecsMatrix
	BFSScaling = "bfs-scaling" // ScalingMatrix
)

// BFSMatrix is a BFS matrix on one Kronecker graph.
type BFSMatrix struct {
	Name         string // BFSCodecs or BFSScaling
	Graph        kronecker.Params
	Ranks, Roots int    // in-process ranks (bfs-scaling: the largest count), search keys per run
	Threads      int    // goroutines per rank; 0: CPUs / ranks, at least 1
	Caption      string // under the table: how its runs were made
}

// Check checks the ranks and roots; its errors are fielderr.Errors.
func (m *BFSMatrix) Check() error {
	if err := launch.CheckRanks(m.Ranks); err != nil {
		return err
	}
	if m.Roots < 1 {
		return fielderr.New("Roots", "%d is less than 1", m.Roots)
	}
	return nil
}

// BFSSummary is summary.json of a BFS matrix.
type BFSSummary struct {
	Meta
	Scale int             `json:"SCALE"`
	Ranks int             `json:"ranks"`
	Roots int             `json:"roots"`
	Runs  []BFSSummaryRun `json:"runs"`
}

// BFSSummaryRun is one run of BFSSummary.
type BFSSummaryRun struct {
	Label            string  `json:"label"`
	File             string  `json:"file"`
	Ranks            int     `json:"ranks"`
	Exchange         string  `json:"exchange"`
	Codec            string  `json:"codec"`
	Direction        string  `json:"direction"`
	CommBytes        int64   `json:"comm_bytes"`
	CommMessages     int64   `json:"comm_messages"`
	HarmonicMeanTEPS float64 `json:"harmonic_mean_TEPS"`
}

// Run runs every configuration of the matrix in this process, records
// each in out, prints the table on text.
// out must be started.
func (m *BFSMatrix) Run(ctx context.Context, out *Output, text, stderr io.Writer) error {
	entries, err := CodecsMatrix()
	if err != nil {
		return err
	}
	if m.Name == BFSScaling {
		entries = ScalingMatrix(m.Ranks)
	}
	summary := BFSSummary{Scale: m.Graph.Scale, Ranks: m.Ranks, Roots: m.Roots}
	var rows []report.BFSMatrixRow
	bar := progress.NewMatrix(stderr, m.Name, len(entries))
	for i, e := range entries {
		ranks := m.Ranks
		if e.Ranks > 0 {
			ranks = e.Ranks
		}
		exchange, err := spmv.ParseExchange(e.Exchange)
		if err != nil {
			return err
		}
		direction, err := spmv.ParseDirection(e.Direction)
		if err != nil {
			return err
		}
		threads := m.Threads
		if threads == 0 {
			threads = max(1, runtime.GOMAXPROCS(0)/ranks)
		}
		run, err := graph500.Run(ctx, graph500.Config{
			Graph: m.Graph, Ranks: ranks, Threads: threads, NumRoots: m.Roots, Root: -1,
			Exchange: exchange, Direction: direction, Codec: e.Codec,
		})
		if err != nil {
			return fmt.Errorf("bench %s: %s: %w", m.Name, e.Label, err)
		}
		run.Version, run.StartedAt = out.Version, time.Now().UTC()
		file := fmt.Sprintf("%s-s%d-p%d-%02d.json", m.Name, m.Graph.Scale, ranks, i+1)
		if _, err := out.WriteFile(file, run.WriteJSON); err != nil {
			return fmt.Errorf("bench %s: %w", m.Name, err)
		}
		rows = append(rows, report.BFSMatrixRow{Label: e.Label, File: file, Run: run})
		hm := results.ComputeTEPS(run.Searches).HarmonicMean
		summary.Runs = append(summary.Runs, BFSSummaryRun{Label: e.Label, File: file, Ranks: ranks, Exchange: e.Exchange, Codec: e.Codec,
			Direction: e.Direction, CommBytes: run.CommBytes, CommMessages: run.CommMessages, HarmonicMeanTEPS: hm})
		bar.Step(fmt.Sprintf("%s: %.2f MB, %.3g TEPS", e.Label, float64(run.CommBytes)/1e6, hm))
	}
	base := "BIT"
	if m.Name == BFSScaling {
		base = rows[0].Label
	}
	withMeta := func(meta Meta) any {
		summary.Meta = meta
		return summary
	}
	return out.Complete(bar, text, report.BFSMatrixTable(rows, base), m.Caption, withMeta)
}
