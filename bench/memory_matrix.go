package bench

// bench memory as a whole: its settings checked, every kind, scale and
// rank count measured by MeasureMemory in a process of its own, a JSON per
// run, summary.json and the table against graph500's memory model.

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/graphrun/graphrun/comm/launch"
	"github.com/graphrun/graphrun/internal/fielderr"
	"github.com/graphrun/graphrun/internal/progress"
)

// MaxMatrixScale is the largest Kronecker scale the memory and PageRank
// matrices take.
const MaxMatrixScale = 32

// MemorySpec configures the memory matrix: lists as text, checked by
// Parse, whose errors name the field at fault.
type MemorySpec struct {
	Scales, Ranks, Kinds string // a range "A-B" or a list; rank counts; kinds, comma-separated
	Roots                int    // bfs search keys per run
}

// MemoryMatrix is a checked MemorySpec.
type MemoryMatrix struct {
	Spec               MemorySpec
	Scales, RankCounts []int
	Kinds              []string
}

// Parse checks the settings; every error is a fielderr.Error naming the
// field at fault.
func (s MemorySpec) Parse() (*MemoryMatrix, error) {
	m := &MemoryMatrix{Spec: s}
	var err error
	if m.Scales, err = ParseScales(s.Scales); err != nil {
		return nil, fielderr.Wrap("Scales", err)
	}
	if m.RankCounts, err = ParseRankCounts(s.Ranks); err != nil {
		return nil, err
	}
	m.Kinds = strings.Split(s.Kinds, ",")
	for _, k := range m.Kinds {
		if k != MemoryBFS && k != MemoryBFS2D && k != MemoryPageRank {
			return nil, fielderr.New("Kinds", "unknown kind %q (want bfs, bfs-2d or pagerank)", k)
		}
	}
	if s.Roots < 1 {
		return nil, fielderr.New("Roots", "%d is less than 1", s.Roots)
	}
	return m, nil
}

// ParseIntList parses "18-24" or "1,2,4" into its values.
func ParseIntList(s string) ([]int, error) {
	if lo, hi, ok := strings.Cut(s, "-"); ok {
		a, err1 := strconv.Atoi(strings.TrimSpace(lo))
		b, err2 := strconv.Atoi(strings.TrimSpace(hi))
		if err1 != nil || err2 != nil || a > b {
			return nil, fmt.Errorf("%q is not a range A-B with A ≤ B", s)
		}
		var out []int
		for v := a; v <= b; v++ {
			out = append(out, v)
		}
		return out, nil
	}
	return parseList(s, func(part string) (int64, error) {
		v, err := strconv.Atoi(strings.TrimSpace(part))
		if err != nil {
			return 0, fmt.Errorf("%q: %w", part, err)
		}
		return int64(v), nil
	})
}

// ParseScales parses a list or range of Kronecker scales (ParseIntList),
// each from 1 to MaxMatrixScale.
func ParseScales(s string) ([]int, error) {
	scales, err := ParseIntList(s)
	if err != nil {
		return nil, err
	}
	for _, v := range scales {
		if v < 1 || v > MaxMatrixScale {
			return nil, fmt.Errorf("%d is outside 1..%d", v, MaxMatrixScale)
		}
	}
	return scales, nil
}

// ParseRankCounts parses a list of in-process rank counts
// (ParseIntList), each checked by launch.CheckRanks; its errors are
// fielderr.Errors of "Ranks".
func ParseRankCounts(s string) ([]int, error) {
	ranks, err := ParseIntList(s)
	if err != nil {
		return nil, fielderr.Wrap("Ranks", err)
	}
	for _, p := range ranks {
		if err := launch.CheckRanks(p); err != nil {
			return nil, err
		}
	}
	return ranks, nil
}

// Run measures every kind, scale and rank count, each a process command
// starts (MeasureMemory), records each run's JSON in out, prints the table
// on text. out must be started.
func (m *MemoryMatrix) Run(ctx context.Context, command MemoryCommand, out *Output, text, stderr io.Writer) error {
	// The runs write their JSON into a scratch folder; each is then copied
	// into Dir through the output writer.
	scratch, err := os.MkdirTemp("", "graphrun-bench-memory-")
	if err != nil {
		return fmt.Errorf("bench memory: %w", err)
	}
	defer os.RemoveAll(scratch)
	bar := progress.NewMatrix(stderr, "memory", len(m.Kinds)*len(m.Scales)*len(m.RankCounts))
	var runs []MemoryRun
	for _, kind := range m.Kinds {
		for _, s := range m.Scales {
			for _, p := range m.RankCounts {
				r, err := MeasureMemory(ctx, command, scratch, kind, s, p, m.Spec.Roots)
				if err != nil {
					return fmt.Errorf("bench memory: %w", err)
				}
				doc, err := os.ReadFile(filepath.Join(scratch, r.File))
				if err != nil {
					return fmt.Errorf("bench memory: %w", err)
				}
				if _, err := out.WriteFile(r.File, func(w io.Writer) error { _, err := w.Write(doc); return err }); err != nil {
					return err
				}
				runs = append(runs, r)
				bar.Step(fmt.Sprintf("%s scale %d, %d ranks: %.2f GB, %.1f B per %s", kind, s, p,
					float64(r.PeakBytes)/1e9, float64(r.PeakBytes)/float64(r.Units), MemoryUnit(kind)))
			}
		}
	}
	summary := func(meta Meta) any {
		return struct {
			Meta
			Runs []MemoryRun `json:"runs"`
		}{meta, runs}
	}
	return out.Complete(bar, text, MemoryTable(runs),
		"Each run a process of its own, peak resident set size from getrusage. The model is graph500.EstimateMemory for bfs and bfs-2d, pagerank.EstimateMemory for pagerank; ratio = model / measured.", summary)
}
