package pagerank

// PageRank's result on one rank: the scores of its block of vertices, and
// the collectives that read them (the global top k, every score on one
// rank), plus the move of the scores from their allreduce homes to the
// block partition.

import (
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/graphrun/graphrun/allreduce"
	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/partition"
)

// Result is one rank's outcome of PageRank. The global fields are
// the same on every rank.
type Result struct {
	NumVertices int64 // n: vertices that occur in an edge
	NumEdges    int64 // distinct directed edges, after Undirected
	InputEdges  int64 // edges read, all ranks (before Undirected's reverses and deduplication)
	LocalEdges  int64 // distinct edges of this rank's matrix
	// GatheredColumns says this rank's long columns were summed with AVX2
	// gathers after the first iterations' trial (columnRuns.gathers).
	GatheredColumns bool
	Iterations      int     // iterations run
	Residual        float64 // L1 change of the last iteration
	Total           float64 // Σ r over all vertices (1 up to rounding)
	Converged       bool    // the L1 change fell below Tol (always true with Iterations)
	Network         string  // the allreduce network, e.g. "kylix 4x4"
	Layers          int     // layers of the network

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
	// IterationTimes is this rank's wall time of each iteration;
	// L1Changes the L1 change after each iteration (the same on every
	// rank).
	IterationTimes []time.Duration
	L1Changes      []float64
	// Setup is this rank's time before the first iteration (both passes
	// over its share, so reading or generating the input twice, relabel,
	// route the edges, build the matrix, out-degrees, configure the
	// allreduce);
	// Configuration is the part of it spent configuring the allreduce
	// network (Kylix's configuration step: the index sets exchanged
	// layer by layer).
	Setup, Configuration time.Duration
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

// homeToBlock moves the ranks held at the homes to the owners of the
// vertices in the block partition (one Alltoallv of (vertex, rank) pairs;
// a rank's own vertices go straight to its block) and returns this rank's
// block of scores. Every vertex has exactly one home, since every vertex
// is in some out-set.
func homeToBlock(ctx context.Context, c comm.Comm, part partition.Block1D, home []int64, cur []float64) ([]float64, error) {
	p, rank := c.Size(), c.Rank()
	first, cnt := part.First(rank), part.Count(rank)
	scores := make([]float64, cnt)
	seen := 0
	send := make([][]byte, p)
	for i, v := range home {
		d := part.Owner(v)
		if d == rank {
			scores[v-first] = cur[i]
			seen++
			continue
		}
		send[d] = binary.LittleEndian.AppendUint64(send[d], uint64(v))
		send[d] = binary.LittleEndian.AppendUint64(send[d], math.Float64bits(cur[i]))
	}
	if p > 1 {
		recv, err := c.Alltoallv(ctx, PhaseGather, send, nil)
		if err != nil {
			return nil, fmt.Errorf("pagerank: collecting scores: %w", err)
		}
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

// topScores returns the k best of the vertices whose scores and original
// ids are given, best first (lessScore), keeping only k of them at a time:
// a heap whose root is the worst kept.
func topScores(scores []float64, ids []int64, k int) []VertexScore {
	k = min(k, len(scores))
	h := make([]VertexScore, 0, k)
	down := func(i int) {
		for {
			w, l, r := i, 2*i+1, 2*i+2
			if l < len(h) && lessScore(h[w], h[l]) < 0 {
				w = l
			}
			if r < len(h) && lessScore(h[w], h[r]) < 0 {
				w = r
			}
			if w == i {
				return
			}
			h[i], h[w] = h[w], h[i]
			i = w
		}
	}
	for l, s := range scores {
		v := VertexScore{ID: ids[l], Score: s}
		if len(h) < k {
			h = append(h, v)
			for i := len(h) - 1; i > 0 && lessScore(h[(i-1)/2], h[i]) < 0; i = (i - 1) / 2 {
				h[i], h[(i-1)/2] = h[(i-1)/2], h[i]
			}
			continue
		}
		if k > 0 && lessScore(v, h[0]) < 0 {
			h[0] = v
			down(0)
		}
	}
	slices.SortFunc(h, lessScore)
	return h
}

// TopK returns the k vertices of highest rank (ties by ascending original
// id) on every rank. It is a collective (one Allgatherv).
func (r *Result) TopK(ctx context.Context, c comm.Comm, k int) ([]VertexScore, error) {
	if k <= 0 {
		return nil, nil
	}
	mine := topScores(r.Scores, r.Original, k)
	buf := make([]byte, 0, 16*len(mine))
	for _, v := range mine {
		buf = binary.LittleEndian.AppendUint64(buf, uint64(v.ID))
		buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(v.Score))
	}
	all, err := c.Allgatherv(ctx, PhaseReport, buf, nil)
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
func (r *Result) Gather(ctx context.Context, c comm.Comm, root int) ([]VertexScore, error) {
	send := make([][]byte, c.Size())
	buf := make([]byte, 0, 16*len(r.Scores))
	for l, s := range r.Scores {
		buf = binary.LittleEndian.AppendUint64(buf, uint64(r.Original[l]))
		buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(s))
	}
	send[root] = buf
	recv, err := c.Alltoallv(ctx, PhaseReport, send, nil)
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
