package graph

// Kernel 1, the owner's side of a round: the routed half-edges of every
// message (graph/route.go's format) counted into row lengths in the
// counting pass and written into their final slots in the filling pass.

import (
	"fmt"
	"math"
)

// receive applies a round's half-edges: the rank's own records and every
// received message, bucket by bucket, a thread owning a bucket's rows.
func (b *builder[C]) receive(pass int) error {
	lay := &b.lay
	nb := lay.nb
	nbrBits := uint(0)
	if pass == passFill {
		nbrBits = lay.w
	}
	for s, msg := range b.recv {
		if s == b.rank || len(msg) == 0 {
			clear(b.segs[s])
			continue
		}
		loops, err := parseRouteHeader(msg, b.segs[s], nbrBits)
		if err != nil {
			return fmt.Errorf("graph: kernel 1: message from rank %d: %w", s, err)
		}
		if b.ranged && pass == passFill {
			for j, ref := range b.segs[s] {
				if ref.entries > 0 && b.skipBucket(pass, j) {
					return fmt.Errorf("graph: kernel 1: message from rank %d: %w: entries for bucket %d outside the range being filled", s, errRoute, j)
				}
			}
		}
		if pass == passFill && loops != 0 {
			return fmt.Errorf("graph: kernel 1: message from rank %d: %w: self-loops in the fill pass", s, errRoute)
		}
		b.selfLoops += loops
	}
	if pass == passCount {
		b.selfLoops += b.loops[b.rank]
	}
	buckets := int((int64(b.nLocal) + int64(lay.rowCap) - 1) >> lay.bshift)
	return b.parallelItems(nb, func(_, j int) error { return b.receiveBucket(pass, j, buckets, nbrBits) })
}

// receiveBucket applies bucket j's half-edges of this round.
func (b *builder[C]) receiveBucket(pass, j, buckets int, nbrBits uint) error {
	lay := &b.lay
	k := b.rank*lay.nb + j
	own := b.recs[b.keyStart[k]:b.keyStart[k+1]]
	if b.skipBucket(pass, j) {
		return nil // a ranged fill pass's other rows; receive checked the messages
	}
	if j >= buckets {
		// No rows here; only a malformed message has entries.
		for s := range b.recv {
			if s != b.rank && b.segs[s][j].entries > 0 {
				return fmt.Errorf("graph: kernel 1: message from rank %d: %w: entries for bucket %d beyond the rank's %d rows", s, errRoute, j, b.nLocal)
			}
		}
		return nil
	}
	base := uint64(j) << lay.bshift
	rows := min(lay.rowCap, uint64(b.nLocal)-base)
	w := lay.w
	nmask := uint64(1)<<w - 1
	if pass == passCount {
		deg := b.degree[base : base+rows]
		for _, r := range own {
			l := r >> w
			if deg[l] == math.MaxUint32 {
				return b.degreeOverflow(base + l)
			}
			deg[l]++
		}
	} else {
		cur := b.offsets[base : base+rows]
		for _, r := range own {
			l := r >> w
			x := cur[l]
			if x >= int64(len(b.cols)) {
				return fmt.Errorf("graph: kernel 1: the tuple source gave rank %d more half-edges on its second reading than on its first", b.rank)
			}
			b.cols[x] = ^C(r & nmask)
			cur[l] = x + 1
		}
	}
	for s := range b.recv {
		ref := b.segs[s][j]
		if s == b.rank || ref.entries == 0 {
			continue
		}
		var err error
		seg := b.recv[s][ref.off : ref.off+ref.size]
		if pass == passCount {
			err = b.countSegment(seg, ref.entries, base, rows)
		} else {
			err = b.fillSegment(seg, ref.entries, base, rows)
		}
		if err != nil {
			return fmt.Errorf("graph: kernel 1: message from rank %d, bucket %d: %w", s, j, err)
		}
	}
	return nil
}

func (b *builder[C]) degreeOverflow(l uint64) error {
	return fmt.Errorf("graph: kernel 1: vertex %d of rank %d has more half-edges than a uint32 TupleDegree holds",
		b.first+int64(l), b.rank)
}

// countSegment adds a segment's rows to the row lengths of bucket rows
// [base, base+rows).
func (b *builder[C]) countSegment(seg []byte, entries int, base, rows uint64) error {
	d, err := newSegmentDecoder(seg, entries, b.lay.rowCap, 0)
	if err != nil {
		return err
	}
	deg := b.degree[base : base+rows]
	var ls, vs [decodeBatchSize]uint64
	for d.left > 0 {
		k, err := d.decodeBatch(ls[:], vs[:])
		if err != nil {
			return err
		}
		for _, l := range ls[:k] {
			if l >= rows {
				return fmt.Errorf("%w: row %d beyond the rank's rows", errRoute, base+l)
			}
			if deg[l] == math.MaxUint32 {
				return b.degreeOverflow(base + l)
			}
			deg[l]++
		}
	}
	return d.done()
}

// decodeBatchSize is how many entries a received segment is decoded by at
// a time: a batch stays in the first-level cache.
const decodeBatchSize = 256

// fillSegment writes a segment's neighbours into their rows' next slots.
func (b *builder[C]) fillSegment(seg []byte, entries int, base, rows uint64) error {
	d, err := newSegmentDecoder(seg, entries, b.lay.rowCap, b.lay.w)
	if err != nil {
		return err
	}
	cur := b.offsets[base : base+rows]
	n := uint64(b.lay.n)
	first := uint64(b.first) + base
	var ls, vs [decodeBatchSize]uint64
	for d.left > 0 {
		k, err := d.decodeBatch(ls[:], vs[:])
		if err != nil {
			return err
		}
		for e, l := range ls[:k] {
			v := vs[e]
			if b.grid != nil { // 2D: a local column of an existing vertex, not the row's own
				if l >= rows || v >= 1<<32 {
					return fmt.Errorf("%w: entry (%d,%d) out of range", errRoute, base+l, v)
				}
				if ok, loop := b.grid.check(uint32(base+l), uint32(v)); !ok || loop {
					return fmt.Errorf("%w: entry (%d,%d) is out of range or a self-loop", errRoute, base+l, v)
				}
			} else if l >= rows || v >= n || v == first+l {
				return fmt.Errorf("%w: half-edge (%d,%d) is out of range or a self-loop", errRoute, first+l, v)
			}
			// The fill pass must repeat the count pass; a row that gets more
			// half-edges than it counted runs into the next row, which
			// checkFilled reports, or past the end, caught here.
			x := cur[l]
			if x >= int64(len(b.cols)) {
				return fmt.Errorf("%w: more half-edges than the counting pass announced", errRoute)
			}
			b.cols[x] = ^C(v)
			cur[l] = x + 1
		}
	}
	return d.done()
}
