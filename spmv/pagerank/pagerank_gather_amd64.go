//go:build amd64 && !purego

// The processor check and declarations of the AVX2 long-column sums
// (pagerank_gather_amd64.s); build with -tags purego for the Go loop alone.

package pagerank

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// gatherColumns reports whether the processor has AVX2 gathers for long
// columns (longColumnSumAVX2; columnRuns.gathers decides per matrix
// whether they are used). It is fixed at start-up, and the sums are the same bits
// either way.
var gatherColumns = cpu.X86.HasAVX2

// longColumnSumAVX2 is longColumnSumGo with four sources gathered per
// instruction (pagerank_gather_amd64.s); x must hold every source's value.
//
//go:noescape
func longColumnSumAVX2(col []uint32, x unsafe.Pointer) float64

// weightedLongColumnSumAVX2 is weightedLongColumnSumGo with four sources
// gathered per instruction (pagerank_gather_amd64.s); ws must hold a
// weight per source and x every source's value.
//
//go:noescape
func weightedLongColumnSumAVX2(col []uint32, ws, x unsafe.Pointer) float64
