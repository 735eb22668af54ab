package testgraph

// The random undirected test graphs of the sieve and spmv property tests:
// one generator of the shapes a directory, a BFS and a validator must all
// get right, so the two packages' tests draw from the same families.

import "math/rand/v2"

// Shapes is the number of shapes Random cycles through.
const Shapes = 8

// Shape indices of Random (i % Shapes).
const (
	ShapeSingle       = iota // one vertex, maybe with a self-loop
	ShapeStar                // a star with its centre anywhere, some vertices isolated
	ShapePath                // a long path in shuffled label order
	ShapeSparse              // large and sparse: many words and thread ranges per rank
	ShapeHubs                // three hubs with long rows
	ShapeDisconnected        // several disconnected random parts
	ShapeEmpty               // vertices and no edge
	ShapeRandom              // a multigraph with self-loops, duplicates both ways and isolated vertices
)

// Random draws the graph of shape i % Shapes from rng, passing its edges
// (undirected, in generation order) to add, and returns the shape's name and
// the vertex count n (edges are over [0, n)). Small vertex counts leave some
// ranks of a partition owning nothing.
func Random(rng *rand.Rand, i int, add func(u, v int64)) (name string, n int64) {
	switch i % Shapes {
	case ShapeSingle:
		if rng.IntN(2) == 0 {
			add(0, 0)
		}
		return "single", 1
	case ShapeStar:
		n = int64(2 + rng.IntN(600))
		c := rng.Int64N(n)
		for v := int64(0); v < n; v++ {
			if v != c && rng.IntN(6) != 0 {
				add(c, v)
			}
		}
		return "star", n
	case ShapePath:
		n = int64(2 + rng.IntN(300))
		perm := rng.Perm(int(n))
		for k := 1; k < len(perm); k++ {
			add(int64(perm[k-1]), int64(perm[k]))
		}
		return "path", n
	case ShapeSparse:
		n = int64(1000 + rng.IntN(3000))
		for range n {
			add(rng.Int64N(n), rng.Int64N(n))
		}
		return "sparse", n
	case ShapeHubs:
		n = int64(200 + rng.IntN(1500))
		for range 3 {
			c := rng.Int64N(n)
			for range n / 2 {
				add(c, rng.Int64N(n))
			}
		}
		return "hubs", n
	case ShapeDisconnected:
		parts := 2 + rng.IntN(4)
		for range parts {
			size := int64(1 + rng.IntN(40))
			base := n
			n += size
			for range size * 2 {
				add(base+rng.Int64N(size), base+rng.Int64N(size))
			}
		}
		return "disconnected", n
	case ShapeEmpty:
		return "empty", int64(1 + rng.IntN(300))
	default:
		n = int64(1 + rng.IntN(700))
		m := rng.IntN(int(n) * 3)
		for range m {
			u, v := rng.Int64N(n), rng.Int64N(n)
			add(u, v)
			if rng.IntN(10) == 0 {
				add(v, u) // a duplicate the other way round
			}
			if rng.IntN(20) == 0 {
				add(u, u)
			}
		}
		return "random", n
	}
}
