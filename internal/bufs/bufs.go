// Package bufs holds the buffer-reuse helpers of graphrun's transports:
// callers hand received buffers back, and these keep their capacity.
package bufs

// RecvSlices returns recv if it has one buffer per rank, else a new slice.
func RecvSlices(recv [][]byte, p int) [][]byte {
	if len(recv) == p {
		return recv
	}
	return make([][]byte, p)
}

// CopyInto returns a copy of src, stored in dst's array if it has the capacity.
func CopyInto(dst, src []byte) []byte {
	if cap(dst) >= len(src) {
		dst = dst[:len(src)]
	} else {
		dst = make([]byte, len(src))
	}
	copy(dst, src)
	return dst
}

// Resize returns a slice of length n, reusing buf's capacity.
func Resize[T any](buf []T, n int) []T {
	if cap(buf) >= n {
		return buf[:n]
	}
	return make([]T, n)
}
