//go:build !linux

package pagerank

// releasePages is a no-op where madvise is not used: the pages stay
// resident until the array is collected.
func releasePages([]uint32) {}
