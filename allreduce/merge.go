package allreduce

import (
	"fmt"
	"math"
	"math/bits"
)

// homeOf returns the home rank of index i among p ranks: the hashed index
// space split into p equal ranges. The hash is the splitmix64 finalizer, a
// bijection of uint64, so distinct indices never collide before the split.
func homeOf(i int64, p int) int {
	x := uint64(i) + 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	x ^= x >> 31
	hi, _ := bits.Mul64(x, uint64(p))
	return int(hi)
}

// partition splits the sorted list by the layer digit (home/stride) mod
// parts of each index's home among p ranks, keeping list order: part k is
// flat[off[k]:off[k+1]], sorted, and perm[off[k]:off[k+1]] are the positions
// in list of its elements.
func partition(list []int64, p, stride, parts int) (flat []int64, perm []int32, off []int) {
	digits := make([]int32, len(list))
	off = make([]int, parts+1)
	for t, x := range list {
		d := homeOf(x, p) / stride % parts
		digits[t] = int32(d)
		off[d+1]++
	}
	for k := range parts {
		off[k+1] += off[k]
	}
	flat = make([]int64, len(list))
	perm = make([]int32, len(list))
	next := make([]int, parts)
	copy(next, off[:parts])
	for t, x := range list {
		d := digits[t]
		flat[next[d]] = x
		perm[next[d]] = int32(t)
		next[d]++
	}
	return flat, perm, off
}

// merge2 appends to dst the union of the sorted unique lists a and b and
// records where each element went: ma[t] is the position of a[t] in the
// union, mb likewise. It returns the union.
func merge2(dst, a, b []int64, ma, mb []int32) []int64 {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		pos := int32(len(dst))
		switch x, y := a[i], b[j]; {
		case x < y:
			ma[i] = pos
			dst = append(dst, x)
			i++
		case x > y:
			mb[j] = pos
			dst = append(dst, y)
			j++
		default:
			ma[i], mb[j] = pos, pos
			dst = append(dst, x)
			i++
			j++
		}
	}
	for ; i < len(a); i++ {
		ma[i] = int32(len(dst))
		dst = append(dst, a[i])
	}
	for ; j < len(b); j++ {
		mb[j] = int32(len(dst))
		dst = append(dst, b[j])
	}
	return dst
}

// treeMerge returns the union of the sorted unique lists and, for each list,
// the map from its positions to positions in the union (Kylix §VI-A):
// the lists are the leaves of a balanced binary tree whose siblings are
// merged pairwise, so that merged lists have similar lengths, and each
// leaf's map is composed with the maps of the merges above it. Positions are
// int32, so the total length must stay below 2^31.
func treeMerge(lists [][]int64) ([]int64, [][]int32, error) {
	total := 0
	for _, l := range lists {
		total += len(l)
	}
	if total > math.MaxInt32 {
		return nil, nil, fmt.Errorf("%w: %d indices to merge, more than 2^31-1", ErrInvalid, total)
	}
	backing := make([]int32, total)
	maps := make([][]int32, len(lists))
	for k, l := range lists {
		maps[k], backing = backing[:len(l):len(l)], backing[len(l):]
	}
	return mergeTree(lists, maps), maps, nil
}

func mergeTree(lists [][]int64, maps [][]int32) []int64 {
	switch len(lists) {
	case 0:
		return nil
	case 1:
		for t := range maps[0] {
			maps[0][t] = int32(t)
		}
		return lists[0]
	}
	mid := len(lists) / 2
	a := mergeTree(lists[:mid], maps[:mid])
	b := mergeTree(lists[mid:], maps[mid:])
	ma := make([]int32, len(a))
	mb := make([]int32, len(b))
	u := merge2(make([]int64, 0, len(a)+len(b)), a, b, ma, mb)
	for _, m := range maps[:mid] {
		for t, x := range m {
			m[t] = ma[x]
		}
	}
	for _, m := range maps[mid:] {
		for t, x := range m {
			m[t] = mb[x]
		}
	}
	return u
}
