package partition

// Fused execution of a grid-aligned placement (NumS's over-decomposition,
// run aggregated per process; the 2D partition of Lv et al. §VIII–IX). A
// B×B block grid cuts the vertices into B² pieces (piece k is in block row
// k/B and, the columns being strided, block column k mod B).
// When a process grid holds block rows in contiguous groups and block
// columns in any groups (PlaceLSHSFusable), the blocks of a process are
// exactly one block of the process grid of a graph whose vertices are
// renumbered so that the pieces of every process-grid piece are
// contiguous. SegmentOrder is such a renumbering: whole segments (here,
// pieces) move, and segments that share a destination keep their
// ascending order, so that every column of the renumbered blocks lists
// its vertices in the original order and the 2D engine's largest-parent
// scans pick the parents they pick on the original graph.

import (
	"fmt"
	"slices"
)

// SegmentOrder renumbers the vertices [0, N) cut into len(To) segments of
// Size vertices: original segment s becomes segment To[s] of the new order,
// and new segment t holds original segment From[t].
type SegmentOrder struct {
	N    int64
	Size int64
	To   []int
	From []int
}

// NewSegmentOrder returns the order that lays out groups one after
// another, each group's segments in ascending order. groups must hold
// every segment of [0, len) exactly once, and len must divide n.
func NewSegmentOrder(n int64, groups [][]int) (*SegmentOrder, error) {
	segments := 0
	for _, g := range groups {
		segments += len(g)
	}
	if segments == 0 || n%int64(segments) != 0 {
		return nil, fmt.Errorf("partition: %d segments do not cut %d vertices evenly", segments, n)
	}
	o := &SegmentOrder{N: n, Size: n / int64(segments), To: make([]int, segments), From: make([]int, 0, segments)}
	seen := make([]bool, segments)
	for _, g := range groups {
		g = slices.Sorted(slices.Values(g))
		for _, s := range g {
			if s < 0 || s >= segments || seen[s] {
				return nil, fmt.Errorf("partition: segment %d is not one of %d or appears twice in %v", s, segments, groups)
			}
			seen[s] = true
			o.To[s] = len(o.From)
			o.From = append(o.From, s)
		}
	}
	return o, nil
}

// New returns the new id of original vertex v.
func (o *SegmentOrder) New(v int64) int64 {
	return int64(o.To[v/o.Size])*o.Size + v%o.Size
}

// Original returns the original id of new vertex v.
func (o *SegmentOrder) Original(v int64) int64 {
	return int64(o.From[v/o.Size])*o.Size + v%o.Size
}

// Runs calls fn for every maximal range of new ids [lo, hi) inside
// [first, end) whose original ids are contiguous, in new order, with the
// original id of lo.
func (o *SegmentOrder) Runs(first, end int64, fn func(lo, hi, original int64)) {
	for lo := first; lo < end; {
		hi := min(end, (lo/o.Size+1)*o.Size)
		// Extend across segments that follow each other in both orders.
		for hi < end && o.Original(hi) == o.Original(hi-1)+1 {
			hi = min(end, (hi/o.Size+1)*o.Size)
		}
		fn(lo, hi, o.Original(lo))
		lo = hi
	}
}
