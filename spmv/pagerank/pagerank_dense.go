// This file is PageRank's dense mode (Config.Allreduce =
// AllreduceDense): the same matrix and semantics as the sparse modes, but
// every iteration reduces the whole vector of partial sums with the chunked
// hypercube allreduce of Zhang and Qiu §IV-E (reduce-scatter then
// allgather) instead of Kylix's sparse allreduce.
//
// Each rank scatters its local sums y (over its out-set) into a zeroed
// vector of all n vertices and the allreduce sums the ranks' vectors. The
// chunked algorithm gives every rank the same bits, so every rank then
// computes the update r'_v = (1−α)/n + α·(Σ + D/n) for all n vertices,
// and the L1 change, dangling mass and total rank, redundantly and
// identically: no scalar collective, no gather of the scores at the end (a
// rank's block is a slice of its copy). The out-degrees come from one
// dense allreduce of the ranks' local out-degrees at the start.
//
// Cost: 2·(p−1)/p·8n bytes sent per rank and iteration and O(n) local work
// per rank, whatever the graph — against Kylix, which moves only the
// entries some rank contributes or needs. It pays on graphs whose ranks'
// in- and out-sets cover most vertices (small, dense or many-edge graphs
// spread over few ranks) and needs n floats (three vectors) per rank.

package pagerank

import (
	"context"
	"fmt"
	"time"

	"github.com/graphrun/graphrun/allreduce"
	"github.com/graphrun/graphrun/allreduce/hypercube"
	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/graph"
)

// PhaseDense is the phase prefix of the dense mode's allreduce
// ("pagerank.dense.chunked.rs.0", …, and "pagerank.dense.check").
const PhaseDense = "pagerank.dense"

// prDense is one rank's dense-mode PageRank between iterations.
type prDense struct {
	a    *prMatrix
	d    *hypercube.Dense[float64]
	x    []float64 // r_u/d(u) over the in-set, by slot (what pull reads)
	y    []float64 // the local sums over the out-set, by column position
	deg  []float64 // out-degree of every vertex
	r    []float64 // rank of every vertex
	sums []float64 // every vertex's sum, the allreduce vector
	up   prUpdate  // the update of every vertex (cur is r, deg is deg)

	scalars []float64 // L1 change, dangling mass and Σ r of the update

	alpha, nf       float64
	danglingMass    float64 // D of the last iteration
	residual, total float64 // L1 change and Σ r of the last iteration
}

// pageRankDense is PageRank in the dense mode.
func pageRankDense(ctx context.Context, c comm.Comm, share graph.EdgeShare, cfg Config) (*Result, error) {
	started := time.Now()
	a, res, err := prepareMatrix(ctx, c, share, cfg)
	if err != nil || a == nil {
		return res, err
	}
	a.arrange()
	configStarted := time.Now()
	d, err := hypercube.New[float64](ctx, c, hypercube.AlgChunked,
		hypercube.Options{Phase: PhaseDense, Workers: cfg.Threads})
	if err != nil {
		return nil, fmt.Errorf("pagerank: %w", err)
	}
	res.Configuration = time.Since(configStarted)
	n := res.NumVertices
	s := &prDense{
		a: a, d: d, x: make([]float64, len(a.in)), y: make([]float64, len(a.out)),
		deg: make([]float64, n), r: make([]float64, n), sums: make([]float64, n),
		alpha: cfg.Alpha, nf: float64(n), scalars: make([]float64, numPRScalars),
	}
	s.up = prUpdate{alpha: cfg.Alpha, cur: s.r, deg: s.deg, threads: cfg.Threads, scalars: s.scalars}
	for l, u := range a.in {
		s.deg[u] = a.localDeg[l]
	}
	a.localDeg = nil // not needed by the iterations
	if err := d.Allreduce(ctx, s.deg, hypercube.Sum[float64]); err != nil {
		return nil, fmt.Errorf("pagerank: out-degrees: %w", err)
	}
	if a.vecs != (prVectors{}) {
		all := forVertices(n)
		a.vecs.start.at(all, s.r, n)
		s.up.pers, s.up.dang = a.vecs.teleport(all, n)
		a.vecs = prVectors{}
	} else {
		for v := range s.r {
			s.r[v] = 1 / s.nf
		}
	}
	for v := range s.r {
		if s.deg[v] == 0 {
			s.danglingMass += s.r[v]
		}
	}
	s.setX()
	res.Network = fmt.Sprintf("%s %s", AllreduceDense, d)
	phases := d.Phases()
	res.Layers = len(phases) / 2
	res.Total = 1
	res.Setup = time.Since(started)
	if err := setupDone(ctx, c, cfg); err != nil {
		return nil, err
	}
	before, after, err := iterateCounted(ctx, c, cfg, res, func(ctx context.Context) (time.Duration, error) {
		compute, err := s.step(ctx)
		res.Residual, res.Total, res.GatheredColumns = s.residual, s.total, s.a.gathered()
		return compute, err
	})
	if err != nil {
		return nil, err
	}
	// Layer i of the report is dimension i of the hypercube: its
	// reduce-scatter round as the down pass, its allgather round as up.
	for i := range res.Layers {
		down, up := phases[i], phases[len(phases)-1-i]
		res.LayerVolume = append(res.LayerVolume, allreduce.LayerVolume{
			Layer: i + 1,
			Down:  after[down].Sub(before[down]),
			Up:    after[up].Sub(before[up]),
		})
	}
	first, cnt := res.Part.First(c.Rank()), int64(res.Part.Count(c.Rank()))
	res.Scores = append([]float64(nil), s.r[first:first+cnt]...)
	return res, nil
}

// setX sets x_u = r_u/d(u) for the in-set (sources: d(u) ≥ 1), by slot.
func (s *prDense) setX() {
	for l, u := range s.a.in {
		s.x[s.a.slot[l]] = s.r[u] / s.deg[u]
	}
}

// step runs one iteration: the local SpMV, the dense allreduce of the sums,
// the update of every vertex. It returns the time of the local work.
func (s *prDense) step(ctx context.Context) (time.Duration, error) {
	t0 := time.Now()
	s.a.pull(s.x, s.y)
	clear(s.sums)
	for p, j := range s.a.order {
		s.sums[s.a.out[j]] = s.y[p]
	}
	local := time.Since(t0)
	if err := s.d.Allreduce(ctx, s.sums, hypercube.Sum[float64]); err != nil {
		return 0, err
	}
	t1 := time.Now()
	// Every vertex's update on the threads (pagerank_update.go): sums
	// becomes r'/d, and the in-set's x is read from it.
	s.up.base = (1-s.alpha)/s.nf + s.alpha*s.danglingMass/s.nf
	s.up.c1, s.up.c2 = 1-s.alpha, s.alpha*s.danglingMass
	s.up.apply(nil, s.sums)
	for l, u := range s.a.in {
		s.x[s.a.slot[l]] = s.sums[u]
	}
	s.danglingMass, s.residual, s.total = s.scalars[prDangling], s.scalars[prL1], s.scalars[prTotal]
	return local + time.Since(t1), nil
}
