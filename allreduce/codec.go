package allreduce

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// ErrCorrupt is wrapped by every error about a message that does not decode.
var ErrCorrupt = errors.New("allreduce: corrupt message")

// appendConfig appends a configuration message: the OUT part, then the IN
// part, each a uvarint count and uvarint index deltas (the first from 0). Both
// parts empty give an empty message.
func appendConfig(buf []byte, out, in []int64) []byte {
	if len(out) == 0 && len(in) == 0 {
		return buf
	}
	buf = appendSet(buf, out)
	return appendSet(buf, in)
}

func appendSet(buf []byte, set []int64) []byte {
	buf = binary.AppendUvarint(buf, uint64(len(set)))
	prev := int64(0)
	for _, x := range set {
		buf = binary.AppendUvarint(buf, uint64(x-prev))
		prev = x
	}
	return buf
}

// decodeConfig decodes a configuration message for indices in [0, n) and
// returns the OUT and IN parts and the bytes after them.
func decodeConfig(data []byte, n int64) (out, in []int64, rest []byte, err error) {
	if len(data) == 0 {
		return nil, nil, nil, nil
	}
	out, data, err = decodeSet(data, n)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("out part: %w", err)
	}
	in, data, err = decodeSet(data, n)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("in part: %w", err)
	}
	return out, in, data, nil
}

// decodeSet decodes one count-prefixed, delta-encoded, strictly increasing
// index list in [0, n).
func decodeSet(data []byte, n int64) ([]int64, []byte, error) {
	cnt, k := binary.Uvarint(data)
	if k <= 0 {
		return nil, nil, fmt.Errorf("%w: bad count varint", ErrCorrupt)
	}
	data = data[k:]
	// Every index takes at least one byte, and there are at most n of them.
	if cnt > uint64(len(data)) || cnt > uint64(n) {
		return nil, nil, fmt.Errorf("%w: count %d with %d bytes left and n = %d", ErrCorrupt, cnt, len(data), n)
	}
	set := make([]int64, cnt)
	prev := int64(0)
	for t := range set {
		delta, k := binary.Uvarint(data)
		if k <= 0 {
			return nil, nil, fmt.Errorf("%w: bad index varint at %d of %d", ErrCorrupt, t, cnt)
		}
		data = data[k:]
		if t > 0 && delta == 0 {
			return nil, nil, fmt.Errorf("%w: index %d repeated", ErrCorrupt, prev)
		}
		if delta >= uint64(n-prev) {
			return nil, nil, fmt.Errorf("%w: index %d+%d out of range [0, %d)", ErrCorrupt, prev, delta, n)
		}
		prev += int64(delta)
		set[t] = prev
	}
	return set, data, nil
}

// appendValues appends vals[pos] for every pos, as little-endian float64.
func appendValues(buf []byte, vals []float64, pos []int32) []byte {
	for _, p := range pos {
		buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(vals[p]))
	}
	return buf
}

// appendFloats appends vals as little-endian float64.
func appendFloats(buf []byte, vals []float64) []byte {
	for _, v := range vals {
		buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(v))
	}
	return buf
}

// checkValues reports an error unless data holds exactly want float64s.
func checkValues(data []byte, want int) error {
	if len(data) != 8*want {
		return fmt.Errorf("%w: %d bytes of values, want %d values (%d bytes)", ErrCorrupt, len(data), want, 8*want)
	}
	return nil
}

// addValues adds the little-endian float64s of data to next at positions
// dst (data holds len(dst) of them, checked by the caller).
func addValues(next []float64, dst []int32, data []byte) {
	for t, d := range dst {
		next[d] += value(data, t)
	}
}

// value returns the t-th little-endian float64 of data.
func value(data []byte, t int) float64 {
	return math.Float64frombits(binary.LittleEndian.Uint64(data[8*t:]))
}
