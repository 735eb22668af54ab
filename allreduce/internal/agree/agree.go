// Package agree is the agreement collective that the sparse allreduce
// (package allreduce) and the dense one (package hypercube) run before they
// trust their arguments: one small AllreduceInt64 by which every rank learns
// whether some rank failed locally and whether all ranks passed the same
// values (the control message allreduce of Zhang and Qiu §II, used as an
// arguments check).
package agree

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"

	"github.com/graphrun/graphrun/comm"
)

// ErrInvalid is the error the allreduces wrap for invalid arguments; both
// packages export it under their own name, so errors.Is matches either.
var ErrInvalid = errors.New("allreduce: invalid arguments")

// On is the arguments check of the allreduces on the agreement collective
// (All): the rank that failed gets its own localErr back, the others an
// error wrapping ErrInvalid; otherwise disagree is the position of the
// first value the ranks differ on, with the smallest and largest value
// passed, or −1.
func On(ctx context.Context, c comm.Comm, phase string, localErr error, vals ...int64) (disagree int, lo, hi int64, err error) {
	a, err := All(ctx, c, phase, localErr != nil, vals...)
	switch {
	case err != nil:
		return -1, 0, 0, fmt.Errorf("allreduce: agreement check: %w", err)
	case localErr != nil:
		return -1, 0, 0, localErr
	case a.Failed:
		return -1, 0, 0, fmt.Errorf("%w: another rank's arguments are invalid", ErrInvalid)
	}
	return a.Disagree, a.Lo, a.Hi, nil
}

// Agreement is what the agreement collective tells every rank: whether
// some rank failed, and the position of the first value the ranks passed
// differently (−1 if none) with its smallest and largest value.
type Agreement struct {
	Failed   bool
	Disagree int
	Lo, Hi   int64
}

// All is the agreement collective, one AllreduceInt64 of Max over
// [failed, v, −v, …] for the vals v (each in (−2^63, 2^63)). Its error is
// the collective's.
func All(ctx context.Context, c comm.Comm, phase string, failed bool, vals ...int64) (Agreement, error) {
	v := make([]int64, 1+2*len(vals))
	if failed {
		v[0] = 1
	}
	for i, x := range vals {
		v[1+2*i], v[2+2*i] = x, -x
	}
	if err := c.AllreduceInt64(ctx, phase, v, comm.Max); err != nil {
		return Agreement{}, err
	}
	a := Agreement{Failed: v[0] != 0, Disagree: -1}
	for i := range vals {
		if hi, lo := v[1+2*i], -v[2+2*i]; hi != lo {
			a.Disagree, a.Lo, a.Hi = i, lo, hi
			break
		}
	}
	return a, nil
}

// Hash62 is a 62-bit FNV-1a hash: a signature for All (it and its
// negation fit an int64).
func Hash62(s string) int64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return int64(h.Sum64() & (1<<62 - 1))
}
