package spmv

// Elastic PageRank (paper 002 §II, §V) over loopback TCP: a rank lost
// mid-run is recovered from and the result matches the fault-free run's
// within the tolerance; losing rank 0 or two ranks fails in bounded time.

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"math"
	mrand "math/rand/v2"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/tcp"
	"github.com/graphrun/graphrun/graph"
)

// dyingComm is a rank that dies (closes its Comm) at its die-th collective.
type dyingComm struct {
	*tcp.Comm
	calls, die int
}

var errInjected = errors.New("injected loss of this rank")

func (d *dyingComm) tick() error {
	d.calls++
	if d.die > 0 && d.calls == d.die {
		_ = d.Comm.Close()
		return errInjected
	}
	return nil
}

func (d *dyingComm) Alltoallv(ctx context.Context, phase string, send, recv [][]byte) ([][]byte, error) {
	if err := d.tick(); err != nil {
		return nil, err
	}
	return d.Comm.Alltoallv(ctx, phase, send, recv)
}

func (d *dyingComm) Allgatherv(ctx context.Context, phase string, mine []byte, recv [][]byte) ([][]byte, error) {
	if err := d.tick(); err != nil {
		return nil, err
	}
	return d.Comm.Allgatherv(ctx, phase, mine, recv)
}

func (d *dyingComm) AllreduceInt64(ctx context.Context, phase string, vals []int64, op comm.Op) error {
	if err := d.tick(); err != nil {
		return err
	}
	return d.Comm.AllreduceInt64(ctx, phase, vals, op)
}

func (d *dyingComm) AllreduceFloat64(ctx context.Context, phase string, vals []float64, op comm.Op) error {
	if err := d.tick(); err != nil {
		return err
	}
	return d.Comm.AllreduceFloat64(ctx, phase, vals, op)
}

// elasticJob runs elastic PageRank on p loopback TCP ranks; rank r dies at
// its die[r]-th collective (0: never). It returns rank 0's scores by
// original id and top k, and every rank's error.
func elasticJob(t *testing.T, p int, edges []graph.Edge, cfg PageRankConfig, k int, die map[int]int) (map[int64]float64, []VertexScore, []error, []Recovery) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	token := make([]byte, 32)
	_, _ = rand.Read(token)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var (
		mu     sync.Mutex
		scores = map[int64]float64{}
		top    []VertexScore
		recs   []Recovery
		loads  atomic.Int64
	)
	errs := make([]error, p)
	var wg sync.WaitGroup
	for r := range p {
		wg.Go(func() {
			errs[r] = func() error {
				tc, err := tcp.Connect(ctx, tcp.Config{Rank: r, Size: p, Coordinator: addr, Token: token, JobID: "elastic-test", PeerTimeout: 2 * time.Second})
				if err != nil {
					return err
				}
				defer tc.Close()
				var c comm.Comm = &dyingComm{Comm: tc, die: die[r]}
				el := Elastic{
					Load: func(_ context.Context, rank, size int) ([]graph.Edge, error) {
						loads.Add(1)
						return edges[len(edges)*rank/size : len(edges)*(rank+1)/size], nil
					},
					Shrink: func(ctx context.Context, c comm.Comm, cause error, epoch int) (comm.Comm, error) {
						var tc *tcp.Comm
						switch c := c.(type) {
						case *dyingComm:
							if c.die > 0 && c.calls >= c.die {
								return nil, fmt.Errorf("rank %d is the lost one: %w", c.Rank(), cause)
							}
							tc = c.Comm
						case *tcp.Comm:
							tc = c
						}
						return tc.Shrink(ctx, cause, epoch)
					},
				}
				res, err := PageRankElastic(ctx, c, cfg, el)
				if err != nil {
					return err
				}
				if res.Comm != c {
					defer res.Comm.(*tcp.Comm).Close()
				}
				tk, err := res.TopK(ctx, res.Comm, k)
				if err != nil {
					return err
				}
				mu.Lock()
				defer mu.Unlock()
				for l, s := range res.Scores {
					scores[res.Original[l]] = s
				}
				if res.Comm.Rank() == 0 && r == 0 {
					top, recs = tk, res.Recoveries
				}
				return nil
			}()
		})
	}
	wg.Wait()
	return scores, top, errs, recs
}

func elasticTestGraph() []graph.Edge {
	rng := mrand.New(mrand.NewPCG(6, 2))
	const n, m = 3000, 40000
	edges := make([]graph.Edge, m)
	for i := range edges {
		u := int64(rng.IntN(n))
		v := int64(float64(n) * math.Pow(rng.Float64(), 3)) // skewed in-degrees
		edges[i] = graph.Edge{U: u, V: v}
	}
	return edges
}

func TestPageRankElasticLosesOneRank(t *testing.T) {
	edges := elasticTestGraph()
	cfg := DefaultPageRankConfig()
	cfg.Tol = 1e-12
	const k = 20
	_, want, wantTop := runPageRank(t, 4, edges, cfg, k)
	// Rank 2 dies at its 40th collective: well inside the iterations.
	got, top, errs, recs := elasticJob(t, 4, edges, cfg, k, map[int]int{2: 40})
	for r, err := range errs {
		if r == 2 {
			if err == nil {
				t.Errorf("the lost rank finished")
			}
			continue
		}
		if err != nil {
			t.Fatalf("rank %d: %v", r, err)
		}
	}
	if len(recs) != 1 || recs[0].Ranks != 3 || recs[0].Iteration < 1 {
		t.Fatalf("recoveries %+v, want one to 3 ranks inside the iterations", recs)
	}
	t.Logf("recovered at iteration %d in %v", recs[0].Iteration, recs[0].Took)
	if len(got) != len(want) {
		t.Fatalf("%d scores, want %d", len(got), len(want))
	}
	var l1 float64
	for v, w := range want {
		l1 += math.Abs(got[v] - w)
	}
	if l1 > 100*cfg.Tol {
		t.Errorf("L1 distance to the fault-free vector %g, want ≤ %g", l1, 100*cfg.Tol)
	}
	for i := range wantTop {
		if top[i].ID != wantTop[i].ID || math.Abs(top[i].Score-wantTop[i].Score) > 1e-9*wantTop[i].Score {
			t.Errorf("top %d: %+v, want %+v", i+1, top[i], wantTop[i])
		}
	}
}

func TestPageRankElasticUnrecoverable(t *testing.T) {
	edges := elasticTestGraph()
	cfg := DefaultPageRankConfig()
	for _, tc := range []struct {
		name string
		die  map[int]int
		want string
	}{
		{"rank 0", map[int]int{0: 40}, "rank 0, the coordinator, was lost"},
		{"two ranks", map[int]int{2: 40, 3: 40}, "recovering from the loss of rank"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			_, _, errs, _ := elasticJob(t, 4, edges, cfg, 5, tc.die)
			for r, err := range errs {
				if tc.die[r] > 0 {
					continue
				}
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("rank %d: %v, want an error containing %q", r, err, tc.want)
				}
			}
			if d := time.Since(start); d > 20*time.Second {
				t.Errorf("the survivors took %v to fail", d)
			}
		})
	}
}
