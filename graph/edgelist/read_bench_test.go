// Benchmarks of the real-edge-list readers (read.go) used for the PageRank
// runs of Kylix §VII: parse throughput in MB/s on a synthetic 50 MB
// SNAP-style file, whole and split between ranks, the wall time of reading
// the shared soc-Slashdot0902.txt.gz, and Relabel on it.
//
// The machines are shared, so next to wall time (ns/op, MB/s) the read
// benchmarks report the process CPU time per operation (cpu-ms/op) and the
// throughput per CPU second (MB/cpu-s), which other loads disturb less.

package edgelist

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/graphrun/graphrun/graph"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/inproc"
	"github.com/graphrun/graphrun/internal/cpustat"
	"github.com/graphrun/graphrun/internal/testgraph"
)

// synthSNAP writes a SNAP-style file of about size bytes: a '#' header,
// then "u\tv\r\n" lines with sparse ids of up to 10 digits.
func synthSNAP(b *testing.B, size int) (string, int) {
	b.Helper()
	rng := rand.New(rand.NewPCG(7, 8))
	buf := make([]byte, 0, size+64)
	buf = append(buf, "# Directed graph: synthetic\r\n# Nodes: ? Edges: ?\r\n# FromNodeId\tToNodeId\r\n"...)
	m := 0
	for len(buf) < size {
		buf = fmt.Appendf(buf, "%d\t%d\r\n", rng.Int64N(1<<uint(10+rng.IntN(24))), rng.Int64N(1<<30))
		m++
	}
	path := filepath.Join(b.TempDir(), "synthetic.txt")
	if err := os.WriteFile(path, buf, 0o644); err != nil {
		b.Fatal(err)
	}
	return path, m
}

// cpuTime returns the CPU time (user and system) used by the process.
func cpuTime(b *testing.B) time.Duration {
	t, err := cpustat.Process()
	if err != nil {
		b.Fatal(err)
	}
	return t
}

// measureCPU runs the benchmark loop body op and reports its CPU time per
// operation, and bytes per CPU second when bytes > 0.
func measureCPU(b *testing.B, bytes int64, op func()) {
	b.SetBytes(bytes)
	start := cpuTime(b)
	n := 0
	for b.Loop() {
		op()
		n++
	}
	cpu := cpuTime(b) - start
	b.ReportMetric(float64(cpu.Milliseconds())/float64(n), "cpu-ms/op")
	if bytes > 0 && cpu > 0 {
		b.ReportMetric(float64(bytes)*float64(n)/cpu.Seconds()/1e6, "MB/cpu-s")
	}
}

func BenchmarkReadEdgesSNAP(b *testing.B) {
	path, m := synthSNAP(b, 50<<20)
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("whole", func(b *testing.B) {
		measureCPU(b, st.Size(), func() {
			ef, err := ReadEdges(path, "")
			if err != nil || len(ef.Edges) != m {
				b.Fatalf("%d edges, %v; want %d", len(ef.Edges), err, m)
			}
		})
	})
	for _, ranks := range []int{2, 4} {
		b.Run(fmt.Sprintf("ranks=%d", ranks), func(b *testing.B) {
			measureCPU(b, st.Size(), func() {
				var wg sync.WaitGroup
				errs := make([]error, ranks)
				for r := range ranks {
					wg.Go(func() { _, errs[r] = ReadEdgesRange(path, "", r, ranks) })
				}
				wg.Wait()
				for _, err := range errs {
					if err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}

func BenchmarkReadSlashdotGz(b *testing.B) {
	path := testgraph.RealFile(b, "soc-Slashdot0902.txt.gz")
	measureCPU(b, 0, func() {
		ef, err := ReadEdges(path, "")
		if err != nil || len(ef.Edges) != 948464 {
			b.Fatalf("%v", err)
		}
	})
}

func BenchmarkReadLuxembourgMTX(b *testing.B) {
	path := testgraph.RealFile(b, "road-luxembourg-osm.mtx")
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	measureCPU(b, st.Size(), func() {
		if _, err := ReadEdges(path, ""); err != nil {
			b.Fatal(err)
		}
	})
}

func BenchmarkRelabelSlashdot(b *testing.B) {
	ef, err := ReadEdges(testgraph.RealFile(b, "soc-Slashdot0902.txt.gz"), "")
	if err != nil {
		b.Fatal(err)
	}
	for _, p := range []int{1, 2} {
		b.Run(fmt.Sprintf("ranks=%d", p), func(b *testing.B) {
			measureCPU(b, 0, func() {
				err := inproc.Run(context.Background(), p, func(ctx context.Context, c comm.Comm) error {
					m := int64(len(ef.Edges))
					lo, hi := graph.ShareStart(m, c.Rank(), p), graph.ShareStart(m, c.Rank()+1, p)
					_, _, _, err := graph.Relabel(ctx, c, ef.Edges[lo:hi])
					return err
				})
				if err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}

// BenchmarkParseSNAP measures the parser alone on a synthetic 8 MB SNAP
// text held in memory (no file system, no gzip).
func BenchmarkParseSNAP(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 8))
	var data []byte
	for len(data) < 8<<20 {
		data = fmt.Appendf(data, "%d\t%d\r\n", rng.Int64N(1<<uint(10+rng.IntN(24))), rng.Int64N(1<<30))
	}
	measureCPU(b, int64(len(data)), func() {
		if _, err := memSource("bench", data, EdgeFormatSNAP, false, edgeReadBufSize).read(0, 1); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkScanShare measures the streamed parse that bfs FILE and
// pagerank FILE run (a FileShare scanned, its edges dropped), on one rank
// and on two ranks at once, beside the floor of reading the same file and
// counting its newlines (what wc -l does). The file is
// $GRAPHRUN_BENCH_EDGES, or a synthetic 50 MB .el of scale-22 ids:
//
//	GRAPHRUN_BENCH_EDGES=k20.el go test -run - -bench ScanShare ./graph/edgelist
func BenchmarkScanShare(b *testing.B) {
	path := os.Getenv("GRAPHRUN_BENCH_EDGES")
	if path == "" {
		rng := rand.New(rand.NewPCG(9, 10))
		var data []byte
		for len(data) < 50<<20 {
			data = fmt.Appendf(data, "%d %d\n", rng.Int64N(1<<22), rng.Int64N(1<<22))
		}
		path = filepath.Join(b.TempDir(), "synth.el")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("newlines", func(b *testing.B) {
		buf := make([]byte, 1<<20)
		measureCPU(b, st.Size(), func() {
			f, err := os.Open(path)
			if err != nil {
				b.Fatal(err)
			}
			defer f.Close()
			lines := 0
			for {
				n, err := f.Read(buf)
				lines += bytes.Count(buf[:n], []byte{'\n'})
				if err != nil {
					break
				}
			}
			if lines == 0 {
				b.Fatal("no lines")
			}
		})
	})
	for _, ranks := range []int{1, 2} {
		b.Run(fmt.Sprintf("ranks=%d", ranks), func(b *testing.B) {
			measureCPU(b, st.Size(), func() {
				var wg sync.WaitGroup
				errs := make([]error, ranks)
				for r := range ranks {
					wg.Go(func() {
						fs, err := NewFileShare(path, "", r, ranks)
						if err == nil {
							err = fs.Scan(context.Background(), func([]graph.Edge) error { return nil })
						}
						errs[r] = err
					})
				}
				wg.Wait()
				for _, err := range errs {
					if err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}
