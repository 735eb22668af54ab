package graph500

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Bytes per input tuple at the run's peak (kernel 1): the generated tuple
// list (16 B), the routed half-edges in the send and receive buffers (2×12 B
// each) and the CSR under construction (two 4- or 8-byte column entries plus
// the unsorted copy). Measured peak RSS divided by tuples at scale 20 and 22
// is below this; see BENCHMARKS.md.
const (
	bytesPerTuple32 = 16 + 24 + 24 + 16
	bytesPerTuple64 = 16 + 24 + 24 + 32
	// bytesPerVertex: offsets (8), tuple degree (4), parent (8), level (4),
	// validation depth and children (≈16), bitmaps.
	bytesPerVertex = 40
	baseBytes      = 64 << 20
)

// EstimateBytes returns the memory a run of this scale and edgefactor needs
// in one process holding all ranks.
func EstimateBytes(scale, edgefactor, ranks int) int64 {
	n := int64(1) << scale
	m := int64(edgefactor) * n
	perTuple := int64(bytesPerTuple32)
	if scale > 32 {
		perTuple = bytesPerTuple64
	}
	// Each rank keeps a global frontier bitmap of n bits.
	return baseBytes + m*perTuple + n*bytesPerVertex + int64(ranks)*n/8
}

// LargestScale returns the largest scale whose estimate fits in avail bytes
// (0 if none does).
func LargestScale(avail int64, edgefactor, ranks int) int {
	best := 0
	for s := 1; s <= 40; s++ {
		if EstimateBytes(s, edgefactor, ranks) <= avail {
			best = s
		}
	}
	return best
}

// AvailableMemory reads MemAvailable from /proc/meminfo (Linux). It returns
// an error where that is not known; callers then skip the guard.
func AvailableMemory() (int64, error) {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0, fmt.Errorf("available memory: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "MemAvailable:" {
			kb, err := strconv.ParseInt(fields[1], 10, 64)
			if err != nil {
				return 0, fmt.Errorf("available memory: /proc/meminfo: %w", err)
			}
			return kb * 1024, nil
		}
	}
	if err := sc.Err(); err != nil {
		return 0, fmt.Errorf("available memory: %w", err)
	}
	return 0, fmt.Errorf("available memory: no MemAvailable in /proc/meminfo")
}

// bytesPerTuple2D is what a 2D run holds per input tuple on top of a 1D
// run's peak: the 2D blocks (each half-edge by rows and by columns, 4 bytes
// each), which stay while the 1D CSR for validation is built.
const bytesPerTuple2D = 16

// EstimateBytes2D is EstimateBytes for a run on the 2D partition: the 1D
// estimate (the validation CSR is built as in 1D) plus the blocks and their
// row and column bitmaps.
func EstimateBytes2D(scale, edgefactor, ranks int) int64 {
	n := int64(1) << scale
	m := int64(edgefactor) * n
	return EstimateBytes(scale, edgefactor, ranks) + m*bytesPerTuple2D + 2*n/8*int64(ranks)
}
