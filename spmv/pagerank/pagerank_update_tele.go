package pagerank

import (
	"math"
	"sort"
)

// One rank's fused iteration with a personalized or dangling teleport
// (prLocal.stepTele): the blocks' updates read the teleport vectors, or
// only their seeds when they are sparse (teleportSeeds, updateSeeds).

// stepTele is step with a personalized teleport or weights (teleBlock per
// block).
func (l *prLocal) stepTele(base, alpha float64, scalars []float64) {
	gather := l.runs.gathers(l.x)
	l.queue.Reset(l.splits)
	l.team.Run(func(t int) {
		for b := l.queue.Next(t); b >= 0; b = l.queue.Next(t) {
			l.teleBlock(b, l.sums[t], base, alpha, gather)
		}
	})
	l.runs.timed()
	l.parts.combine(scalars)
	l.x, l.next = l.next, l.x
}

// teleBlock is step's work on block b with a personalized teleport or
// weights: each run's column sums into y (sumRun, the order pullUpdateRun
// adds in, or weightedSumRun; y is one run's, in the L1 cache), then in
// one pass over the run's positions r' = c1·pers + c2·dang + α·sum (or
// base + α·sum when the teleport is uniform), its L1 change and Σ r', and
// r'/d into the next input for positions of non-zero out-degree: every
// vertex array is read or written once, as in pullUpdateRun, and a sparse
// seed set's pers and dang only at the seeds (updateSeeds).
func (l *prLocal) teleBlock(b int, y []float64, base, alpha float64, gather bool) {
	lo, hi := l.runs.blockStart[b], l.runs.blockStart[b+1]
	var l1, total, dangling float64
	seed := 0 // the block's first seed, then the run's
	if l.sparse {
		seed = sort.Search(len(l.seeds), func(i int) bool { return int(l.seeds[i]) >= lo })
	}
	for r, p := l.runs.first[b], lo; p < hi; r++ {
		end, w := l.runs.end[r], l.runs.width[r]
		ys := y[:end-p]
		if e0, e1 := l.colStart[p], l.colStart[end]; l.wts != nil {
			weightedSumRun(l.src[e0:e1], l.wts[e0:e1], w, l.x, ys, gather)
		} else {
			sumRun(l.src[e0:e1], w, l.x, ys, gather)
		}
		var inv, next []float64
		if p < l.nonZero { // runs do not cross nonZero
			inv, next = l.inv[p:end], l.next[p:end]
		}
		var rl1, rtotal float64
		switch {
		case l.pers == nil:
			rl1, rtotal = updateBase(ys, l.cur[p:end], inv, next, base, alpha)
		case l.sparse:
			j := seed
			for j < len(l.seeds) && int(l.seeds[j]) < end {
				j++
			}
			rl1, rtotal = l.updateSeeds(ys, p, l.seeds[seed:j], inv, next, alpha)
			seed = j
		default:
			rl1, rtotal = updateTele(ys, l.cur[p:end], l.pers[p:end], l.dang[p:end], inv, next, l.c1, l.c2, alpha)
		}
		l1, total = l1+rl1, total+rtotal
		if p >= l.nonZero {
			dangling += rtotal
		}
		p = end
	}
	k := b * numPRScalars
	l.parts[k+prL1], l.parts[k+prDangling], l.parts[k+prTotal] = l1, dangling, total
}

// sparseSeeds bounds the share of positions with a teleport (non-zero pers
// or dang) up to which the update reads pers and dang only at those
// positions (updateSeeds).
const sparseSeeds = 8

// teleportSeeds returns the positions of non-zero pers or dang, ascending,
// and whether they are at most 1/sparseSeeds of all (else none).
func teleportSeeds(pers, dang []float64) ([]uint32, bool) {
	var seeds []uint32
	for p := range pers {
		if pers[p] != 0 || dang[p] != 0 {
			if len(seeds) >= len(pers)/sparseSeeds {
				return nil, false
			}
			seeds = append(seeds, uint32(p))
		}
	}
	return seeds, true
}

// updateSeeds is updateTele over the run of positions from p whose
// non-zero pers or dang are at seeds (ascending, within the run): the
// positions between them take updateBase with base 0, and each seed
// updateTele. It returns the run's L1 change and Σ r'.
func (l *prLocal) updateSeeds(y []float64, p int, seeds []uint32, inv, next []float64, alpha float64) (l1, total float64) {
	end, lo := p+len(y), p
	for i := 0; ; i++ {
		hi := end
		if i < len(seeds) {
			hi = int(seeds[i])
		}
		var in, nx []float64
		if inv != nil {
			in, nx = inv[lo-p:hi-p], next[lo-p:hi-p]
		}
		a, t := updateBase(y[lo-p:hi-p], l.cur[lo:hi], in, nx, 0, alpha)
		l1, total = l1+a, total+t
		if i == len(seeds) {
			return l1, total
		}
		if inv != nil {
			in, nx = inv[hi-p:hi-p+1], next[hi-p:hi-p+1]
		}
		a, t = updateTele(y[hi-p:hi-p+1], l.cur[hi:hi+1], l.pers[hi:hi+1], l.dang[hi:hi+1], in, nx, l.c1, l.c2, alpha)
		l1, total = l1+a, total+t
		lo = hi + 1
	}
}

// updateTele is the personalized update of a run of positions from their
// column sums y: r' = c1·pers + c2·dang + α·y into cur and, unless inv is
// nil (dangling positions), r'/d into next, in one loop. It returns the
// run's L1 change and Σ r'.
func updateTele(y, cur, pers, dang, inv, next []float64, c1, c2, alpha float64) (l1, total float64) {
	cur, pers, dang = cur[:len(y)], pers[:len(y)], dang[:len(y)]
	if inv == nil {
		for i, s := range y {
			v := c1*pers[i] + c2*dang[i] + alpha*s
			l1 += math.Abs(v - cur[i])
			total += v
			cur[i] = v
		}
		return l1, total
	}
	inv, next = inv[:len(y)], next[:len(y)]
	for i, s := range y {
		v := c1*pers[i] + c2*dang[i] + alpha*s
		l1 += math.Abs(v - cur[i])
		total += v
		cur[i], next[i] = v, v*inv[i]
	}
	return l1, total
}
