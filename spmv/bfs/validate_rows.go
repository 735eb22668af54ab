package bfs

// The validator's pass over a rank's 1D rows (Graph500 specification, BFS
// validation, checks 1–5; the argument is in validate.go): per owned vertex
// the range, consistency and parent checks, per stored edge checks 3 and 4.
// One generic instance per column width and ghost width, chosen once per
// search: no interface call, map or allocation per edge.

import (
	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/sieve"
)

// rowCheck is what the row pass of one search reads.
type rowCheck struct {
	root        int64
	first, last int64 // the owned vertices [first, last)
	n           int64 // vertices in the graph
	parent      []int64
	level       []int32
	tupleDegree []uint32
	offsets     []int64
	remote      bool            // there are other ranks, hence ghosts
	rows        *sieve.RowIndex // sparse ghosts: their index; nil when the ghosts are dense
	derived     bool            // level holds depths the validator derived from the tree
}

// ownValue is levelValue for a level of the rank's own array.
func ownValue(l int32) uint32 {
	if l < -1 {
		return 0
	}
	return uint32(l) + 1
}

// neighbourWindow returns the values b (level + 1, 0 unreached) a neighbour
// of a vertex of value a may have, as [lo, lo+span]: only 0 for an unreached
// vertex, else the reached levels one apart.
func neighbourWindow(a uint32) (lo, span uint32) {
	switch a {
	case 0:
		return 0, 0
	case 1:
		return 1, 1
	}
	return a - 1, 2
}

// checkRows checks the owned vertices [lo, hi) and their rows and returns the
// sum of the tuple degrees of those with a level. own holds the levels + 1 of
// the owned vertices (levelValue), ghosts those of the vertices rc.rows
// indexes: both of the search's width, so that the lookups of an edge pass
// touch 1 byte per vertex in most searches rather than 4.
func checkRows[C uint32 | int64, G ghostValue](rc *rowCheck, cols []C, own, ghosts []G, lo, hi int, bad *violations) int64 {
	var pick [pickBatch]C
	offsets := rc.offsets
	var sum int64
	for l := lo; l < hi; l++ {
		sum += checkRow(rc, cols[offsets[l]:offsets[l+1]], l, own, ghosts, &pick, bad)
	}
	return sum
}

// checkPackedRows is checkRows over g's packed rows, each decoded in turn
// (graph.AppendRow) into a scratch row of the rank's column width (C).
func checkPackedRows[C uint32 | int64, G ghostValue](rc *rowCheck, g *graph.CSR, own, ghosts []G, lo, hi int, bad *violations) int64 {
	var pick [pickBatch]C
	var row []C
	var sum int64
	for l := lo; l < hi; l++ {
		row = graph.AppendRow(g, uint32(l), row)
		sum += checkRow(rc, row, l, own, ghosts, &pick, bad)
	}
	return sum
}

// checkRow checks owned vertex l and its row, and returns its tuple degree
// when it has a level (0 otherwise).
func checkRow[C uint32 | int64, G ghostValue](rc *rowCheck, row []C, l int, own, ghosts []G, pick *[pickBatch]C, bad *violations) (sum int64) {
	first, last, root, n := rc.first, rc.last, rc.root, rc.n
	parent, level, degree := rc.parent, rc.level, rc.tupleDegree
	rows, remote := rc.rows, rc.remote
	// In a dense store a vertex of a higher rank is at u − count, one of a
	// lower rank at u (Validator.denseIndex).
	count := last - first
	gv := first + int64(l)
	p, lv := parent[l], level[l]
	a := ownValue(lv)
	if lv >= 0 {
		sum = int64(degree[l])
	}

	// The edges (checks 3 and 4): rows are descending, so the
	// neighbours of higher ranks come first, then the own ones, then
	// those of lower ranks. Every region but the own neighbours below
	// gv is read through, which also tells whether p is among them.
	wlo, span := neighbourWindow(a)
	k := 0
	var hit bool  // p is in a region read through
	var pb uint32 // and its value, when the own region held it
	if remote && last < n {
		k = sieve.SkipAbove(row, 0, last)
		// Odd sums are checked here, even ones in u's row.
		hit = checkRemote(row[:k], gv, p, 1, a, wlo, span, rows, count, ghosts, pick[:], bad)
	}
	for ; k < len(row); k++ {
		u := int64(row[k])
		if u <= gv {
			break // own neighbours below gv check this edge in their rows
		}
		b := uint32(own[u-first])
		if u == p {
			hit, pb = true, b
		}
		if b-wlo > span {
			edgeFault(bad, gv, a, u, b)
		}
	}
	below := k // the own neighbours below gv start here
	if remote && first > 0 {
		k = sieve.SkipAbove(row, k, first)
		// Even sums are checked here, odd ones in u's row.
		if checkRemote(row[k:], gv, p, 0, a, wlo, span, rows, 0, ghosts, pick[:], bad) {
			hit = true
		}
	} else {
		k = len(row)
	}

	// The vertex: ranges and consistency, then its parent (checks 1, 2
	// and 5).
	if p >= 0 && p < n && lv >= 0 && gv != root {
		switch {
		case p == gv:
			bad.addf(kindCheck1, "check 1: vertex %d is its own parent but is not the root", gv)
			return sum
		case lv == 0:
			bad.addf(kindCheck1, "check 1: vertex %d has level 0 but is not the root %d", gv, root)
			return sum
		case p >= first && p < gv:
			// Among the own neighbours below gv, not read through.
			hit = graph.DescendingRowHas(row[below:k], p)
			pb = uint32(own[p-first])
		case !hit || (p > gv && p < last):
			// Not a neighbour, or an own one whose value the scan took.
		case rows != nil:
			pb = uint32(ghosts[rows.Index(p)])
		case p >= last:
			pb = uint32(ghosts[p-count])
		default:
			pb = uint32(ghosts[p])
		}
		switch {
		case !hit:
			bad.addf(kindCheck5, "check 5: parent edge (%d, %d) is not an edge of the input", gv, p)
		case pb != a-1:
			parentLevelFault(bad, gv, lv, p, int64(pb)-1, root)
		}
	} else if p < -1 || p >= n || lv < -1 || (p == -1) != (lv == -1) {
		vertexFault(bad, gv, p, lv, n, root, rc.derived)
	}
	return sum
}

// pickBatch is the number of neighbours checkRemote selects at a time.
const pickBatch = 256

// checkRemote checks the edges from gv (value a, window [wlo, wlo+span]) to
// the neighbours u of part that belong to other ranks and whose sum u + gv
// has parity odd, and reports whether p is among the neighbours of part. It
// first copies those neighbours into pick without a branch (the parity of a
// neighbour is a coin flip, which a branch would mispredict half the time),
// then looks up their levels: through rows, or, when rows is nil, at
// u − shift of a dense store.
func checkRemote[C uint32 | int64, G ghostValue](part []C, gv, p int64, odd uint64, a, wlo, span uint32,
	rows *sieve.RowIndex, shift int64, ghosts []G, pick []C, bad *violations) (hit bool) {
	sel := uint64(gv) ^ odd ^ 1 // (u ^ sel) & 1 == 1 exactly for the neighbours to check
	pick = pick[:pickBatch]
	for len(part) > 0 {
		batch := part[:min(len(part), pickBatch)]
		part = part[len(batch):]
		m, found := pickParity(batch, sel, pick, p)
		hit = hit || found
		if rows == nil {
			for _, u := range pick[:m] {
				if b := uint32(ghosts[int64(u)-shift]); b-wlo > span {
					edgeFault(bad, gv, a, int64(u), b)
				}
			}
			continue
		}
		for _, u := range pick[:m] {
			if b := uint32(ghosts[rows.Index(int64(u))]); b-wlo > span {
				edgeFault(bad, gv, a, int64(u), b)
			}
		}
	}
	return hit
}

// pickParity copies the entries u of batch (at most pickBatch) with
// (u ^ sel) & 1 == 1 into pick, without a branch, and returns their number
// and whether p is in batch (pass p = −1 not to look).
func pickParity[C uint32 | int64](batch []C, sel uint64, pick []C, p int64) (m int, hit bool) {
	for _, u := range batch {
		pick[m&(pickBatch-1)] = u
		m += int((uint64(u) ^ sel) & 1)
		if int64(u) == p {
			hit = true
		}
	}
	return m, hit
}

// vertexFault reports a vertex whose parent or level is out of range, or
// whose parent and level disagree on whether it was reached. With derived
// levels, a vertex with a parent but no depth is one the walk down the tree
// from the root never met: the parents from it loop or lead elsewhere.
func vertexFault(bad *violations, gv, p int64, lv int32, n, root int64, derived bool) {
	switch {
	case p < -1 || p >= n:
		bad.addf(kindRange, "vertex %d: parent %d out of range [-1, %d)", gv, p, n)
	case lv < -1:
		bad.addf(kindRange, "vertex %d: level %d out of range", gv, lv)
	case derived && p >= 0:
		bad.addf(kindCheck1, "check 1: the parents from vertex %d (parent %d) do not lead to root %d: they loop, or reach an unreached vertex", gv, p, root)
	default:
		bad.addf(kindConsistency, "vertex %d: parent %d but level %d (reached and unreached at once)", gv, p, lv)
	}
}

// parentLevelFault reports a reached vertex whose parent is not one level up.
func parentLevelFault(bad *violations, gv int64, lv int32, p, lp, root int64) {
	if lp < 0 || lp >= int64(lv) {
		bad.addf(kindCheck1, "check 1: vertex %d at level %d has parent %d at level %d, not one level up: the parents from it do not lead to root %d (they loop, or reach an unreached vertex)",
			gv, lv, p, lp, root)
		return
	}
	bad.addf(kindCheck2, "check 2: vertex %d at level %d has parent %d at level %d: its tree edge does not join consecutive levels", gv, lv, p, lp)
}

// edgeFault reports edge {v, u} whose ends have values a and b (level + 1).
func edgeFault(bad *violations, v int64, a uint32, u int64, b uint32) {
	if (a == 0) != (b == 0) {
		bad.addf(kindCheck4, "check 4: edge (%d, %d) joins a reached and an unreached vertex (levels %d and %d): the tree does not span the component",
			v, u, int64(a)-1, int64(b)-1)
		return
	}
	bad.addf(kindCheck3, "check 3: edge (%d, %d) joins levels %d and %d, more than one apart", v, u, int64(a)-1, int64(b)-1)
}
