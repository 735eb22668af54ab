package bench

// The PageRank benchmark matrices (graphrun bench pagerank-allreduce and
// bench pagerank): which runs they make, how a run's JSON is read back, and
// their tables. Kylix §VII compares the direct, binary and
// Kylix networks by messages, bytes and per-layer volume per iteration;
// REFERENCES.md. Each run is a PageRankBenchRun, which the caller's
// PageRankRunner makes (in this process or a child process) and whose
// JSON the matrix records.

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/graphrun/graphrun/results"
)

// PageRankGraph is the graph of a PageRank run: an edge-list file, or a
// Kronecker graph.
type PageRankGraph struct {
	Input      string // an edge-list file, ranked directed as in the file; "" for the Kronecker graph
	Scale      int    // the Kronecker graph's scale, unless Input
	Undirected bool   // the Kronecker graph made symmetric
}

// PageRankBenchRun is one run of a matrix: the PageRank job that makes it
// (its graph, in-process ranks, iterations, allreduce and JSON without
// the top vertices), the JSON file that records it, and its graph's name.
type PageRankBenchRun struct {
	Graph             PageRankGraph
	Ranks, Iterations int
	Allreduce         string // the allreduce method; "" for PageRank's default
	Degrees           string // kylix's network ("8x8"); "" for auto degrees
	NoTop             bool   // no top vertices in the JSON
	File              string
	GraphName         string
}

// pageRankAllreduceRuns is bench pagerank-allreduce: on graph, ranks
// in-process ranks, iterations iterations, PageRank with the direct,
// binary and kylix (auto degrees) allreduce, then kylix on each network
// of degrees ("8x8", ...).
func pageRankAllreduceRuns(graph PageRankGraph, ranks, iterations int, degrees []string) []PageRankBenchRun {
	type method struct{ allreduce, degrees string }
	methods := []method{{"direct", ""}, {"binary", ""}, {"kylix", ""}}
	for _, d := range degrees {
		methods = append(methods, method{"kylix", d})
	}
	var runs []PageRankBenchRun
	for i, m := range methods {
		name := m.allreduce
		if m.degrees != "" {
			name += "-" + m.degrees
		}
		runs = append(runs, PageRankBenchRun{Graph: graph, Ranks: ranks, Iterations: iterations, Allreduce: m.allreduce, Degrees: m.degrees,
			File: fmt.Sprintf("pagerank-allreduce-p%d-%02d-%s.json", ranks, i+1, name)})
	}
	return runs
}

// PageRankSpeedGraph is one graph of bench pagerank: the graph, its name in
// the table and in the JSON files' names.
type PageRankSpeedGraph struct {
	Graph      PageRankGraph
	Name, File string
}

// pageRankSpeedGraphs are bench pagerank's graphs: the edge lists of inputs,
// directed as in the files, then the symmetric Kronecker graphs of scales.
func pageRankSpeedGraphs(inputs []string, scales []int) []PageRankSpeedGraph {
	var graphs []PageRankSpeedGraph
	for _, in := range inputs {
		base := filepath.Base(in)
		graphs = append(graphs, PageRankSpeedGraph{PageRankGraph{Input: in}, base, strings.NewReplacer(".", "-").Replace(base)})
	}
	for _, s := range scales {
		graphs = append(graphs, PageRankSpeedGraph{PageRankGraph{Scale: s, Undirected: true}, fmt.Sprintf("Kronecker %d, symmetric", s), fmt.Sprintf("kron%d", s)})
	}
	return graphs
}

// pageRankSpeedRuns is bench pagerank: every graph on every in-process rank
// count, iterations iterations, no top vertices.
func pageRankSpeedRuns(graphs []PageRankSpeedGraph, ranks []int, iterations int) []PageRankBenchRun {
	var runs []PageRankBenchRun
	for _, g := range graphs {
		for _, p := range ranks {
			runs = append(runs, PageRankBenchRun{Graph: g.Graph, Ranks: p, Iterations: iterations, NoTop: true,
				File: fmt.Sprintf("pagerank-%s-p%d.json", g.File, p), GraphName: g.Name})
		}
	}
	return runs
}

// runPageRankMatrix runs a matrix: run returns one run's JSON, which is
// written as the run's File into dir; then done
// sees the run's results (a progress step). It returns every run's
// results, in order; errors name the matrix.
func runPageRankMatrix(matrix string, runs []PageRankBenchRun, dir results.FileWriter, run PageRankRunner,
	done func(br PageRankBenchRun, r *results.PageRankRun)) ([]*results.PageRankRun, error) {
	var out []*results.PageRankRun
	for _, br := range runs {
		data, err := run(br)
		if err != nil {
			return nil, err
		}
		r, err := results.ReadPageRankJSON(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("bench %s: %s: %w", matrix, br.File, err)
		}
		if _, err := dir.WriteFile(br.File, func(w io.Writer) error { _, err := w.Write(data); return err }); err != nil {
			return nil, fmt.Errorf("bench %s: %w", matrix, err)
		}
		done(br, r)
		out = append(out, r)
	}
	return out, nil
}

// pageRankAllreduceTable renders bench pagerank-allreduce's runs per iteration:
// messages (and their ratio to the first run's), bytes, per-layer bytes,
// time.
func pageRankAllreduceTable(runs []*results.PageRankRun) string {
	var b strings.Builder
	b.WriteString("| allreduce | messages | × first | bytes | × first | per-layer bytes (layer 1 → last) | compute s | communication s |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|\n")
	var baseMsgs, baseBytes float64
	ratio := func(v, base float64) string {
		if base > 0 {
			return fmt.Sprintf("%.3f", v/base)
		}
		return "—"
	}
	for i, r := range runs {
		it := float64(max(1, r.Iterations))
		msgs, bytes := float64(r.CommMessages)/it, float64(r.CommBytes)/it
		if i == 0 {
			baseMsgs, baseBytes = msgs, bytes
		}
		var layers []string
		for _, l := range r.LayerVolumes() {
			layers = append(layers, fmt.Sprintf("%.2f MB", l.Bytes/1e6))
		}
		fmt.Fprintf(&b, "| %s | %.0f | %s | %.2f MB | %s | %s | %.4f | %.4f |\n", r.Allreduce, msgs, ratio(msgs, baseMsgs), bytes/1e6, ratio(bytes, baseBytes),
			strings.Join(layers, ", "), r.TimePerIteration.Compute, r.TimePerIteration.Communication)
	}
	return b.String()
}

// PageRankSpeedRow is one run of bench pagerank, as its summary.json lists it.
type PageRankSpeedRow struct {
	Graph string               `json:"graph"`
	Run   *results.PageRankRun `json:"run"`
}

// pageRankSpeedTable renders bench pagerank: per graph and rank count, the median
// and fastest iteration (the slowest rank's), its ratio to the graph's
// first row, the set-up and the peak memory.
func pageRankSpeedTable(rows []PageRankSpeedRow) string {
	var b strings.Builder
	b.WriteString("| graph | edges | ranks × threads | iteration, median | fastest | × first row | set-up | peak memory |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|\n")
	var first float64
	for i, row := range rows {
		r := row.Run
		med := r.IterationTime.Median
		if i == 0 || row.Graph != rows[i-1].Graph {
			first = med
		}
		ratio := "—"
		if first > 0 {
			ratio = fmt.Sprintf("%.2f", med/first)
		}
		fmt.Fprintf(&b, "| %s | %d | %d × %d | %.3f ms | %.3f ms | %s | %.2f s | %.0f MB |\n", row.Graph, r.Edges, r.NumRanks, r.Threads,
			med*1e3, r.IterationTime.Min*1e3, ratio, r.Setup.Total, float64(r.PeakMemoryBytes)/1e6)
	}
	return b.String()
}
