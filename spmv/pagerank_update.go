// PageRank's per-vertex work of an iteration (paper 000 §VII: the update
// the home ranks compute; REFERENCES.md), on the rank's threads: the new
// rank r' = base + α·sum, its L1 change, the dangling mass and Σ r', and
// r'/d for the next SpMV, in one pass over the vertex arrays. On one rank
// the pass is fused into the SpMV itself (pullUpdate): each column's sum
// goes straight into its update, whose r'/d lands in the kernel's next
// input by slot, with no allreduce and no copy in between.
//
// The scalars are summed per fixed block of prBlock vertices, in vertex
// order, and the blocks' sums are combined in block order: the result is
// the same for any thread count.

package spmv

import (
	"math"
	"time"

	"github.com/graphrun/graphrun/internal/parallel"
)

// prBlock is the number of vertices whose scalars are summed together
// before the blocks are combined in order: the unit of the deterministic
// reduction, and of the work a thread takes.
const prBlock = 2048

// The scalars an iteration sums over the ranks, by position.
const (
	prL1         = iota // L1 change Σ|r' − r|
	prDangling          // Σ r' over dangling vertices: next iteration's D
	prTotal             // Σ r'
	numPRScalars        // how many
)

// prPartials holds the scalars of each block of vertices.
type prPartials []float64

// resize makes room for the scalars of n vertices' blocks.
func (p *prPartials) resize(n int) {
	nb := (n + prBlock - 1) / prBlock
	if cap(*p) < numPRScalars*nb {
		*p = make([]float64, numPRScalars*nb)
	}
	*p = (*p)[:numPRScalars*nb]
}

// combine adds the blocks' scalars in block order into dst.
func (p prPartials) combine(dst []float64) {
	var l1, dangling, total float64
	for b := 0; b < len(p); b += numPRScalars {
		l1 += p[b+prL1]
		dangling += p[b+prDangling]
		total += p[b+prTotal]
	}
	dst[prL1], dst[prDangling], dst[prTotal] = l1, dangling, total
}

// forBlocks runs fn over the blocks of n vertices, [lo, hi) at a time, on
// threads goroutines, each taking a run of whole blocks.
func forBlocks(n, threads int, fn func(lo, hi int)) {
	nb := (n + prBlock - 1) / prBlock
	threads = max(1, min(threads, nb))
	parallel.For(threads, func(t int) {
		blo, bhi := parallel.Span(nb, t, threads)
		for b := blo; b < bhi; b++ {
			fn(b*prBlock, min((b+1)*prBlock, n))
		}
	})
}

// prUpdate is the PageRank update at home, the apply of the allreduce.
type prUpdate struct {
	alpha, base float64   // α and (1−α)/n + α·D/n
	cur         []float64 // the rank of the home vertices, updated in place
	deg         []float64 // their out-degrees, 0 for dangling vertices
	scalars     []float64 // receives this rank's partial sums
	threads     int
	parts       prPartials
	took        time.Duration
	mismatch    bool // the home list does not match cur
}

// apply turns the sums at home into the new ranks r' (kept in cur), replaces
// them by r'/d — what the in-sets want — and records the partial scalars.
func (u *prUpdate) apply(_ []int64, sums []float64) {
	if len(sums) != len(u.cur) {
		u.mismatch = true
		return
	}
	t := time.Now()
	u.parts.resize(len(sums))
	parts := u.parts
	forBlocks(len(sums), u.threads, func(lo, hi int) {
		l1, dangling, total := updateHome(u.base, u.alpha, sums[lo:hi], u.cur[lo:hi], u.deg[lo:hi])
		b := lo / prBlock * numPRScalars
		parts[b+prL1], parts[b+prDangling], parts[b+prTotal] = l1, dangling, total
	})
	parts.combine(u.scalars)
	u.took = time.Since(t)
}

// updateHome is apply's kernel over one block: sums[i] becomes r'/d (0 for
// a dangling vertex, which is in no in-set), cur[i] becomes r'.
func updateHome(base, alpha float64, sums, cur, deg []float64) (l1, dangling, total float64) {
	cur, deg = cur[:len(sums)], deg[:len(sums)]
	for i, s := range sums {
		v := base + alpha*s
		l1 += math.Abs(v - cur[i])
		cur[i] = v
		total += v
		if d := deg[i]; d != 0 {
			sums[i] = v / d
		} else {
			dangling += v
			sums[i] = 0
		}
	}
	return l1, dangling, total
}

// prLocal is a one-rank PageRank's fused iteration: the rank homes every
// vertex, its out-set is 0..n−1 in order (column j is vertex j), and the
// in-set is exactly the vertices of non-zero out-degree.
type prLocal struct {
	xs, next []float64 // r_u/d(u) by slot: this iteration's input, the next one's
	slotOf   []uint32  // slot of vertex j, for deg[j] ≠ 0
	splits   []int     // thread t updates columns splits[t]:splits[t+1], whole blocks
	parts    prPartials
}

// newPRLocal sets up the fused iteration of a one-rank run whose matrix is
// a, from the in-set values x (by in-set position).
func newPRLocal(a *prMatrix, x []float64, threads int) *prLocal {
	l := &prLocal{xs: make([]float64, len(a.in)), next: make([]float64, len(a.in)), slotOf: make([]uint32, len(a.out))}
	for i, u := range a.in {
		l.slotOf[u] = a.slot[i]
	}
	a.gather(x, l.xs)
	parts := len(a.splits) - 1
	l.splits = make([]int, parts+1)
	for t := 1; t < parts; t++ { // the balanced splits, rounded to whole blocks
		l.splits[t] = max(l.splits[t-1], (a.splits[t]+prBlock/2)/prBlock*prBlock)
		l.splits[t] = min(l.splits[t], len(a.out))
	}
	l.splits[parts] = len(a.out)
	l.parts.resize(len(a.out))
	return l
}

// step runs the SpMV and the update of every vertex in one pass over
// blocks of columns — a block's sums, then their updates, then their r'/d
// into the next input by slot, while the block is in cache — and returns
// the summed scalars in scalars. y is the matrix's column sums array.
func (l *prLocal) step(a *prMatrix, u *prUpdate, y, scalars []float64) {
	parts := l.parts
	parallel.For(len(l.splits)-1, func(t int) {
		for lo := l.splits[t]; lo < l.splits[t+1]; lo += prBlock {
			hi := min(lo+prBlock, l.splits[t+1])
			pullColumns(a.colStart, a.src, l.xs, y, lo, hi)
			l1, dangling, total := updateHome(u.base, u.alpha, y[lo:hi], u.cur[lo:hi], u.deg[lo:hi])
			scatterSlots(l.next, y[lo:hi], u.deg[lo:hi], l.slotOf[lo:hi])
			b := lo / prBlock * numPRScalars
			parts[b+prL1], parts[b+prDangling], parts[b+prTotal] = l1, dangling, total
		}
	})
	parts.combine(scalars)
	l.xs, l.next = l.next, l.xs
}

// scatterSlots writes the r'/d of a block's vertices of non-zero degree to
// next by slot. Every slot is written in an iteration, since every in-set
// vertex is a column of non-zero degree.
func scatterSlots(next, x, deg []float64, slotOf []uint32) {
	deg, slotOf = deg[:len(x)], slotOf[:len(x)]
	for i, v := range x {
		if deg[i] != 0 {
			next[slotOf[i]] = v
		}
	}
}
