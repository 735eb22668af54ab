package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/graphrun/graphrun/graph500"
	"github.com/graphrun/graphrun/internal/progress"
	"github.com/graphrun/graphrun/spmv"
)

// Kinds of run `graphrun bench memory` measures.
const (
	memoryKindBFS      = "bfs"      // graphrun bfs --roots R (validated)
	memoryKindBFS2D    = "bfs-2d"   // the same with --partition 2d
	memoryKindPageRank = "pagerank" // graphrun pagerank --kron S --undirected --iterations 5
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

// memoryRun is one measured run: a row of the table and of summary.json.
type memoryRun struct {
	Kind      string  `json:"kind"`
	Scale     int     `json:"SCALE"`
	Ranks     int     `json:"ranks"`
	Units     int64   `json:"units"` // tuples (bfs) or arcs (pagerank)
	PeakBytes int64   `json:"peak_memory_bytes"`
	Model     int64   `json:"model_bytes,omitempty"`
	Seconds   float64 `json:"seconds"`
	File      string  `json:"file"`
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
		if k != memoryKindBFS && k != memoryKindBFS2D && k != memoryKindPageRank {
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
	var runs []memoryRun
	for _, kind := range kinds {
		for _, s := range scales {
			for _, p := range ranks {
				r, err := measureMemory(cmd.Context(), self, scratch, kind, s, p, f.roots)
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
					float64(r.PeakBytes)/1e9, float64(r.PeakBytes)/float64(r.Units), memoryUnit(kind)))
			}
		}
	}
	bar.Finish()
	f.out.finish()
	summary := struct {
		benchMeta
		Runs []memoryRun `json:"runs"`
	}{f.out.meta(), runs}
	if err := f.out.writeSummary(summary); err != nil {
		return err
	}
	table := memoryTable(runs)
	fmt.Fprint(cmd.OutOrStdout(), table)
	return f.out.regenerate(stderr, "each run a process of its own, peak resident set size from getrusage",
		"The model is graph500.EstimateMemory (bfs only); ratio = model / measured.", table)
}

func memoryUnit(kind string) string {
	if kind == memoryKindPageRank {
		return "arc"
	}
	return "tuple"
}

// measureMemory runs one configuration as a child process and returns its
// peak resident set size.
func measureMemory(ctx context.Context, self, dir, kind string, scale, ranks, roots int) (memoryRun, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	file := fmt.Sprintf("memory-%s-s%d-p%d.json", kind, scale, ranks)
	r := memoryRun{Kind: kind, Scale: scale, Ranks: ranks, File: file}
	tuples := int64(16) << scale
	var args []string
	switch kind {
	case memoryKindBFS, memoryKindBFS2D:
		r.Units = tuples
		args = []string{"bfs", "--scale", fmt.Sprint(scale), "--ranks", fmt.Sprint(ranks), "--roots", fmt.Sprint(roots)}
		cfg := graph500.MemoryConfig{Scale: scale, EdgeFactor: 16, Ranks: ranks, Validate: true,
			Exchange: spmv.ExchangeAllgather, Direction: spmv.DirectionAuto}
		if kind == memoryKindBFS2D {
			args = append(args, "--partition", "2d")
			cfg.Partition2D = true
		}
		if est, err := graph500.EstimateMemory(cfg); err == nil {
			r.Model = est.Machine
		}
	case memoryKindPageRank:
		r.Units = 2 * tuples
		args = []string{"pagerank", "--kron", fmt.Sprint(scale), "--undirected", "--iterations", "5", "--ranks", fmt.Sprint(ranks)}
	}
	args = append(args, "--json", filepath.Join(dir, file))
	c := exec.CommandContext(ctx, self, args...)
	var errOut bytes.Buffer
	c.Stderr = &errOut
	t0 := time.Now()
	if err := c.Run(); err != nil {
		return r, fmt.Errorf("graphrun %s: %w\n%s", strings.Join(args, " "), err, errOut.String())
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
		return r, fmt.Errorf("graphrun %s: its peak memory is not known on this system", strings.Join(args, " "))
	}
	return r, nil
}

// siCount writes a count with an SI prefix: 67.1 M.
func siCount(v int64) string {
	switch {
	case v >= 1e9:
		return fmt.Sprintf("%.2f G", float64(v)/1e9)
	case v >= 1e6:
		return fmt.Sprintf("%.1f M", float64(v)/1e6)
	case v >= 1e3:
		return fmt.Sprintf("%.1f k", float64(v)/1e3)
	}
	return fmt.Sprint(v)
}

// memoryTable renders the runs as a Markdown table.
func memoryTable(runs []memoryRun) string {
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
			siCount(r.Units), memoryUnit(r.Kind), float64(r.PeakBytes)/1e9,
			float64(r.PeakBytes)/float64(r.Units), model, ratio, r.Seconds)
	}
	return b.String()
}
