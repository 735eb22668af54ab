// This file is the streamed input of PageRank's set-up (Kylix §VII: a
// rank's share of an edge list, which the set-up reads twice — once for the
// distinct vertex ids, once to route the relabelled edges — without ever
// holding the share whole): EdgeShare, the edges already in memory
// (EdgeChunks), and how an input's items are split over the ranks
// (ShareStart). A rank's share of an edge-list file is edgelist.FileShare.

package graph

import (
	"context"
	"math/bits"
)

// EdgeShare is one rank's share of an input's edges, read from the start
// as many times as a consumer needs.
type EdgeShare interface {
	// Scan hands the share's edges to emit in consecutive chunks, the same
	// edges in the same order on every call. A chunk is only valid during
	// the call: emit must copy what it keeps. Scan stops at the first
	// error of emit, of the input, or of ctx (checked at least once per
	// chunk), and returns it.
	Scan(ctx context.Context, emit func([]Edge) error) error
}

// ScanChunk is the largest chunk an in-memory share hands to emit.
const ScanChunk = 1 << 16

// EdgeChunks is a share held in memory, as one or more slices of edges in
// order (a share received in pieces needs no copy into one slice).
type EdgeChunks [][]Edge

// Scan hands the edges to emit in chunks of at most ScanChunk edges.
func (s EdgeChunks) Scan(ctx context.Context, emit func([]Edge) error) error {
	for _, part := range s {
		for len(part) > 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
			n := min(len(part), ScanChunk)
			if err := emit(part[:n]); err != nil {
				return err
			}
			part = part[n:]
		}
	}
	return ctx.Err()
}

// ShareStart is the index of the first of n items (edges, lines, bytes,
// ids) held by rank r when size ranks split them evenly in order: rank r
// holds [ShareStart(n, r, size), ShareStart(n, r+1, size)), that is
// ⌊n·r/size⌋ onwards, computed without overflow.
func ShareStart(n int64, r, size int) int64 {
	hi, lo := bits.Mul64(uint64(n), uint64(r))
	q, _ := bits.Div64(hi, lo, uint64(size))
	return int64(q)
}
