// This file holds the element types and reduction functions of the dense
// allreduce family (dense.go) and the shared variables (shared.go). The
// reduction takes whole sub-vectors, acc ⊕= x element by element, which is
// the pairwise form Li et al. §3.2 asks of its users so that the framework
// can cut a vector into chunks and reduce them on several cores at once
// (§3.3).
//
// Reference: Zhenyu Li, James A. Davis and Stephen A. Jarvis, "An Efficient
// Task-based All-Reduce for Machine Learning Applications", Machine
// Learning on HPC Environments workshop (MLHPC'17), ACM, 2017.

package hypercube

import (
	"encoding/binary"
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
// bytes: each element's memory in little-endian order, one width dispatch
// per call.
func encodeElems[T Elem](dst []byte, src []T) {
	mem := asBytes(src)
	if elemSize[T]() == 8 {
		for i := 0; i+8 <= len(mem); i += 8 {
			binary.LittleEndian.PutUint64(dst[i:], binary.NativeEndian.Uint64(mem[i:]))
		}
		return
	}
	for i := 0; i+4 <= len(mem); i += 4 {
		binary.LittleEndian.PutUint32(dst[i:], binary.NativeEndian.Uint32(mem[i:]))
	}
}

// decodeElems reads len(dst) elements from src, which has exactly
// elemSize·len(dst) bytes (encodeElems's inverse).
func decodeElems[T Elem](dst []T, src []byte) {
	mem := asBytes(dst)
	if elemSize[T]() == 8 {
		for i := 0; i+8 <= len(mem); i += 8 {
			binary.NativeEndian.PutUint64(mem[i:], binary.LittleEndian.Uint64(src[i:]))
		}
		return
	}
	for i := 0; i+4 <= len(mem); i += 4 {
		binary.NativeEndian.PutUint32(mem[i:], binary.LittleEndian.Uint32(src[i:]))
	}
}
