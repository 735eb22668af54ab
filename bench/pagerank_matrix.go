package bench

// bench pagerank-allreduce (Kylix §VII's comparison of the direct,
// binary and Kylix networks; REFERENCES.md) and bench pagerank (time per
// iteration) as a whole: their settings checked, every run made by a
// pagerank command line whose JSON is recorded (runPageRankMatrix),
// summary.json and the tables.

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/graphrun/graphrun/allreduce"
	"github.com/graphrun/graphrun/comm/launch"
	"github.com/graphrun/graphrun/internal/fielderr"
	"github.com/graphrun/graphrun/internal/progress"
	"github.com/graphrun/graphrun/results"
)

// Runner runs one graphrun command line (the arguments below graphrun)
// and returns its standard output: the run's JSON.
type Runner func(args []string) ([]byte, error)

// ChildRunner runs each command line as a child process of the graphrun
// binary self, so that its peak memory is its own; its errors name the
// matrix and carry the child's standard error.
func ChildRunner(ctx context.Context, self, matrix string) Runner {
	return func(args []string) ([]byte, error) {
		var data, errOut bytes.Buffer
		c := exec.CommandContext(ctx, self, args...)
		c.Stdout, c.Stderr = &data, &errOut
		if err := c.Run(); err != nil {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			return nil, fmt.Errorf("bench %s: graphrun %s: %w: %s", matrix, strings.Join(args, " "), err, strings.TrimSpace(errOut.String()))
		}
		return data.Bytes(), nil
	}
}

// PageRankAllreduceSpec is bench pagerank-allreduce's settings as the
// command line gives them, each field named after its flag.
type PageRankAllreduceSpec struct {
	Scale             int    // Kronecker scale, unless Input
	Input             string // an edge-list file
	Ranks, Iterations int
	Degrees           string // kylix networks, comma-separated ("8x8,4x4x4")
}

// PageRankAllreduceMatrix is a checked PageRankAllreduceSpec.
type PageRankAllreduceMatrix struct {
	Spec    PageRankAllreduceSpec
	Degrees []string // the networks of Degrees, formatted
}

// Parse checks the settings; every error is a fielderr.Error of the flag
// at fault.
func (s PageRankAllreduceSpec) Parse() (*PageRankAllreduceMatrix, error) {
	if err := launch.CheckRanks(s.Ranks); err != nil {
		return nil, err
	}
	switch {
	case s.Iterations < 1:
		return nil, fielderr.New("iterations", "%d is less than 1", s.Iterations)
	case s.Input == "" && (s.Scale < 1 || s.Scale > MaxMatrixScale):
		return nil, fielderr.New("scale", "%d is outside 1..%d", s.Scale, MaxMatrixScale)
	}
	if s.Input != "" {
		if _, err := os.Stat(s.Input); err != nil {
			return nil, fielderr.Wrap("input", err)
		}
	}
	m := &PageRankAllreduceMatrix{Spec: s}
	if s.Degrees == "" {
		return m, nil
	}
	for _, d := range strings.Split(s.Degrees, ",") {
		d = strings.TrimSpace(d)
		deg, err := allreduce.ParseDegrees(d, s.Ranks)
		if err != nil {
			return nil, fielderr.Wrap("degrees", err)
		}
		if deg == nil {
			return nil, fielderr.New("degrees", "%q: the matrix always runs kylix with auto degrees; list explicit networks such as 8x8", d)
		}
		m.Degrees = append(m.Degrees, allreduce.FormatDegrees(deg))
	}
	return m, nil
}

// Key returns the marker key of the table and the command line that
// regenerates it.
func (m *PageRankAllreduceMatrix) Key() (key, command string) {
	s := m.Spec
	graphFlag, graphKey := fmt.Sprintf("--scale %d", s.Scale), fmt.Sprintf("scale=%d", s.Scale)
	if s.Input != "" {
		graphFlag, graphKey = "--input "+filepath.Base(s.Input), "input="+filepath.Base(s.Input)
	}
	key = fmt.Sprintf("pagerank-allreduce %s ranks=%d iterations=%d", graphKey, s.Ranks, s.Iterations)
	command = fmt.Sprintf("graphrun bench pagerank-allreduce %s --ranks %d --iterations %d", graphFlag, s.Ranks, s.Iterations)
	if len(m.Degrees) > 0 {
		key += " degrees=" + strings.Join(m.Degrees, ",")
		command += " --degrees " + strings.Join(m.Degrees, ",")
	}
	return key, command
}

// Run makes every run of the matrix with run, records each in out, prints
// the table on text and regenerates it in out's Doc. out must be started.
func (m *PageRankAllreduceMatrix) Run(run Runner, out *Output, text, stderr io.Writer) error {
	s := m.Spec
	graphArgs, graphName := []string{"--kron", fmt.Sprint(s.Scale)}, fmt.Sprintf("Kronecker scale %d", s.Scale)
	if s.Input != "" {
		graphArgs, graphName = []string{s.Input}, filepath.Base(s.Input)
	}
	matrix := pageRankAllreduceRuns(graphArgs, s.Ranks, s.Iterations, m.Degrees)
	bar := progress.NewMatrix(stderr, "pagerank-allreduce", len(matrix))
	var files []string
	runs, err := runPageRankMatrix("pagerank-allreduce", matrix, out, run, func(br PageRankBenchRun, r *results.PageRankRun) {
		files = append(files, br.File)
		it := float64(max(1, r.Iterations))
		bar.Step(fmt.Sprintf("%s: %.0f messages, %.2f MB per iteration", r.Allreduce, float64(r.CommMessages)/it, float64(r.CommBytes)/it/1e6))
	})
	if err != nil {
		return err
	}
	summary := func(meta Meta) any {
		return struct {
			Meta
			Graph string                 `json:"graph"`
			Ranks int                    `json:"ranks"`
			Files []string               `json:"files"`
			Runs  []*results.PageRankRun `json:"runs"`
		}{meta, graphName, s.Ranks, files, runs}
	}
	return out.Complete(bar, text, stderr, pageRankAllreduceTable(runs), summary, graphName+", in-process ranks", "Per iteration, all ranks:")
}

// PageRankSpeedSpec is bench pagerank's settings as the command line
// gives them, each field named after its flag.
type PageRankSpeedSpec struct {
	Inputs, Scales, Ranks string // comma-separated files; scales (a list or a range); rank counts
	Iterations            int
}

// PageRankSpeedMatrix is a checked PageRankSpeedSpec.
type PageRankSpeedMatrix struct {
	Spec       PageRankSpeedSpec
	Inputs     []string
	Graphs     []PageRankSpeedGraph
	RankCounts []int
}

// Parse checks the settings; every error is a fielderr.Error of the flag
// at fault.
func (s PageRankSpeedSpec) Parse() (*PageRankSpeedMatrix, error) {
	m := &PageRankSpeedMatrix{Spec: s}
	if strings.TrimSpace(s.Inputs) != "" {
		for _, in := range strings.Split(s.Inputs, ",") {
			in = strings.TrimSpace(in)
			if _, err := os.Stat(in); err != nil {
				return nil, fielderr.Wrap("inputs", err)
			}
			m.Inputs = append(m.Inputs, in)
		}
	}
	var scales []int
	if strings.TrimSpace(s.Scales) != "" {
		var err error
		if scales, err = ParseScales(s.Scales); err != nil {
			return nil, fielderr.Wrap("scales", err)
		}
	}
	if m.Graphs = pageRankSpeedGraphs(m.Inputs, scales); len(m.Graphs) == 0 {
		return nil, fielderr.New("inputs", "no graph: give --inputs or --scales")
	}
	var err error
	if m.RankCounts, err = ParseRankCounts(s.Ranks); err != nil {
		return nil, err
	}
	if s.Iterations < 1 {
		return nil, fielderr.New("iterations", "%d is less than 1", s.Iterations)
	}
	return m, nil
}

// Key returns the marker key of the table (the inputs by their base
// names) and the command line that regenerates it.
func (m *PageRankSpeedMatrix) Key() (key, command string) {
	s := m.Spec
	var names []string
	for _, in := range m.Inputs {
		names = append(names, filepath.Base(in))
	}
	key = fmt.Sprintf("pagerank inputs=%s scales=%s ranks=%s iterations=%d", strings.Join(names, ","), s.Scales, s.Ranks, s.Iterations)
	command = fmt.Sprintf("graphrun bench pagerank --inputs %s --scales %s --ranks %s --iterations %d", strings.Join(m.Inputs, ","), s.Scales, s.Ranks, s.Iterations)
	return key, command
}

// Run makes every run of the matrix with run, records each in out, prints
// the table on text and regenerates it in out's Doc. out must be started.
func (m *PageRankSpeedMatrix) Run(run Runner, out *Output, text, stderr io.Writer) error {
	matrix := pageRankSpeedRuns(m.Graphs, m.RankCounts, m.Spec.Iterations)
	bar := progress.NewMatrix(stderr, "pagerank", len(matrix))
	var rows []PageRankSpeedRow
	var files []string
	_, err := runPageRankMatrix("pagerank", matrix, out, run, func(br PageRankBenchRun, r *results.PageRankRun) {
		rows, files = append(rows, PageRankSpeedRow{Graph: br.Graph, Run: r}), append(files, br.File)
		bar.Step(fmt.Sprintf("%s, %d ranks: %.3f ms per iteration", br.Graph, br.Ranks, r.IterationTime.Median*1e3))
	})
	if err != nil {
		return err
	}
	summary := func(meta Meta) any {
		return struct {
			Meta
			Iterations int                `json:"iterations"`
			Files      []string           `json:"files"`
			Runs       []PageRankSpeedRow `json:"runs"`
		}{meta, m.Spec.Iterations, files, rows}
	}
	return out.Complete(bar, text, stderr, pageRankSpeedTable(rows), summary, "in-process ranks, default threads (CPUs / ranks), one process per run",
		"Per iteration, the slowest rank's time; the peak is the run's process's:")
}
