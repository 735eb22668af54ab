//go:build !amd64 || purego

package pagerank

import "unsafe"

// gatherColumns is false off amd64 and with the purego build tag: long
// columns are summed in Go.
const gatherColumns = false

// longColumnSumAVX2 is never called here; it sums as longColumnSumGo.
func longColumnSumAVX2(col []uint32, x unsafe.Pointer) float64 { return longColumnSumGo(col, x) }

// weightedLongColumnSumAVX2 is never called here; it sums as
// weightedLongColumnSumGo.
func weightedLongColumnSumAVX2(col []uint32, ws, x unsafe.Pointer) float64 {
	return weightedLongColumnSumGo(col, ws, x)
}
