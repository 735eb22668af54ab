package spmv

// Distributed validation of one BFS result: the five checks of the Graph500
// specification, run on every rank without gathering the graph or the result.
//
//	(1) the parent array is a tree rooted at the root (no cycles);
//	(2) each tree edge joins vertices whose levels differ by exactly one;
//	(3) every edge of the input joins vertices whose levels differ by at most
//	    one, or two unreached vertices;
//	(4) the tree spans the root's connected component: no edge joins a reached
//	    vertex to an unreached one;
//	(5) every (vertex, parent) pair is an edge of the input.
//
// plus range checks of every parent, the root's own entry, consistency of the
// parent and level arrays, and a recount of nedge.
//
// The validator trusts nothing of the search but its output: it recomputes the
// depth of every vertex in the tree that the parent array describes (children
// lists at the parents' owners, then a level-synchronous walk down from the
// root), so a cycle shows up as vertices the walk never reaches, and it
// compares those depths with the claimed levels. Edges are checked from the
// CSR rows built by kernel 1, which hold exactly the input's edge set (kernel 1
// is tested for that); each undirected edge is checked once, at the owner of
// its larger endpoint.

import (
	"context"
	"encoding/binary"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/internal/parallel"
	"github.com/graphrun/graphrun/partition"
)

// Phase names under which validation traffic is counted.
const (
	PhaseValidateChildren = "validate.children"
	PhaseValidateDepth    = "validate.depth"
	PhaseValidateEdges    = "validate.edges"
	PhaseValidateReduce   = "validate.reduce"
)

// maxSamplesPerRank bounds how many violation messages each rank reports.
const maxSamplesPerRank = 5

// ValidationError reports a BFS result that failed validation. Every rank
// returns the same error.
type ValidationError struct {
	Root       int64
	Violations int64    // over all ranks
	Samples    []string // the first few violations of each rank
}

func (e *ValidationError) Error() string {
	return fmt.Sprintf("validation of the search from %d failed with %d violation(s):\n  %s",
		e.Root, e.Violations, strings.Join(e.Samples, "\n  "))
}

// violations collects one rank's findings.
type violations struct {
	count   int64
	samples []string
}

func (v *violations) merge(o *violations) {
	v.count += o.count
	for _, s := range o.samples {
		if len(v.samples) < maxSamplesPerRank {
			v.samples = append(v.samples, s)
		}
	}
}

func (v *violations) addf(format string, args ...any) {
	v.count++
	if len(v.samples) < maxSamplesPerRank {
		v.samples = append(v.samples, fmt.Sprintf(format, args...))
	}
}

// Validate checks this rank's share of a BFS result (parent and, when not
// nil, level, indexed by owned vertex) and returns the number of input tuples
// in the searched component as Graph500 counts them (self-loops excluded,
// duplicates included). If claimedNEdge ≥ 0 it must equal that recount. All
// ranks must call Validate together, each with `threads` goroutines for the
// edge checks; a failed check returns a
// *ValidationError on every rank, a transport failure another error.
func Validate(ctx context.Context, c comm.Comm, g *graph.CSR, part partition.Block1D, root int64,
	parent []int64, level []int32, claimedNEdge int64, threads int) (int64, error) {
	rank, n := c.Rank(), g.NumLocal
	if len(parent) != n || (level != nil && len(level) != n) {
		return 0, fmt.Errorf("validate: rank %d has %d parents and %d levels for %d owned vertices", rank, len(parent), len(level), n)
	}
	var bad violations
	first := g.FirstGlobal

	// Range, consistency, root and parent-edge (check 5) checks: all local.
	rootOwned := part.Owner(root) == rank
	for v := 0; v < n; v++ {
		gv, p := first+int64(v), parent[v]
		if p < -1 || p >= part.N {
			bad.addf("vertex %d: parent %d out of range [-1, %d)", gv, p, part.N)
			continue
		}
		if level != nil && (p == -1) != (level[v] == -1) {
			bad.addf("vertex %d: parent %d but level %d (reached and unreached at once)", gv, p, level[v])
		}
		if p == -1 || gv == root {
			continue
		}
		if p == gv {
			bad.addf("check 1: vertex %d is its own parent but is not the root", gv)
			continue
		}
		if !g.HasEdge(uint32(v), p) {
			bad.addf("check 5: parent edge (%d, %d) is not an edge of the input", gv, p)
		}
	}
	if rootOwned {
		l := part.Local(root)
		if parent[l] != root {
			bad.addf("root %d has parent %d, want itself", root, parent[l])
		}
		if level != nil && level[l] != 0 {
			bad.addf("root %d has level %d, want 0", root, level[l])
		}
	}

	// Check 1: children lists at the parents' owners, then depths walked down
	// from the root. A vertex with a parent that the walk never reaches lies
	// on a cycle or hangs below one.
	depth, err := treeDepths(ctx, c, part, root, parent, &bad)
	if err != nil {
		return 0, err
	}
	for v := 0; v < n; v++ {
		gv := first + int64(v)
		if parent[v] < 0 || parent[v] >= part.N {
			continue
		}
		if depth[v] < 0 {
			bad.addf("check 1: the parents from vertex %d (parent %d) do not lead to root %d: they loop, or reach an unreached vertex", gv, parent[v], root)
			continue
		}
		// Check 2: the claimed level of every reached vertex is its depth in
		// the tree, so every tree edge joins consecutive levels.
		if level != nil && level[v] != depth[v] {
			bad.addf("check 2: vertex %d has level %d but depth %d below root %d: its tree edge to %d does not join consecutive levels",
				gv, level[v], depth[v], root, parent[v])
		}
	}

	// Checks 3 and 4 over every edge.
	if err := checkEdges(ctx, c, g, part, depth, threads, &bad); err != nil {
		return 0, err
	}

	// nedge recount: tuples (u≠v) with both ends in the component.
	var degreeSum int64
	for v := 0; v < n; v++ {
		if depth[v] >= 0 {
			degreeSum += int64(g.TupleDegree[v])
		}
	}
	sums := []int64{degreeSum, bad.count}
	if err := c.AllreduceInt64(ctx, PhaseValidateReduce, sums, comm.Sum); err != nil {
		return 0, fmt.Errorf("validate: %w", err)
	}
	nedge := sums[0] / 2
	total := sums[1]
	if sums[0]%2 != 0 {
		// Only possible when an edge joins the component to the outside,
		// which check 4 already reports; counted once, described by rank 0.
		if rank == 0 {
			bad.addf("nedge: the component's tuple endpoints add up to the odd number %d", sums[0])
		}
		total++
	}
	if claimedNEdge >= 0 && claimedNEdge != nedge {
		if rank == 0 {
			bad.addf("nedge: the search claims %d tuples in the component, the recount finds %d", claimedNEdge, nedge)
		}
		total++
	}
	if total == 0 {
		return nedge, nil
	}
	all, err := c.Allgatherv(ctx, PhaseValidateReduce, []byte(strings.Join(bad.samples, "\n")), nil)
	if err != nil {
		return 0, fmt.Errorf("validate: %w", err)
	}
	verr := &ValidationError{Root: root, Violations: total}
	for r, msg := range all {
		if len(msg) == 0 {
			continue
		}
		for _, s := range strings.Split(string(msg), "\n") {
			verr.Samples = append(verr.Samples, fmt.Sprintf("rank %d: %s", r, s))
		}
	}
	return nedge, verr
}

// treeDepths returns, per owned vertex, its depth in the tree described by
// the parent arrays (−1 when the walk from the root never reaches it).
func treeDepths(ctx context.Context, c comm.Comm, part partition.Block1D, root int64, parent []int64, bad *violations) ([]int32, error) {
	rank, size, n := c.Rank(), c.Size(), len(parent)
	first := part.First(rank)

	// Route (parent's local id, child's local id) to the parent's owner.
	send := make([][]byte, size)
	for v, p := range parent {
		if p < 0 || p >= part.N || first+int64(v) == root || p == first+int64(v) {
			continue
		}
		d := part.Owner(p)
		send[d] = binary.LittleEndian.AppendUint32(send[d], part.Local(p))
		send[d] = binary.LittleEndian.AppendUint32(send[d], uint32(v))
	}
	recv, err := c.Alltoallv(ctx, PhaseValidateChildren, send, nil)
	if err != nil {
		return nil, fmt.Errorf("validate: %w", err)
	}
	// Children lists in CSR form, keyed by the parent's local id.
	start := make([]int64, n+1)
	for src, msg := range recv {
		if len(msg)%8 != 0 {
			return nil, fmt.Errorf("validate: children message from rank %d has %d bytes, not a multiple of 8", src, len(msg))
		}
		for i := 0; i < len(msg); i += 8 {
			pl := binary.LittleEndian.Uint32(msg[i:])
			if int(pl) >= n {
				return nil, fmt.Errorf("validate: children message from rank %d names local vertex %d of %d", src, pl, n)
			}
			start[pl+1]++
		}
	}
	for i := 0; i < n; i++ {
		start[i+1] += start[i]
	}
	children := make([]int64, start[n])
	fill := append([]int64(nil), start[:n]...)
	for src, msg := range recv {
		for i := 0; i < len(msg); i += 8 {
			pl := binary.LittleEndian.Uint32(msg[i:])
			cl := binary.LittleEndian.Uint32(msg[i+4:])
			children[fill[pl]] = part.Global(src, cl)
			fill[pl]++
		}
	}

	depth := make([]int32, n)
	for i := range depth {
		depth[i] = -1
	}
	var current, next []uint32
	if part.Owner(root) == rank {
		l := part.Local(root)
		depth[l] = 0
		current = append(current, l)
	}
	count := []int64{0}
	for d := int32(0); ; d++ {
		for i := range send {
			send[i] = send[i][:0]
		}
		for _, l := range current {
			for _, ch := range children[start[l]:start[l+1]] {
				o := part.Owner(ch)
				send[o] = binary.LittleEndian.AppendUint32(send[o], part.Local(ch))
			}
		}
		recv, err = c.Alltoallv(ctx, PhaseValidateDepth, send, recv)
		if err != nil {
			return nil, fmt.Errorf("validate: %w", err)
		}
		next = next[:0]
		for src, msg := range recv {
			if len(msg)%4 != 0 {
				return nil, fmt.Errorf("validate: depth message from rank %d has %d bytes, not a multiple of 4", src, len(msg))
			}
			for i := 0; i < len(msg); i += 4 {
				l := binary.LittleEndian.Uint32(msg[i:])
				if int(l) >= n {
					return nil, fmt.Errorf("validate: depth message from rank %d names local vertex %d of %d", src, l, n)
				}
				if depth[l] >= 0 {
					// Each vertex is listed under one parent only, so this
					// means a corrupt transport, not a corrupt result.
					return nil, fmt.Errorf("validate: vertex %d reached twice while walking the tree", part.Global(rank, l))
				}
				depth[l] = d + 1
				next = append(next, l)
			}
		}
		current, next = next, current
		count[0] = int64(len(current))
		if err := c.AllreduceInt64(ctx, PhaseValidateReduce, count, comm.Sum); err != nil {
			return nil, fmt.Errorf("validate: %w", err)
		}
		if count[0] == 0 {
			return depth, nil
		}
	}
}

// edgeRecordSize is the wire size of one edge check: the receiver's local
// vertex, the sender's local vertex, and the sender's depth.
const edgeRecordSize = 12

// checkEdges applies checks 3 and 4 to every stored edge {v, u}, once, at the
// owner of the larger endpoint u. Threads take row ranges of equal edge volume
// and keep their own records and findings.
func checkEdges(ctx context.Context, c comm.Comm, g *graph.CSR, part partition.Block1D, depth []int32, threads int, bad *violations) error {
	rank, size := c.Rank(), c.Size()
	threads = max(1, min(threads, g.NumLocal/64))
	sends := make([][][]byte, threads)
	found := make([]violations, threads)
	parallel.For(threads, func(t int) {
		lo, hi := rowRange(g.Offsets, t, threads)
		send := make([][]byte, size)
		var rec [edgeRecordSize]byte
		for v := lo; v < hi; v++ {
			gv := g.FirstGlobal + int64(v)
			for i := g.Offsets[v]; i < g.Offsets[v+1]; i++ {
				u := g.Neighbor(i)
				if u <= gv {
					break // rows are descending: the rest are checked at their own side
				}
				o := part.Owner(u)
				if o == rank {
					checkEdge(&found[t], gv, depth[v], u, depth[part.Local(u)])
					continue
				}
				binary.LittleEndian.PutUint32(rec[0:], part.Local(u))
				binary.LittleEndian.PutUint32(rec[4:], uint32(v))
				binary.LittleEndian.PutUint32(rec[8:], uint32(depth[v]))
				send[o] = append(send[o], rec[:]...)
			}
		}
		sends[t] = send
	})
	send := make([][]byte, size)
	for d := range send {
		for t := range sends {
			send[d] = append(send[d], sends[t][d]...)
		}
	}
	sends = nil
	recv, err := c.Alltoallv(ctx, PhaseValidateEdges, send, nil)
	if err != nil {
		return fmt.Errorf("validate: %w", err)
	}
	for src, msg := range recv {
		if len(msg)%edgeRecordSize != 0 {
			return fmt.Errorf("validate: edge message from rank %d has %d bytes, not a multiple of %d", src, len(msg), edgeRecordSize)
		}
	}
	var decodeErr error
	var errOnce sync.Once
	parallel.For(threads, func(t int) {
		for src, msg := range recv {
			records := len(msg) / edgeRecordSize
			for r := records * t / threads; r < records*(t+1)/threads; r++ {
				rec := msg[r*edgeRecordSize:]
				ul := binary.LittleEndian.Uint32(rec)
				vl := binary.LittleEndian.Uint32(rec[4:])
				dv := int32(binary.LittleEndian.Uint32(rec[8:]))
				if int(ul) >= g.NumLocal {
					errOnce.Do(func() {
						decodeErr = fmt.Errorf("validate: edge message from rank %d names local vertex %d of %d", src, ul, g.NumLocal)
					})
					return
				}
				checkEdge(&found[t], part.Global(src, vl), dv, g.FirstGlobal+int64(ul), depth[ul])
			}
		}
	})
	for t := range found {
		bad.merge(&found[t])
	}
	return decodeErr
}

// rowRange returns part t of `parts` of the rows, cut so that each part
// holds about the same number of stored edges.
func rowRange(offsets []int64, t, parts int) (lo, hi int) {
	n := len(offsets) - 1
	cut := func(k int) int {
		if k == parts {
			return n
		}
		target := offsets[n] * int64(k) / int64(parts)
		return sort.Search(n, func(v int) bool { return offsets[v] >= target })
	}
	return cut(t), cut(t + 1)
}

func checkEdge(bad *violations, v int64, dv int32, u int64, du int32) {
	switch {
	case dv < 0 && du < 0:
	case dv < 0 || du < 0:
		bad.addf("check 4: edge (%d, %d) joins a reached and an unreached vertex (depths %d and %d): the tree does not span the component", v, u, dv, du)
	case dv-du > 1 || du-dv > 1:
		bad.addf("check 3: edge (%d, %d) joins levels %d and %d, more than one apart", v, u, dv, du)
	}
}
