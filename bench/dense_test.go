package bench

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/graphrun/graphrun/allreduce/hypercube"
	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/inproc"
)

// runDense measures sizes on p in-process ranks and returns rank 0's rows.
func runDense(t testing.TB, p int, sizes []int, cfg DenseConfig) []DenseRow {
	var rows []DenseRow
	err := inproc.Run(context.Background(), p, func(ctx context.Context, c comm.Comm) error {
		r, err := MeasureDense(ctx, c, sizes, cfg, false, nil)
		if c.Rank() == 0 {
			rows = r
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestMeasureDenseVolumes: tree and chunked send 2(p−1) vectors' worth in
// all, and a modelled link makes a call last at least its latency.
func TestMeasureDenseVolumes(t *testing.T) {
	cfg := DenseConfig{Algorithms: []hypercube.Algorithm{hypercube.AlgTree, hypercube.AlgChunked}, Repeat: 2, Stat: "median",
		Options: hypercube.Options{Phase: "test.dense", Workers: 1, Pieces: 1}, Bandwidth: 1e12, Latency: 3 * time.Millisecond}
	const p, n = 4, 1000
	rows := runDense(t, p, []int{n}, cfg)
	if len(rows) != 1 || rows[0].Ranks != p || rows[0].N != n {
		t.Fatalf("rows %+v", rows)
	}
	r := rows[0]
	for a := range cfg.Algorithms {
		if r.Bytes[a] != 2*(p-1)*8*n || len(r.Samples[a]) != 2 {
			t.Errorf("%s: %d bytes, %d samples; want %d bytes, 2 samples", cfg.Algorithms[a], r.Bytes[a], len(r.Samples[a]), 2*(p-1)*8*n)
		}
		if r.Seconds[a] < (3 * time.Millisecond).Seconds() {
			t.Errorf("%s took %v s under a 3 ms modelled latency", cfg.Algorithms[a], r.Seconds[a])
		}
	}
	if _, ok := cfg.TreeOverChunked(r); !ok {
		t.Error("no tree ÷ chunked ratio with both algorithms")
	}
	var b bytes.Buffer
	if err := WriteDenseTable(&b, "4 in-process ranks", cfg, rows); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); !strings.Contains(out, "modelled link 1000G B/s per rank, latency 3ms") ||
		!strings.Contains(out, "| ranks | elements | tree | hypercube-chunked | tree ÷ chunked | link model | MB sent per call |\n") ||
		!strings.Contains(out, "| 4 | 10^3 |") {
		t.Errorf("table:\n%s", out)
	}
	if got := DenseTimings(cfg, rows); len(got) != 2 || got[1].Method != "hypercube-chunked, 4 ranks" || got[1].Length != n {
		t.Errorf("timings %+v", got)
	}
}

func BenchmarkDenseChunked1e5(b *testing.B) {
	cfg := DenseConfig{Algorithms: []hypercube.Algorithm{hypercube.AlgChunked}, Repeat: b.N, Stat: "median",
		Options: hypercube.Options{Phase: "bench.dense", Workers: 1, Pieces: 1}}
	runDense(b, 4, []int{100000}, cfg)
}

// TestMeasureDenseTasks: with tasks the rows come from shared variables
// (MeasureDense checks every task's sum), and the allreduce across ranks
// moves at least the vector's reduce-scatter and allgather.
func TestMeasureDenseTasks(t *testing.T) {
	cfg := DenseConfig{Algorithms: []hypercube.Algorithm{hypercube.AlgChunked, hypercube.AlgTree}, Repeat: 2, Stat: "median", Tasks: 3,
		Options: hypercube.Options{Phase: "test.dense", Workers: 2, Pieces: 1}}
	const p, n = 4, 1000
	rows := runDense(t, p, []int{n}, cfg)
	if len(rows) != 1 || len(rows[0].Samples[0]) != 2 {
		t.Fatalf("rows %+v", rows)
	}
	for a, b := range rows[0].Bytes {
		if b < 2*(p-1)*8*n {
			t.Errorf("%s: %d bytes sent, want at least %d", cfg.Algorithms[a], b, 2*(p-1)*8*n)
		}
	}
}
