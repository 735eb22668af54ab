package graph

import (
	"context"
	"fmt"
)

// TupleSource is one rank's share of the input tuples, read in chunks as
// many times as a consumer needs: kernel 1 (BuildUndirectedFrom) reads it
// twice, once to count the rows and once to fill them, so that the tuple list
// never exists whole. Graph500's generator is counter-based, so a
// generated share costs no memory at all (gen/kronecker); an EdgeSlice serves
// tuples already in memory.
//
// Implementations dispatch once per chunk; a chunk is typically 2^14 to 2^20
// tuples.
type TupleSource interface {
	// Len is the number of tuples in this rank's share.
	Len() int64
	// Read writes tuples [first, first+len(out)) of the share to out, the
	// same tuples every time it is asked for them. It returns ctx's error if
	// ctx is done.
	Read(ctx context.Context, first int64, out []Edge) error
}

// EdgeSlice is a TupleSource over tuples held in memory.
type EdgeSlice []Edge

// Len returns the number of tuples.
func (s EdgeSlice) Len() int64 { return int64(len(s)) }

// Read copies tuples [first, first+len(out)).
func (s EdgeSlice) Read(ctx context.Context, first int64, out []Edge) error {
	if first < 0 || first+int64(len(out)) > int64(len(s)) {
		return fmt.Errorf("graph: read of tuples [%d, %d) from a share of %d", first, first+int64(len(out)), len(s))
	}
	copy(out, s[first:])
	return ctx.Err()
}
