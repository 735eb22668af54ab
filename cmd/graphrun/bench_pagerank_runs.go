package main

// The command lines of the PageRank matrices (bench pagerank-allreduce and
// bench pagerank): the pagerank command line of each run the bench
// package asks for, run in this process or as a child process, and the
// key and command line that regenerate each table.

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/graphrun/graphrun/bench"
)

// pageRankArgs is the pagerank command line below graphrun that makes run,
// its JSON on standard output: the graph (FILE, or --kron S with
// --undirected), --ranks, --allreduce, --iterations, --top 0 without top
// vertices, --json - and kylix's --degrees.
func pageRankArgs(run bench.PageRankBenchRun) []string {
	args := []string{"pagerank"}
	if g := run.Graph; g.Input != "" {
		args = append(args, g.Input)
	} else {
		args = append(args, "--kron", fmt.Sprint(g.Scale))
		if g.Undirected {
			args = append(args, "--undirected")
		}
	}
	args = append(args, "--ranks", fmt.Sprint(run.Ranks))
	if run.Allreduce != "" {
		args = append(args, "--allreduce", run.Allreduce)
	}
	args = append(args, "--iterations", fmt.Sprint(run.Iterations))
	if run.NoTop {
		args = append(args, "--top", "0")
	}
	args = append(args, "--json", "-")
	if run.Degrees != "" {
		args = append(args, "--degrees", run.Degrees)
	}
	return args
}

// inProcessPageRank makes each run of a matrix as graphrun pagerank in
// this process; its errors name the matrix and carry pagerank's standard
// error.
func inProcessPageRank(ctx context.Context, matrix string) bench.PageRankRunner {
	return func(run bench.PageRankBenchRun) ([]byte, error) {
		args := pageRankArgs(run)
		var data, errOut bytes.Buffer
		if code := runContext(ctx, args, &data, &errOut); code != 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			return nil, fmt.Errorf("bench %s: graphrun %s: exit %d: %s", matrix, strings.Join(args, " "), code, strings.TrimSpace(errOut.String()))
		}
		return data.Bytes(), nil
	}
}

// childPageRank makes each run of a matrix as graphrun pagerank in a child
// process of the graphrun binary self, so that its peak memory is its
// own; its errors name the matrix and carry the child's standard error.
func childPageRank(ctx context.Context, self, matrix string) bench.PageRankRunner {
	return func(run bench.PageRankBenchRun) ([]byte, error) {
		args := pageRankArgs(run)
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

// pageRankAllreduceKey returns the key of m (summary.json) and the
// command line that regenerates it: the graph (--scale, or --input by its
// base name), ranks, iterations and the networks of --degrees.
func pageRankAllreduceKey(m *bench.PageRankAllreduceMatrix) (key, command string) {
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

// pageRankSpeedKey returns the key of m (summary.json; the inputs by
// their base names) and the command line that regenerates its table.
func pageRankSpeedKey(m *bench.PageRankSpeedMatrix) (key, command string) {
	s := m.Spec
	var names []string
	for _, in := range m.Inputs {
		names = append(names, filepath.Base(in))
	}
	ranks := slices.Max(m.RankCounts)
	key = fmt.Sprintf("pagerank inputs=%s scales=%s ranks=%d iterations=%d", strings.Join(names, ","), s.Scales, ranks, s.Iterations)
	command = fmt.Sprintf("graphrun bench pagerank --inputs %s --scales %s --ranks %d --iterations %d", strings.Join(m.Inputs, ","), s.Scales, ranks, s.Iterations)
	return key, command
}
