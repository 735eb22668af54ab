package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/graphrun/graphrun/bench"
	"github.com/graphrun/graphrun/internal/progress"
)

type benchMemoryFlags struct {
	scales, ranks, kinds string
	roots                int
	out                  benchOutput
}

// newBenchMemoryCommand is `graphrun bench memory`: the peak resident memory
// of whole runs, each in a process of its own (GNU time's "maximum resident
// set size", read from getrusage), per input tuple or arc, beside the
// memory model's estimate (graph500.EstimateMemory) for the BFS runs.
func newBenchMemoryCommand() *cobra.Command {
	var f benchMemoryFlags
	cmd := &cobra.Command{
		Use:   "memory",
		Short: "Peak memory of bfs and pagerank runs per tuple and arc, against the memory model",
		Long: `Runs each configuration in a process of its own and records its peak resident
set size: "graphrun bfs --scale S --ranks P --roots R" (validated, 1D and, with
the bfs-2d kind, 2D) and "graphrun pagerank --kron S --undirected --iterations 5
--ranks P". Prints bytes per input tuple (bfs) or per arc (pagerank: two per
tuple) and, for bfs, the memory model's estimate and its ratio to the
measurement; regenerates its table in --doc.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runBenchMemory(cmd, &f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.scales, "scales", "18-24", `scales, a range "A-B" or a list "18,20,22"`)
	fl.StringVar(&f.ranks, "ranks", "1,2,4", "in-process rank counts, comma-separated")
	fl.StringVar(&f.kinds, "kinds", "bfs,bfs-2d,pagerank", "runs to measure: bfs, bfs-2d, pagerank")
	fl.IntVar(&f.roots, "roots", 4, "bfs search keys per run (each validated)")
	f.out.register(fl)
	return cmd
}

// parseIntList parses "18-24" or "1,2,4" into its values.
func parseIntList(s string) ([]int, error) {
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
	var out []int
	for _, part := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(part))
		if err != nil {
			return nil, fmt.Errorf("%q: %w", part, err)
		}
		out = append(out, v)
	}
	return out, nil
}

func runBenchMemory(cmd *cobra.Command, f *benchMemoryFlags) error {
	scales, err := parseIntList(f.scales)
	if err != nil {
		return flagError("scales", "%v", err)
	}
	for _, s := range scales {
		if s < 1 || s > 32 {
			return flagError("scales", "%d is outside 1..32", s)
		}
	}
	ranks, err := parseIntList(f.ranks)
	if err != nil {
		return flagError("ranks", "%v", err)
	}
	for _, p := range ranks {
		if err := checkRanks(p); err != nil {
			return err
		}
	}
	kinds := strings.Split(f.kinds, ",")
	for _, k := range kinds {
		if k != bench.MemoryBFS && k != bench.MemoryBFS2D && k != bench.MemoryPageRank {
			return flagError("kinds", "unknown kind %q (want bfs, bfs-2d or pagerank)", k)
		}
	}
	if f.roots < 1 {
		return flagError("roots", "%d is less than 1", f.roots)
	}
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("bench memory: %w", err)
	}
	key := fmt.Sprintf("memory scales=%s ranks=%s kinds=%s roots=%d", f.scales, f.ranks, f.kinds, f.roots)
	command := fmt.Sprintf("graphrun bench memory --scales %s --ranks %s --kinds %s --roots %d", f.scales, f.ranks, f.kinds, f.roots)
	outs := outputsOf(cmd)
	if err := f.out.declare(outs); err != nil {
		return err
	}
	if err := outs.Check(); err != nil {
		return err
	}
	f.out.start("memory", key, command)
	// The runs write their JSON into a scratch folder; each is then copied
	// into --dir through the output writer.
	scratch, err := os.MkdirTemp("", "graphrun-bench-memory-")
	if err != nil {
		return fmt.Errorf("bench memory: %w", err)
	}
	defer os.RemoveAll(scratch)
	stderr := cmd.ErrOrStderr()
	total := len(kinds) * len(scales) * len(ranks)
	bar := progress.NewMatrix(stderr, "memory", total)
	var runs []bench.MemoryRun
	for _, kind := range kinds {
		for _, s := range scales {
			for _, p := range ranks {
				r, err := bench.MeasureMemory(cmd.Context(), self, scratch, kind, s, p, f.roots)
				if err != nil {
					return fmt.Errorf("bench memory: %w", err)
				}
				doc, err := os.ReadFile(filepath.Join(scratch, r.File))
				if err != nil {
					return fmt.Errorf("bench memory: %w", err)
				}
				if _, err := f.out.dirOut.WriteFile(r.File, func(w io.Writer) error { _, err := w.Write(doc); return err }); err != nil {
					return err
				}
				runs = append(runs, r)
				bar.Step(fmt.Sprintf("%s scale %d, %d ranks: %.2f GB, %.1f B per %s", kind, s, p,
					float64(r.PeakBytes)/1e9, float64(r.PeakBytes)/float64(r.Units), bench.MemoryUnit(kind)))
			}
		}
	}
	bar.Finish()
	f.out.finish()
	summary := struct {
		benchMeta
		Runs []bench.MemoryRun `json:"runs"`
	}{f.out.meta(), runs}
	if err := f.out.writeSummary(summary); err != nil {
		return err
	}
	table := bench.MemoryTable(runs)
	fmt.Fprint(cmd.OutOrStdout(), table)
	return f.out.regenerate(stderr, "each run a process of its own, peak resident set size from getrusage",
		"The model is graph500.EstimateMemory (bfs only); ratio = model / measured.", table)
}
