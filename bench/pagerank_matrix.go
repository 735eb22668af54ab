package bench

// bench pagerank-allreduce (Kylix §VII's comparison of the direct,
// binary and Kylix networks; REFERENCES.md) and bench pagerank (time per
// iteration) as a whole: their settings checked, every run made by the
// caller's PageRankRunner and its JSON recorded (runPageRankMatrix),
// summary.json and the tables. The keys and the command lines are the
// caller's.

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/graphrun/graphrun/allreduce"
	"github.com/graphrun/graphrun/comm/launch"
	"github.com/graphrun/graphrun/internal/fielderr"
	"github.com/graphrun/graphrun/internal/progress"
	"github.com/graphrun/graphrun/results"
)

// PageRankRunner makes one run of a PageRank matrix as the caller does
// PageRank (in this process or in a child process) and returns the run's
// JSON, as results.ReadPageRankJSON reads it.
type PageRankRunner func(run PageRankBenchRun) ([]byte, error)

// PageRankAllreduceSpec configures bench pagerank-allreduce, checked by
// Parse, whose errors name the field at fault.
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

// Parse checks the settings; every error is a fielderr.Error naming the
// field at fault.
func (s PageRankAllreduceSpec) Parse() (*PageRankAllreduceMatrix, error) {
	if err := launch.CheckRanks(s.Ranks); err != nil {
		return nil, err
	}
	switch {
	case s.Iterations < 1:
		return nil, fielderr.New("Iterations", "%d is less than 1", s.Iterations)
	case s.Input == "" && (s.Scale < 1 || s.Scale > MaxMatrixScale):
		return nil, fielderr.New("Scale", "%d is outside 1..%d", s.Scale, MaxMatrixScale)
	}
	if s.Input != "" {
		if _, err := os.Stat(s.Input); err != nil {
			return nil, fielderr.Wrap("Input", err)
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
			return nil, fielderr.Wrap("Degrees", err)
		}
		if deg == nil {
			return nil, fielderr.New("Degrees", "%q: the matrix always runs kylix with auto degrees; list explicit networks such as 8x8", d)
		}
		m.Degrees = append(m.Degrees, allreduce.FormatDegrees(deg))
	}
	return m, nil
}

// Run makes every run of the matrix with run, records each in out, prints
// the table on text. out must be started.
func (m *PageRankAllreduceMatrix) Run(run PageRankRunner, out *Output, text, stderr io.Writer) error {
	s := m.Spec
	graph, graphName := PageRankGraph{Scale: s.Scale}, fmt.Sprintf("Kronecker scale %d", s.Scale)
	if s.Input != "" {
		graph, graphName = PageRankGraph{Input: s.Input}, filepath.Base(s.Input)
	}
	matrix := pageRankAllreduceRuns(graph, s.Ranks, s.Iterations, m.Degrees)
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
	return out.Complete(bar, text, pageRankAllreduceTable(runs), "Per iteration, all ranks; "+graphName+", in-process ranks.", summary)
}

// PageRankSpeedSpec configures bench pagerank: lists as text, checked by
// Parse, whose errors name the field at fault.
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

// Parse checks the settings; every error is a fielderr.Error naming the
// field at fault.
func (s PageRankSpeedSpec) Parse() (*PageRankSpeedMatrix, error) {
	m := &PageRankSpeedMatrix{Spec: s}
	if strings.TrimSpace(s.Inputs) != "" {
		for _, in := range strings.Split(s.Inputs, ",") {
			in = strings.TrimSpace(in)
			if _, err := os.Stat(in); err != nil {
				return nil, fielderr.Wrap("Inputs", err)
			}
			m.Inputs = append(m.Inputs, in)
		}
	}
	var scales []int
	if strings.TrimSpace(s.Scales) != "" {
		var err error
		if scales, err = ParseScales(s.Scales); err != nil {
			return nil, fielderr.Wrap("Scales", err)
		}
	}
	if m.Graphs = pageRankSpeedGraphs(m.Inputs, scales); len(m.Graphs) == 0 {
		return nil, fielderr.New("Inputs", "no graph: no edge-list files and no Kronecker scales")
	}
	var err error
	if m.RankCounts, err = ParseRankCounts(s.Ranks); err != nil {
		return nil, err
	}
	if s.Iterations < 1 {
		return nil, fielderr.New("Iterations", "%d is less than 1", s.Iterations)
	}
	return m, nil
}

// Run makes every run of the matrix with run, records each in out, prints
// the table on text. out must be started.
func (m *PageRankSpeedMatrix) Run(run PageRankRunner, out *Output, text, stderr io.Writer) error {
	matrix := pageRankSpeedRuns(m.Graphs, m.RankCounts, m.Spec.Iterations)
	bar := progress.NewMatrix(stderr, "pagerank", len(matrix))
	var rows []PageRankSpeedRow
	var files []string
	_, err := runPageRankMatrix("pagerank", matrix, out, run, func(br PageRankBenchRun, r *results.PageRankRun) {
		rows, files = append(rows, PageRankSpeedRow{Graph: br.GraphName, Run: r}), append(files, br.File)
		bar.Step(fmt.Sprintf("%s, %d ranks: %.3f ms per iteration", br.GraphName, br.Ranks, r.IterationTime.Median*1e3))
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
	return out.Complete(bar, text, pageRankSpeedTable(rows),
		"Per iteration, the slowest rank's time; the peak is the run's process's. In-process ranks, default threads, one process per run.", summary)
}
