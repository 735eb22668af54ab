package comm

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/graphrun/graphrun/internal/enum"
)

// Check reports whether o is one of the built-in operators.
func (o Op) Check() error {
	switch o {
	case Sum, Max, Min:
		return nil
	}
	return fmt.Errorf("unknown reduction operator %s", o)
}

// ReduceInt64 combines x into acc element by element with op. Backends use
// it to implement AllreduceInt64.
func ReduceInt64(acc, x []int64, op Op) { reduceValues(acc, x, op) }

// ReduceFloat64 combines x into acc element by element with op. Backends
// combine ranks in rank order so that every rank gets the same bits.
func ReduceFloat64(acc, x []float64, op Op) { reduceValues(acc, x, op) }

// reduceValues is ReduceInt64 and ReduceFloat64 (int64 and float64 have
// different GC shapes, so each gets its own compiled loops). The builtin
// max and min treat NaN and signed zeros as math.Max and math.Min do.
func reduceValues[T int64 | float64](acc, x []T, op Op) {
	switch op {
	case Sum:
		for i, v := range x {
			acc[i] += v
		}
	case Max:
		for i, v := range x {
			acc[i] = max(acc[i], v)
		}
	case Min:
		for i, v := range x {
			acc[i] = min(acc[i], v)
		}
	}
}

// Allreduce values travel between ranks as 8 bytes each, little-endian:
// an int64's two's complement, a float64's IEEE 754 bits. These helpers
// are that encoding, for every backend and for Sub.

// AppendInt64s appends vals to dst, 8 bytes each.
func AppendInt64s(dst []byte, vals []int64) []byte {
	for _, v := range vals {
		dst = binary.LittleEndian.AppendUint64(dst, uint64(v))
	}
	return dst
}

// DecodeInt64s decodes len(dst) values of b into dst.
func DecodeInt64s(dst []int64, b []byte) {
	for i := range dst {
		dst[i] = int64(binary.LittleEndian.Uint64(b[8*i:]))
	}
}

// ReduceInt64Bytes combines the len(acc) encoded values of b into acc with
// op, as ReduceInt64.
func ReduceInt64Bytes(acc []int64, b []byte, op Op) {
	b = b[:8*len(acc)]
	switch op {
	case Sum:
		for i := range acc {
			acc[i] += int64(binary.LittleEndian.Uint64(b[8*i:]))
		}
	case Max:
		for i := range acc {
			acc[i] = max(acc[i], int64(binary.LittleEndian.Uint64(b[8*i:])))
		}
	case Min:
		for i := range acc {
			acc[i] = min(acc[i], int64(binary.LittleEndian.Uint64(b[8*i:])))
		}
	}
}

// AppendFloat64s appends vals to dst, 8 bytes each.
func AppendFloat64s(dst []byte, vals []float64) []byte {
	for _, v := range vals {
		dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(v))
	}
	return dst
}

// DecodeFloat64s decodes len(dst) values of b into dst.
func DecodeFloat64s(dst []float64, b []byte) {
	for i := range dst {
		dst[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
	}
}

// ReduceFloat64Bytes combines the len(acc) encoded values of b into acc
// with op, as ReduceFloat64.
func ReduceFloat64Bytes(acc []float64, b []byte, op Op) {
	b = b[:8*len(acc)]
	switch op {
	case Sum:
		for i := range acc {
			acc[i] += math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
		}
	case Max:
		for i := range acc {
			acc[i] = math.Max(acc[i], math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:])))
		}
	case Min:
		for i := range acc {
			acc[i] = math.Min(acc[i], math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:])))
		}
	}
}

// ValueCodec is how an allreduce's values of one type travel and combine,
// for the backends' and Sub's allreduces written once for both types: each
// function handles a whole vector, so the loops over values are the
// type's own.
type ValueCodec[T int64 | float64] struct {
	Encode      func(dst []byte, vals []T) []byte // append vals, 8 bytes each, little-endian
	Decode      func(dst []T, b []byte)           // the inverse of Encode into dst
	Reduce      func(acc, vals []T, op Op)        // acc[i] = op(acc[i], vals[i])
	ReduceBytes func(acc []T, b []byte, op Op)    // the same with encoded vals
}

// Int64Values is the ValueCodec of AllreduceInt64.
func Int64Values() ValueCodec[int64] {
	return ValueCodec[int64]{Encode: AppendInt64s, Decode: DecodeInt64s, Reduce: ReduceInt64, ReduceBytes: ReduceInt64Bytes}
}

// Float64Values is the ValueCodec of AllreduceFloat64.
func Float64Values() ValueCodec[float64] {
	return ValueCodec[float64]{Encode: AppendFloat64s, Decode: DecodeFloat64s, Reduce: ReduceFloat64, ReduceBytes: ReduceFloat64Bytes}
}

// PeerMessages is the message count the counters record for a payload of n
// bytes (or elements) sent to each of the p−1 other ranks: empty payloads
// are not messages.
func PeerMessages(n, p int) int64 {
	if n == 0 {
		return 0
	}
	return int64(p - 1)
}

// Collective names a collective operation; backends compare it across ranks
// to detect ranks calling different collectives.
type Collective uint8

// Collectives.
const (
	CollectiveAlltoallv Collective = iota + 1
	CollectiveAllgatherv
	CollectiveAllreduceInt64
	CollectiveAllreduceFloat64
	CollectiveBcast
	CollectiveBarrier
)

// collectiveNames are the Collectives' names (enum.Name).
var collectiveNames = [...]string{
	CollectiveAlltoallv:        "Alltoallv",
	CollectiveAllgatherv:       "Allgatherv",
	CollectiveAllreduceInt64:   "AllreduceInt64",
	CollectiveAllreduceFloat64: "AllreduceFloat64",
	CollectiveBcast:            "Bcast",
	CollectiveBarrier:          "Barrier",
}

func (k Collective) String() string { return enum.Name(collectiveNames[:], "collective", k) }
