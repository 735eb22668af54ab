//go:build linux

package pagerank

import (
	"os"
	"syscall"
	"unsafe"
)

// releasePages hands the whole pages of b back to the operating system
// (madvise MADV_DONTNEED): the caller reads no element of b again, and a
// page read after this reads as zeros. b is part of a live Go array without
// pointers, which the runtime zeroes again before it reuses the memory.
func releasePages(b []uint32) {
	if len(b) == 0 {
		return
	}
	bs := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(b))), 4*len(b))
	ps := uintptr(os.Getpagesize())
	skip := int((ps - uintptr(unsafe.Pointer(unsafe.SliceData(bs)))%ps) % ps)
	if skip >= len(bs) {
		return
	}
	bs = bs[skip:]
	bs = bs[:len(bs)/int(ps)*int(ps)]
	if len(bs) > 0 {
		_ = syscall.Madvise(bs, syscall.MADV_DONTNEED) // a failure leaves the pages resident: no harm
	}
}
