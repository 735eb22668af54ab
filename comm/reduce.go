package comm

import (
	"fmt"
	"math"
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
func ReduceInt64(acc, x []int64, op Op) {
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

// ReduceFloat64 combines x into acc element by element with op. Backends
// combine ranks in rank order so that every rank gets the same bits.
func ReduceFloat64(acc, x []float64, op Op) {
	switch op {
	case Sum:
		for i, v := range x {
			acc[i] += v
		}
	case Max:
		for i, v := range x {
			acc[i] = math.Max(acc[i], v)
		}
	case Min:
		for i, v := range x {
			acc[i] = math.Min(acc[i], v)
		}
	}
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

func (k Collective) String() string {
	switch k {
	case CollectiveAlltoallv:
		return "Alltoallv"
	case CollectiveAllgatherv:
		return "Allgatherv"
	case CollectiveAllreduceInt64:
		return "AllreduceInt64"
	case CollectiveAllreduceFloat64:
		return "AllreduceFloat64"
	case CollectiveBcast:
		return "Bcast"
	case CollectiveBarrier:
		return "Barrier"
	}
	return fmt.Sprintf("collective(%d)", uint8(k))
}
