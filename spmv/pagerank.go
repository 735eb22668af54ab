// This file is distributed PageRank over the sparse allreduce, as in paper
// 000 (Zhao and Canny, "Kylix: A Sparse Allreduce for Commodity Clusters")
// §VII: the edges (non-zeros of the adjacency matrix) are spread over the
// ranks by the random edge partition of §II-B (or, for comparison, by the
// block of their source vertex); each iteration is a local sparse
// matrix-vector product followed by one sparse allreduce (allreduce.Sparse)
// whose home ranks compute the PageRank update in place.
//
// # Semantics
//
// They are NetworkX's pagerank: edges are directed, duplicate edges collapse,
// self-loops stay, the vertices are the ids that occur in an edge; with
// damping α, n vertices and out-degrees d(u),
//
//	r'_v = (1−α)/n + α·(Σ_{(u,v)} r_u/d(u) + D/n),   D = Σ_{d(u)=0} r_u,
//
// starting from r = 1/n, so the scores always sum to 1. The iteration stops
// when the L1 change Σ|r' − r| falls below Tol, or after MaxIter iterations
// (Converged is then false), or runs exactly Iterations iterations.
//
// # Distribution
//
// Every rank reads a share of the edges; graph.Relabel gives the vertices
// dense ids 0..n−1 in increasing original-id order (the same for any rank
// count); one Alltoallv ("pagerank.route") moves each edge to its partition
// owner, which sorts its edges and drops duplicates (all copies of an edge
// meet there). A rank's in-set is the distinct sources of its edges (it
// needs their ranks), its out-set the distinct destinations (it contributes
// partial sums for them) plus every vertex of its partition.Block1D range,
// contributed with value 0: this way every vertex 0..n−1 is in some out-set
// and so has a home in the allreduce, even one that is no edge's destination
// (its rank is (1−α)/n + α·D/n), and each home can keep the current rank of
// all the vertices it homes.
//
// Out-degrees come from one sparse allreduce of kind direct (each rank
// contributes 1 per local edge at its source; its in-set is its sources);
// its apply callback records at each home the out-degree of the vertices it
// homes. Homes depend only on the index (package allreduce), so the homes of
// the degree reduce and of the PageRank reduce agree; a vertex missing from
// the degree reduce's home list has out-degree 0, i.e. is dangling.
//
// One iteration: x_u = r_u/d(u) over the in-set; y_v = Σ_{(u,v) local} x_u
// over the out-set; Reduce(y) with apply at home computing r'_v from the
// sum, plus the partial L1 change, the dangling mass of r' and Σ r'; one
// AllreduceFloat64 ("pagerank.scalars") of those three partials; the up pass
// has delivered r' for the in-set. Sums are deterministic for a given rank
// count, partition and network; different ones add in different orders and
// agree up to rounding.
package spmv

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/graphrun/graphrun/allreduce"
	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/partition"
)

// Edge partitions of PageRank.
const (
	PartitionRandomEdge = "random-edge" // hash of (u, v), paper 000 §II-B
	PartitionBlock1D    = "1d"          // block of the source vertex
)

// PageRank defaults, NetworkX's (tolerance: an L1 change, not n·tol).
const (
	DefaultPageRankAlpha   = 0.85
	DefaultPageRankTol     = 1e-10
	DefaultPageRankMaxIter = 1000
)

// PageRank phase names (besides those of graph.Relabel and allreduce).
const (
	PhasePageRankRoute   = "pagerank.route"
	PhasePageRankCount   = "pagerank.count"
	PhasePageRankScalars = "pagerank.scalars"
	PhasePageRankGather  = "pagerank.gather"
	PhasePageRankReport  = "pagerank.report"
)

// ErrPageRankConfig is wrapped by the errors about an invalid configuration.
var ErrPageRankConfig = errors.New("pagerank: invalid configuration")

// PageRankConfig configures PageRank. The zero value is not valid: use
// DefaultPageRankConfig and change what is needed.
type PageRankConfig struct {
	Alpha      float64 // damping factor, in [0, 1]
	Tol        float64 // stop when the L1 change is below Tol (> 0)
	MaxIter    int     // stop after this many iterations (≥ 1)
	Iterations int     // > 0: run exactly this many iterations, ignoring Tol and MaxIter
	Undirected bool    // add the reverse of every edge
	Allreduce  string  // allreduce.KindKylix, KindDirect or KindBinary
	Degrees    []int   // kylix degrees; nil designs them (allreduce.AutoDegrees)
	Partition  string  // PartitionRandomEdge or PartitionBlock1D
}

// DefaultPageRankConfig is NetworkX's PageRank on the random edge partition
// and the kylix allreduce with designed degrees.
func DefaultPageRankConfig() PageRankConfig {
	return PageRankConfig{
		Alpha: DefaultPageRankAlpha, Tol: DefaultPageRankTol, MaxIter: DefaultPageRankMaxIter,
		Allreduce: allreduce.KindKylix, Partition: PartitionRandomEdge,
	}
}

// Check validates the configuration.
func (cfg PageRankConfig) Check() error {
	switch {
	case !(cfg.Alpha >= 0 && cfg.Alpha <= 1):
		return fmt.Errorf("%w: alpha %v outside [0, 1]", ErrPageRankConfig, cfg.Alpha)
	case cfg.Iterations < 0:
		return fmt.Errorf("%w: %d iterations", ErrPageRankConfig, cfg.Iterations)
	case cfg.Iterations == 0 && !(cfg.Tol > 0):
		return fmt.Errorf("%w: tolerance %v is not positive", ErrPageRankConfig, cfg.Tol)
	case cfg.Iterations == 0 && cfg.MaxIter < 1:
		return fmt.Errorf("%w: max-iter %d is less than 1", ErrPageRankConfig, cfg.MaxIter)
	case cfg.Partition != PartitionRandomEdge && cfg.Partition != PartitionBlock1D:
		return fmt.Errorf("%w: unknown partition %q (want %q or %q)", ErrPageRankConfig, cfg.Partition, PartitionRandomEdge, PartitionBlock1D)
	}
	switch cfg.Allreduce {
	case allreduce.KindKylix:
	case allreduce.KindDirect, allreduce.KindBinary:
		if cfg.Degrees != nil {
			return fmt.Errorf("%w: degrees are for the kylix allreduce, not %s", ErrPageRankConfig, cfg.Allreduce)
		}
	default:
		return fmt.Errorf("%w: unknown allreduce %q (want %s, %s or %s)", ErrPageRankConfig, cfg.Allreduce,
			allreduce.KindKylix, allreduce.KindDirect, allreduce.KindBinary)
	}
	return nil
}

// PageRankResult is one rank's outcome of PageRank. The global fields are
// the same on every rank.
type PageRankResult struct {
	NumVertices int64   // n: vertices that occur in an edge
	NumEdges    int64   // distinct directed edges, after Undirected
	Iterations  int     // iterations run
	Residual    float64 // L1 change of the last iteration
	Total       float64 // Σ r over all vertices (1 up to rounding)
	Converged   bool    // the L1 change fell below Tol (always true with Iterations)
	Network     string  // the allreduce network, e.g. "kylix 4x4"
	Layers      int     // layers of the network

	// Part is the block partition of the vertices; this rank's scores are
	// those of its range: Scores[l] is the rank of dense vertex
	// Part.Global(rank, l), whose original id is Original[l].
	Part     partition.Block1D
	Scores   []float64
	Original []int64

	// This rank's time in the iterations: local work (the SpMV and the
	// update at home) and communication (the rest of the reduce and the
	// scalar allreduce).
	Compute, Communication time.Duration
	// This rank's traffic in the iterations (configuration excluded): all
	// phases, and per layer of the network.
	Traffic     comm.PhaseCounters
	LayerVolume []allreduce.LayerVolume
}

// VertexScore is one vertex with its original id and its rank.
type VertexScore struct {
	ID    int64   `json:"id"`
	Score float64 `json:"score"`
}

// PageRank runs PageRank on the directed edges given by every rank (this
// rank's share, original ids as read). It is a collective: every rank calls
// it with the same configuration. With no edge at all the result has no
// vertices and no iterations.
func PageRank(ctx context.Context, c comm.Comm, edges []graph.Edge, cfg PageRankConfig) (*PageRankResult, error) {
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	p, rank := c.Size(), c.Rank()
	dense, original, n, err := graph.Relabel(ctx, c, edges)
	if err != nil {
		return nil, fmt.Errorf("pagerank: %w", err)
	}
	res := &PageRankResult{NumVertices: n, Original: original, Converged: true}
	if n == 0 {
		return res, nil
	}
	part, err := partition.NewBlock1D(n, p)
	if err != nil {
		return nil, fmt.Errorf("pagerank: %w", err)
	}
	res.Part = part
	if cfg.Undirected {
		k := len(dense)
		dense = slices.Grow(dense, k)
		for _, e := range dense[:k] {
			dense = append(dense, graph.Edge{U: e.V, V: e.U})
		}
	}
	local, err := routeEdges(ctx, c, dense, part, cfg.Partition)
	if err != nil {
		return nil, err
	}
	count := []int64{int64(len(local))}
	if err := c.AllreduceInt64(ctx, PhasePageRankCount, count, comm.Sum); err != nil {
		return nil, fmt.Errorf("pagerank: counting edges: %w", err)
	}
	res.NumEdges = count[0]

	// In-set: distinct sources (local is sorted by source). Out-set:
	// distinct destinations plus the rank's block.
	var in []int64
	srcPos := make([]int32, len(local))
	for i, e := range local {
		if len(in) == 0 || in[len(in)-1] != e.U {
			in = append(in, e.U)
		}
		srcPos[i] = int32(len(in) - 1)
	}
	first, cnt := part.First(rank), int64(part.Count(rank))
	out := make([]int64, 0, len(local)+int(cnt))
	for _, e := range local {
		out = append(out, e.V)
	}
	for v := first; v < first+cnt; v++ {
		out = append(out, v)
	}
	slices.Sort(out)
	out = slices.Compact(out)
	dstPos := make([]int32, len(local))
	for i, e := range local {
		j, _ := slices.BinarySearch(out, e.V)
		dstPos[i] = int32(j)
	}

	// Out-degrees: at home (for dangling vertices) and for the in-set.
	degNet, err := allreduce.New(ctx, c, allreduce.KindDirect, nil, n, in, in)
	if err != nil {
		return nil, fmt.Errorf("pagerank: out-degrees: %w", err)
	}
	degOut := make([]float64, len(in))
	for _, sp := range srcPos {
		degOut[sp]++
	}
	outDeg := make([]float64, len(in))
	var degHome []int64
	var degSums []float64
	err = degNet.Reduce(ctx, degOut, outDeg, func(home []int64, sums []float64) {
		degHome, degSums = slices.Clone(home), slices.Clone(sums)
	})
	if err != nil {
		return nil, fmt.Errorf("pagerank: out-degrees: %w", err)
	}

	net, err := allreduce.New(ctx, c, cfg.Allreduce, cfg.Degrees, n, in, out)
	if err != nil {
		return nil, fmt.Errorf("pagerank: %w", err)
	}
	res.Network, res.Layers = net.Name(), net.Layers()
	home := net.Home()
	dangling := make([]bool, len(home)) // of the home vertices
	for i, j := 0, 0; i < len(home); i++ {
		for j < len(degHome) && degHome[j] < home[i] {
			j++
		}
		dangling[i] = j >= len(degHome) || degHome[j] != home[i] || degSums[j] == 0
	}

	nf := float64(n)
	cur := make([]float64, len(home)) // the current rank of the home vertices
	for i := range cur {
		cur[i] = 1 / nf
	}
	r := make([]float64, len(in)) // the current rank of the in-set
	for i := range r {
		r[i] = 1 / nf
	}
	var d0 float64
	for i, isD := range dangling {
		if isD {
			d0 += cur[i]
		}
	}
	scalars := []float64{d0}
	if err := c.AllreduceFloat64(ctx, PhasePageRankScalars, scalars, comm.Sum); err != nil {
		return nil, fmt.Errorf("pagerank: dangling mass: %w", err)
	}
	danglingMass := scalars[0]
	res.Total = 1

	x := make([]float64, len(in))
	y := make([]float64, len(out))
	before := c.Stats().Snapshot()
	layersBefore := allreduce.LayerStats(c.Stats(), net.Layers())
	alpha := cfg.Alpha
	for it := 1; ; it++ {
		if cfg.Iterations > 0 && it > cfg.Iterations || cfg.Iterations == 0 && it > cfg.MaxIter {
			res.Converged = cfg.Iterations > 0
			break
		}
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("pagerank: %w", err)
		}
		t0 := time.Now()
		for i := range x {
			x[i] = r[i] / outDeg[i]
		}
		clear(y)
		for e, s := range srcPos {
			y[dstPos[e]] += x[s]
		}
		computed := time.Since(t0)
		base := (1-alpha)/nf + alpha*danglingMass/nf
		var l1, dNext, total float64
		var applyTime time.Duration
		homeMismatch := false
		t1 := time.Now()
		err := net.Reduce(ctx, y, r, func(h []int64, sums []float64) {
			if len(sums) != len(cur) {
				homeMismatch = true
				return
			}
			ta := time.Now()
			for i, s := range sums {
				v := base + alpha*s
				l1 += math.Abs(v - cur[i])
				cur[i] = v
				sums[i] = v
				total += v
				if dangling[i] {
					dNext += v
				}
			}
			applyTime = time.Since(ta)
		})
		if err != nil {
			return nil, fmt.Errorf("pagerank: iteration %d: %w", it, err)
		}
		if homeMismatch {
			return nil, fmt.Errorf("pagerank: iteration %d: the allreduce changed its home list", it)
		}
		scalars = append(scalars[:0], l1, dNext, total)
		if err := c.AllreduceFloat64(ctx, PhasePageRankScalars, scalars, comm.Sum); err != nil {
			return nil, fmt.Errorf("pagerank: iteration %d: %w", it, err)
		}
		res.Communication += time.Since(t1) - applyTime
		res.Compute += computed + applyTime
		res.Iterations = it
		res.Residual, danglingMass, res.Total = scalars[0], scalars[1], scalars[2]
		if cfg.Iterations == 0 && res.Residual < cfg.Tol {
			break
		}
	}
	after := c.Stats().Snapshot()
	for phase, pc := range after {
		res.Traffic.Add(pc.Sub(before[phase]))
	}
	res.LayerVolume = allreduce.LayerStats(c.Stats(), net.Layers())
	for i := range res.LayerVolume {
		res.LayerVolume[i] = res.LayerVolume[i].Sub(layersBefore[i])
	}

	res.Scores, err = homeToBlock(ctx, c, part, home, cur)
	if err != nil {
		return nil, err
	}
	return res, nil
}

// routeEdges sends every edge to its partition owner (one Alltoallv) and
// returns the rank's edges sorted by (source, destination), without
// duplicates.
func routeEdges(ctx context.Context, c comm.Comm, edges []graph.Edge, part partition.Block1D, scheme string) ([]graph.Edge, error) {
	p := c.Size()
	send := make([][]byte, p)
	owner := func(e graph.Edge) int { return partition.EdgeOwner(e.U, e.V, p) }
	if scheme == PartitionBlock1D {
		owner = func(e graph.Edge) int { return part.Owner(e.U) }
	}
	counts := make([]int, p)
	for _, e := range edges {
		counts[owner(e)]++
	}
	for d := range send {
		send[d] = make([]byte, 0, 16*counts[d])
	}
	for _, e := range edges {
		d := owner(e)
		send[d] = binary.LittleEndian.AppendUint64(send[d], uint64(e.U))
		send[d] = binary.LittleEndian.AppendUint64(send[d], uint64(e.V))
	}
	recv, err := c.Alltoallv(ctx, PhasePageRankRoute, send, nil)
	if err != nil {
		return nil, fmt.Errorf("pagerank: routing edges: %w", err)
	}
	total := 0
	for s, m := range recv {
		if len(m)%16 != 0 {
			return nil, fmt.Errorf("pagerank: routing edges: %d bytes from rank %d is not a list of edges", len(m), s)
		}
		total += len(m) / 16
	}
	local := make([]graph.Edge, 0, total)
	for s, m := range recv {
		for i := 0; i < len(m); i += 16 {
			e := graph.Edge{U: int64(binary.LittleEndian.Uint64(m[i:])), V: int64(binary.LittleEndian.Uint64(m[i+8:]))}
			if e.U < 0 || e.U >= part.N || e.V < 0 || e.V >= part.N {
				return nil, fmt.Errorf("pagerank: routing edges: edge (%d, %d) from rank %d outside [0, %d)", e.U, e.V, s, part.N)
			}
			local = append(local, e)
		}
	}
	slices.SortFunc(local, func(a, b graph.Edge) int { return cmp.Or(cmp.Compare(a.U, b.U), cmp.Compare(a.V, b.V)) })
	return slices.Compact(local), nil
}

// homeToBlock moves the ranks held at the homes to the owners of the
// vertices in the block partition (one Alltoallv of (vertex, rank) pairs)
// and returns this rank's block of scores. Every vertex has exactly one
// home, since every vertex is in some out-set.
func homeToBlock(ctx context.Context, c comm.Comm, part partition.Block1D, home []int64, cur []float64) ([]float64, error) {
	p, rank := c.Size(), c.Rank()
	send := make([][]byte, p)
	for i, v := range home {
		d := part.Owner(v)
		send[d] = binary.LittleEndian.AppendUint64(send[d], uint64(v))
		send[d] = binary.LittleEndian.AppendUint64(send[d], math.Float64bits(cur[i]))
	}
	recv, err := c.Alltoallv(ctx, PhasePageRankGather, send, nil)
	if err != nil {
		return nil, fmt.Errorf("pagerank: collecting scores: %w", err)
	}
	first, cnt := part.First(rank), part.Count(rank)
	scores := make([]float64, cnt)
	seen := 0
	for s, m := range recv {
		if len(m)%16 != 0 {
			return nil, fmt.Errorf("pagerank: collecting scores: %d bytes from rank %d", len(m), s)
		}
		for i := 0; i < len(m); i += 16 {
			v := int64(binary.LittleEndian.Uint64(m[i:]))
			if v < first || v >= first+int64(cnt) {
				return nil, fmt.Errorf("pagerank: collecting scores: vertex %d from rank %d is not in this rank's block", v, s)
			}
			scores[v-first] = math.Float64frombits(binary.LittleEndian.Uint64(m[i+8:]))
			seen++
		}
	}
	if seen != cnt {
		return nil, fmt.Errorf("pagerank: collecting scores: %d scores for %d vertices", seen, cnt)
	}
	return scores, nil
}

// lessScore orders vertices by descending score, then ascending id.
func lessScore(a, b VertexScore) int {
	return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.ID, b.ID))
}

// TopK returns the k vertices of highest rank (ties by ascending original
// id) on every rank. It is a collective (one Allgatherv).
func (r *PageRankResult) TopK(ctx context.Context, c comm.Comm, k int) ([]VertexScore, error) {
	if k <= 0 {
		return nil, nil
	}
	mine := make([]VertexScore, len(r.Scores))
	for l, s := range r.Scores {
		mine[l] = VertexScore{ID: r.Original[l], Score: s}
	}
	slices.SortFunc(mine, lessScore)
	mine = mine[:min(k, len(mine))]
	buf := make([]byte, 0, 16*len(mine))
	for _, v := range mine {
		buf = binary.LittleEndian.AppendUint64(buf, uint64(v.ID))
		buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(v.Score))
	}
	all, err := c.Allgatherv(ctx, PhasePageRankReport, buf, nil)
	if err != nil {
		return nil, fmt.Errorf("pagerank: top %d: %w", k, err)
	}
	var top []VertexScore
	for s, m := range all {
		if len(m)%16 != 0 {
			return nil, fmt.Errorf("pagerank: top %d: %d bytes from rank %d", k, len(m), s)
		}
		for i := 0; i < len(m); i += 16 {
			top = append(top, VertexScore{ID: int64(binary.LittleEndian.Uint64(m[i:])), Score: math.Float64frombits(binary.LittleEndian.Uint64(m[i+8:]))})
		}
	}
	slices.SortFunc(top, lessScore)
	return top[:min(k, len(top))], nil
}

// Gather returns every vertex with its original id and rank, in increasing
// original-id order, on rank root (nil on the others). It is a collective
// (one Alltoallv).
func (r *PageRankResult) Gather(ctx context.Context, c comm.Comm, root int) ([]VertexScore, error) {
	send := make([][]byte, c.Size())
	buf := make([]byte, 0, 16*len(r.Scores))
	for l, s := range r.Scores {
		buf = binary.LittleEndian.AppendUint64(buf, uint64(r.Original[l]))
		buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(s))
	}
	send[root] = buf
	recv, err := c.Alltoallv(ctx, PhasePageRankReport, send, nil)
	if err != nil {
		return nil, fmt.Errorf("pagerank: gathering scores: %w", err)
	}
	if c.Rank() != root {
		return nil, nil
	}
	all := make([]VertexScore, 0, r.NumVertices)
	for s, m := range recv {
		if len(m)%16 != 0 {
			return nil, fmt.Errorf("pagerank: gathering scores: %d bytes from rank %d", len(m), s)
		}
		for i := 0; i < len(m); i += 16 {
			all = append(all, VertexScore{ID: int64(binary.LittleEndian.Uint64(m[i:])), Score: math.Float64frombits(binary.LittleEndian.Uint64(m[i+8:]))})
		}
	}
	return all, nil
}
