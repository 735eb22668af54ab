// This file holds the element types and reduction functions of the dense
// allreduce family (dense.go) and the shared variables (shared.go). The
// reduction takes whole sub-vectors, acc ⊕= x element by element, which is
// the pairwise form paper 001 (Li, Davis and Jarvis, "An Efficient
// Task-based All-Reduce for Machine Learning Applications") §3.2 asks of its
// users so that the framework can cut a vector into chunks and reduce them
// on several cores at once (§3.3).

package allreduce

import (
	"encoding/binary"
	"math"
	"unsafe"
)

// hostLittleEndian is true on the machines graphrun targets (amd64, arm64,
// …): there the wire form of a vector is its memory, and messages are sent
// from and reduced out of the buffers without an encoding pass. A
// big-endian host encodes element by element.
var hostLittleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// asBytes is the memory of s (its wire form on a little-endian host).
func asBytes[T Elem](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*elemSize[T]())
}

// asElems views b as elements of T when its start is aligned for T (a
// little-endian host's wire form); ok is false otherwise.
func asElems[T Elem](b []byte) (v []T, ok bool) {
	size := elemSize[T]()
	if len(b)%size != 0 {
		return nil, false
	}
	if len(b) == 0 {
		return nil, true
	}
	p := unsafe.Pointer(unsafe.SliceData(b))
	if uintptr(p)%uintptr(size) != 0 {
		return nil, false
	}
	return unsafe.Slice((*T)(p), len(b)/size), true
}

// Elem is an element type the dense allreduce can carry. Elements travel as
// little-endian fixed-width values.
type Elem interface {
	float64 | float32 | int64 | int32 | uint64 | uint32
}

// Op is a reduction: it sets acc[i] = acc[i] ⊕ x[i] for every i, where ⊕ is
// associative and commutative. len(acc) == len(x). The allreduce calls it
// on sub-slices (chunks) of the vector, from several goroutines at once on
// disjoint chunks, so it must not keep the slices or depend on where a
// chunk starts. Sum, Min and Max are built in.
type Op[T Elem] func(acc, x []T)

// Sum adds x into acc.
func Sum[T Elem](acc, x []T) {
	x = x[:len(acc)]
	for i, v := range x {
		acc[i] += v
	}
}

// Min keeps the smaller of acc[i] and x[i] (for floats a NaN wins, as with
// math.Min).
func Min[T Elem](acc, x []T) {
	x = x[:len(acc)]
	for i, v := range x {
		acc[i] = min(acc[i], v)
	}
}

// Max keeps the larger of acc[i] and x[i] (for floats a NaN wins, as with
// math.Max).
func Max[T Elem](acc, x []T) {
	x = x[:len(acc)]
	for i, v := range x {
		acc[i] = max(acc[i], v)
	}
}

// elemSize is the wire size of one T in bytes.
func elemSize[T Elem]() int {
	var z T
	switch any(z).(type) {
	case float64, int64, uint64:
		return 8
	default:
		return 4
	}
}

// elemName names T (for error messages and the agreement check).
func elemName[T Elem]() string {
	var z T
	switch any(z).(type) {
	case float64:
		return "float64"
	case float32:
		return "float32"
	case int64:
		return "int64"
	case int32:
		return "int32"
	case uint64:
		return "uint64"
	default:
		return "uint32"
	}
}

// encodeElems writes src into dst, which has exactly elemSize·len(src)
// bytes. The type switch runs once per call, the loops are per element.
func encodeElems[T Elem](dst []byte, src []T) {
	switch s := any(src).(type) {
	case []float64:
		dst = dst[:8*len(s)]
		for i, v := range s {
			binary.LittleEndian.PutUint64(dst[8*i:], math.Float64bits(v))
		}
	case []int64:
		dst = dst[:8*len(s)]
		for i, v := range s {
			binary.LittleEndian.PutUint64(dst[8*i:], uint64(v))
		}
	case []uint64:
		dst = dst[:8*len(s)]
		for i, v := range s {
			binary.LittleEndian.PutUint64(dst[8*i:], v)
		}
	case []float32:
		dst = dst[:4*len(s)]
		for i, v := range s {
			binary.LittleEndian.PutUint32(dst[4*i:], math.Float32bits(v))
		}
	case []int32:
		dst = dst[:4*len(s)]
		for i, v := range s {
			binary.LittleEndian.PutUint32(dst[4*i:], uint32(v))
		}
	case []uint32:
		dst = dst[:4*len(s)]
		for i, v := range s {
			binary.LittleEndian.PutUint32(dst[4*i:], v)
		}
	}
}

// decodeElems reads len(dst) elements from src, which has exactly
// elemSize·len(dst) bytes.
func decodeElems[T Elem](dst []T, src []byte) {
	switch d := any(dst).(type) {
	case []float64:
		src = src[:8*len(d)]
		for i := range d {
			d[i] = math.Float64frombits(binary.LittleEndian.Uint64(src[8*i:]))
		}
	case []int64:
		src = src[:8*len(d)]
		for i := range d {
			d[i] = int64(binary.LittleEndian.Uint64(src[8*i:]))
		}
	case []uint64:
		src = src[:8*len(d)]
		for i := range d {
			d[i] = binary.LittleEndian.Uint64(src[8*i:])
		}
	case []float32:
		src = src[:4*len(d)]
		for i := range d {
			d[i] = math.Float32frombits(binary.LittleEndian.Uint32(src[4*i:]))
		}
	case []int32:
		src = src[:4*len(d)]
		for i := range d {
			d[i] = int32(binary.LittleEndian.Uint32(src[4*i:]))
		}
	case []uint32:
		src = src[:4*len(d)]
		for i := range d {
			d[i] = binary.LittleEndian.Uint32(src[4*i:])
		}
	}
}
