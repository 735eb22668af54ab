// Package radix sorts 64-bit keys in place: a most-significant-digit radix
// sort whose buckets are permuted by cycles (McIlroy, Bostic and McIlroy's
// "American flag sort"), so it needs no second array of the keys' size —
// what PageRank's set-up (Kylix §VII: the rank's edges sorted into a
// pull matrix) and its streamed relabelling need to keep their peak memory
// at the edges themselves.
//
// A level reads the keys once to count a digit and moves each key at most
// once; buckets are then sorted independently, one level down, which is
// where the goroutines come in: the buckets of the first level are shared
// among them. A bucket whose keys all share the digit is not moved, and
// short buckets are finished by insertion sort. The order of equal keys is
// not kept — equal keys are equal words, so the result is the unique sorted
// array and does not depend on the number of goroutines.
//
// Peter M. McIlroy, Keith Bostic and M. Douglas McIlroy, "Engineering Radix
// Sort", Computing Systems 6(1), 1993. Kylix is cited in full in
// REFERENCES.md at the repository root.
package radix

import (
	"math/bits"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/graphrun/graphrun/internal/parallel"
)

// maxDigitBits is the widest digit: 256 buckets. Wider digits mean fewer
// levels but more streams for the moves of a level to write into at once:
// on a large array every bucket head sits on its own page, and measured on
// 2^25 keys a level of 11 bits moved a key in 30 ns, one of 8 bits in 18
// (cycle-following; the grouped moves below take 2.7 ns at 2^22 keys).
// A level takes the digit that cuts its keys into buckets of about
// aimBucket, so a large array goes down 8 bits at a time and a small
// bucket only a few bits.
const maxDigitBits = 8

// A level over more than largeLevel keys (32 MiB) takes at most
// largeDigitBits: its bucket heads each sit on a page of their own, and
// fewer of them miss the TLB less. Sorting 2^25 keys of 42 bits on 2
// threads, alternating builds: 495–672 ms (median 502) with 7 bits at the
// top, 548–740 (median 605) with 6, about 950 with 8.
const (
	largeLevel     = 1 << 22
	largeDigitBits = 7
)

// smallBucket is the length at or below which a bucket is
// insertion-sorted.
const smallBucket = 16

// aimBucket is the bucket length a level aims at: a few keys, which the
// next level's insertion sort orders with few moves and few mispredicted
// branches (measured: 46% of the sort's time went to insertion sorts of
// about 8 keys when levels aimed at smallBucket).
const aimBucket = 4

// parallelMin is the fewest keys worth more than one goroutine.
const parallelMin = 1 << 16

// Sort sorts keys ascending in place. Every set bit of every key must be
// below bit width (width ≥ 64 means any key); a smaller width saves the
// levels of the always-zero top digits. threads goroutines share the work
// (at least one).
func Sort(keys []uint64, width uint, threads int) {
	width = min(width, 64)
	if len(keys) < 2 || width == 0 {
		return
	}
	threads = max(1, min(threads, len(keys)/parallelMin+1))
	if threads == 1 {
		var s sorter
		s.sort(keys, width, 0)
		return
	}
	// The first level: digits counted by all goroutines, keys moved by one.
	var s sorter
	for {
		d := digitFor(len(keys), width)
		shift := width - d
		nb := 1 << d
		counts := s.scratch(nb)
		parts := make([][]int, threads)
		parallel.For(threads, func(t int) {
			lo, hi := parallel.Span(len(keys), t, threads)
			parts[t] = make([]int, nb)
			countDigits(keys[lo:hi], shift, d, parts[t])
		})
		for _, part := range parts {
			for b, c := range part {
				counts[b] += c
			}
		}
		starts := s.level(0, nb)
		if !s.permute(keys, shift, d, starts) {
			if shift == 0 {
				return
			}
			width = shift // one bucket holds everything: go down a digit
			continue
		}
		if shift == 0 {
			return
		}
		// The buckets, largest first, to the goroutines.
		order := make([]int, 0, nb)
		for b := range nb {
			if starts[b+1]-starts[b] > 1 {
				order = append(order, b)
			}
		}
		slices.SortFunc(order, func(a, b int) int { return (starts[b+1] - starts[b]) - (starts[a+1] - starts[a]) })
		var next atomic.Int64
		var wg sync.WaitGroup
		for range threads {
			wg.Go(func() {
				var ws sorter
				for {
					i := int(next.Add(1) - 1)
					if i >= len(order) {
						return
					}
					b := order[i]
					ws.sort(keys[starts[b]:starts[b+1]], shift, 0)
				}
			})
		}
		wg.Wait()
		return
	}
}

// digitFor returns the digit width of a level over n keys whose set bits
// are below width: enough bits to cut n into buckets of about aimBucket,
// at most maxDigitBits and width.
func digitFor(n int, width uint) uint {
	d := uint(bits.Len(uint(n / aimBucket)))
	if n > largeLevel {
		d = min(d, largeDigitBits)
	}
	return max(1, min(d, maxDigitBits, width))
}

// sorter is one goroutine's reusable counters: one array of bucket starts
// per recursion depth, and the counters and heads of the level being
// permuted.
type sorter struct {
	starts [][]int
	counts []int
	heads  []int
}

// scratch returns the zeroed counters of a level of nb buckets.
func (s *sorter) scratch(nb int) []int {
	if len(s.counts) < nb {
		s.counts = make([]int, 1<<maxDigitBits)
		s.heads = make([]int, 1<<maxDigitBits)
	}
	c := s.counts[:nb]
	clear(c)
	return c
}

// level returns the bucket starts of recursion depth depth, nb+1 entries.
func (s *sorter) level(depth, nb int) []int {
	for len(s.starts) <= depth {
		s.starts = append(s.starts, make([]int, 1<<maxDigitBits+1))
	}
	return s.starts[depth][:nb+1]
}

// sort sorts keys, whose set bits are all below bit width, on this
// goroutine; depth is the recursion depth.
func (s *sorter) sort(keys []uint64, width uint, depth int) {
	for {
		if len(keys) <= smallBucket {
			insertion(keys)
			return
		}
		d := digitFor(len(keys), width)
		shift := width - d
		nb := 1 << d
		countDigits(keys, shift, d, s.scratch(nb))
		starts := s.level(depth, nb)
		if !s.permute(keys, shift, d, starts) {
			if shift == 0 {
				return // all keys equal
			}
			width = shift // one bucket: go down a digit without moving
			continue
		}
		if shift == 0 {
			return
		}
		for b := range nb {
			if lo, hi := starts[b], starts[b+1]; hi-lo > 1 {
				s.sort(keys[lo:hi], shift, depth+1)
			}
		}
		return
	}
}

// countDigits adds the count of each digit value (d bits at shift) of keys
// to counts.
func countDigits(keys []uint64, shift, d uint, counts []int) {
	mask := uint64(1)<<d - 1
	counts = counts[:mask+1]
	for _, k := range keys {
		counts[k>>shift&mask]++
	}
}

// permute moves every key to the bucket of its digit (d bits at shift),
// given the digit counts in s.counts, and sets starts[b] to where bucket b
// begins (starts[1<<d] = len(keys)). It returns false, moving nothing,
// when one bucket holds every key.
func (s *sorter) permute(keys []uint64, shift, d uint, starts []int) bool {
	nb := 1 << d
	counts, heads := s.counts[:nb], s.heads[:nb]
	sum := 0
	for b, c := range counts {
		if c == len(keys) {
			return false
		}
		starts[b] = sum
		heads[b] = sum
		sum += c
	}
	starts[nb] = sum
	mask := uint64(1)<<d - 1
	// Each step puts the key at the front of bucket b's unplaced part at
	// the head of its own bucket and takes the key that was there. Four
	// steps at a time, on four consecutive positions, keep four loads in
	// flight (a cycle-following loop waits for each key's load before the
	// next): a position h+k can only be written by an earlier step of the
	// group if that step's bucket is b, whose head is then at most h+k−1,
	// so the keys loaded at the start of the group are still there.
	for b := range nb {
		end := starts[b+1]
		for h := heads[b]; h < end; h = heads[b] {
			if h+4 <= end {
				v0, v1, v2, v3 := keys[h], keys[h+1], keys[h+2], keys[h+3]
				t := v0 >> shift & mask
				j := heads[t]
				heads[t] = j + 1
				keys[h] = keys[j]
				keys[j] = v0
				t = v1 >> shift & mask
				j = heads[t]
				heads[t] = j + 1
				keys[h+1] = keys[j]
				keys[j] = v1
				t = v2 >> shift & mask
				j = heads[t]
				heads[t] = j + 1
				keys[h+2] = keys[j]
				keys[j] = v2
				t = v3 >> shift & mask
				j = heads[t]
				heads[t] = j + 1
				keys[h+3] = keys[j]
				keys[j] = v3
				continue
			}
			v := keys[h]
			t := v >> shift & mask
			j := heads[t]
			heads[t] = j + 1
			keys[h] = keys[j]
			keys[j] = v
		}
	}
	return true
}

// insertion sorts a short slice.
func insertion(keys []uint64) {
	for i := 1; i < len(keys); i++ {
		v := keys[i]
		j := i
		for ; j > 0 && keys[j-1] > v; j-- {
			keys[j] = keys[j-1]
		}
		keys[j] = v
	}
}

// Width returns the bits needed by keys up to max: the width to pass to
// Sort.
func Width(max uint64) uint { return uint(bits.Len64(max)) }

// Dedupe removes adjacent repeats from sorted keys in place and returns the
// distinct keys.
func Dedupe(keys []uint64) []uint64 {
	if len(keys) == 0 {
		return keys
	}
	w := 1
	for _, k := range keys[1:] {
		if k != keys[w-1] {
			keys[w] = k
			w++
		}
	}
	return keys[:w]
}
