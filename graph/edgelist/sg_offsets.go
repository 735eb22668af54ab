// The out-offsets of a gapbs .sg/.wsg file (sg.go), read on demand: a
// file that claims 2^28 vertices holds 2 GiB of offsets, which no rank
// reads whole. Each rank checks its near-equal slice of them (together the
// ranks check every one), finds where its entries start by a binary search
// of positioned reads, and reads the offsets its entries need through a
// window of sgOffsetWindow of them.

package edgelist

import (
	"encoding/binary"
	"io"
	"math"

	"github.com/graphrun/graphrun/graph"
)

// sgOffsetWindow is the number of offsets read at once.
const sgOffsetWindow = 1 << 13

// sgOffsets reads offsets 0..n of a .sg file whose offsets start at byte
// base.
type sgOffsets struct {
	ra   io.ReaderAt
	name string
	base int64
	n    int64
	lo   int64   // the window holds offsets [lo, lo+len(win))
	win  []int64 // of at most sgOffsetWindow
	buf  []byte
	err  error // the first read error or defect at met; it then returns math.MaxInt64
}

func newSGOffsets(ra io.ReaderAt, name string, base, n int64) *sgOffsets {
	return &sgOffsets{ra: ra, name: name, base: base, n: n}
}

// one reads offset u alone.
func (o *sgOffsets) one(u int64) (int64, error) {
	var b [8]byte
	if _, err := o.ra.ReadAt(b[:], o.base+8*u); err != nil {
		return 0, grbError(o.name, o.base+8*u, "read error: %w", err)
	}
	return int64(binary.LittleEndian.Uint64(b[:])), nil
}

// at returns offset u: from the window when it holds u, else through
// fill.
func (o *sgOffsets) at(u int64) int64 {
	if i := u - o.lo; i >= 0 && i < int64(len(o.win)) {
		return o.win[i]
	}
	return o.fill(u)
}

// fill reads the window that starts at u and returns offset u. On a read
// error, or u beyond n (offsets that decrease, in a slice another rank
// checks), it keeps the error for Err and returns math.MaxInt64, which
// ends a scan.
func (o *sgOffsets) fill(u int64) int64 {
	if o.err != nil {
		return math.MaxInt64
	}
	if u < 0 || u > o.n {
		o.err = grbError(o.name, o.base, "offsets decrease: vertex %d of %d reached", u, o.n)
		return math.MaxInt64
	}
	k := min(o.n+1-u, sgOffsetWindow)
	if o.buf == nil {
		o.buf = make([]byte, 8*sgOffsetWindow)
		o.win = make([]int64, 0, sgOffsetWindow)
	}
	if _, err := o.ra.ReadAt(o.buf[:8*k], o.base+8*u); err != nil {
		o.err, o.win = grbError(o.name, o.base+8*u, "read error: %w", err), o.win[:0]
		return math.MaxInt64
	}
	o.lo, o.win = u, o.win[:k]
	for i := range o.win {
		o.win[i] = int64(binary.LittleEndian.Uint64(o.buf[8*i:]))
	}
	return o.win[0]
}

// Err is the first error at met, naming the file.
func (o *sgOffsets) Err() error { return o.err }

// check checks that the offsets run from 0 to e, and that rank's slice of
// size of them never decreases.
func (o *sgOffsets) check(e int64, rank, size int) error {
	first, err := o.one(0)
	if err != nil {
		return err
	}
	last, err := o.one(o.n)
	if err != nil {
		return err
	}
	if first != 0 || last != e {
		return grbError(o.name, o.base, "offsets run from %d to %d, want 0 to %d", first, last, e)
	}
	lo, hi := graph.ShareStart(o.n, rank, size), graph.ShareStart(o.n, rank+1, size)
	for u := lo; u < hi; u++ {
		if next := o.at(u + 1); next < o.at(u) {
			return grbError(o.name, o.base+8*(u+1), "offsets decrease at vertex %d", u+1)
		}
		if err := o.Err(); err != nil {
			return err
		}
	}
	return nil
}

// vertexOf returns the vertex whose entries hold entry i: the last u with
// offset u ≤ i, found by a binary search of positioned reads.
func (o *sgOffsets) vertexOf(i int64) (int64, error) {
	a, b := int64(0), o.n
	for a < b {
		m := (a + b) / 2
		next, err := o.one(m + 1)
		if err != nil {
			return 0, err
		}
		if next <= i {
			a = m + 1
		} else {
			b = m
		}
	}
	return a, nil
}
