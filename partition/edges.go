// This file is the random edge partition of Kylix §II-B, used by PageRank
// (Kylix §VII): each edge (non-zero of the adjacency matrix) goes to a
// rank chosen by a hash of the edge, so that every rank gets a near-equal,
// unstructured share of the edges whatever the degree distribution. For
// power-law graphs this balances work far better than a vertex partition.
//
// Huasha Zhao and John Canny, "Kylix: A Sparse Allreduce for Commodity
// Clusters", 43rd International Conference on Parallel Processing (ICPP),
// IEEE, 2014.

package partition

import "math/bits"

// EdgeOwner returns the rank in [0, p) that owns the directed edge (u, v)
// under the random edge partition. The owner depends only on u, v and p: it
// is the same on every rank, in every run. The edge is hashed with a strong
// 64-bit mixer (both ends mixed, then combined and mixed again, so that
// (u, v) and (v, u) land independently), and the hash is mapped to a rank by
// a multiply-high, which is unbiased for any p. It panics if p < 1.
func EdgeOwner(u, v int64, p int) int {
	if p < 1 {
		panic("partition: EdgeOwner with fewer than 1 rank")
	}
	h := mix64(mix64(uint64(u)+0x9e3779b97f4a7c15) ^ (uint64(v) * 0xc2b2ae3d27d4eb4f))
	hi, _ := bits.Mul64(h, uint64(p))
	return int(hi)
}

// mix64 is the finaliser of SplitMix64 (Stafford's variant 13): a
// bijection of 64-bit words with full avalanche.
func mix64(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}
