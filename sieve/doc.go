// Package sieve holds the cross directory of Lv et al. §V-A (cited in full
// under References below): per rank, the bitmaps that say which of its
// frontier vertices each other rank can ever use, so that a frontier exchange
// sends every rank only those (Alg. 3 line 9, "sieving").
//
// # The directory
//
// Under the 1D block partition rank i owns the row block A_i of the adjacency
// matrix, cut into sub-blocks A_{i,j} whose columns are rank j's vertices
// (Lv et al. eqs. 1–2). The directory vector V(i,j) is a bitmap over rank j's
// vertices whose bit u is set iff column u of A_{i,j} holds a non-zero, i.e.
// iff u, owned by j, has an edge into rank i's vertices (eq. 4). Rank j keeps
// the column of directory vectors {V(i,j) : i = 0..p−1}, itself included
// (eq. 5, Fig. 4), as a Directory; Fig. 5 steps 3–4 are Directory.Sieve.
//
// Before sending its frontier f_j to rank i, rank j sieves it:
// f_{j→i} = f_j ⊙ V(i,j) (Alg. 3 line 9). Rank i then receives only the
// frontier vertices its bottom-up scan can ever look at: a vertex u of f_j
// that has no neighbour among i's vertices is never read by i's scan, which
// only tests the frontier bits of the neighbours stored in its rows.
//
// # Correctness (Lemma V.1)
//
// A_{i,j} ⊗ f_j = A_{i,j} ⊗ (f_j ⊙ V(i,j)) for every pair (i,j), over the
// (select, max) semiring as over any other. (Lv et al.'s statement of the
// lemma writes the vector as V_{j,i}; by eq. 4 the vector that matches
// A_{i,j}'s columns is V_{i,j}, as Alg. 3 line 9, f_{i,j} = f_i ⊙ V_{j,i}
// for sender i and receiver j, agrees.) Entry v of A_{i,j} ⊗ f_j combines
// a_{v,u}·f_j[u] over the columns u; where V(i,j)[u] = 0 column u of A_{i,j}
// is all zero, so a_{v,u} = 0 and the term vanishes whether f_j[u] is kept or
// cleared; where V(i,j)[u] = 1 the sieve keeps f_j[u] unchanged. Summing over
// j (Lemma V.2), t_i = Σ_j A_{i,j} ⊗ f_{j→i} = A_i ⊗ f: rank i finds the same
// frontier neighbours, hence the same parent (the largest one) for every
// vertex, as with the unsieved Allgatherv of Alg. 1. The only difference is
// that rank i's copy of the global frontier lacks the bits nobody on rank i
// can test, so that copy must only be read through rank i's rows.
//
// # Construction
//
// graphrun's graphs are undirected and each edge is stored in both
// endpoints' rows (graph.BuildUndirected), so A is symmetric and
// A_{i,j} = A_{j,i}ᵀ: column u of A_{i,j} is non-zero iff u's own row, which
// rank j stores, holds a neighbour owned by i. Build therefore computes rank
// j's whole directory column from rank j's own rows, with no communication:
// one pass over the rows, setting bit u of V(i,j) for every owner i among u's
// neighbours. Rows are sorted by descending neighbour id, so the neighbours of
// one owner are a contiguous run: per (vertex, owner) pair the pass reads the
// run's first entry and finds its end by a short linear probe and then a
// binary search, so a hub's row costs O(p·log d), not O(d).
//
// BuildExchanged is Lv et al.'s construction (§V-A: every rank sends its
// directory vectors to their peers once, at initialisation): rank i marks,
// from its rows, every neighbour of its vertices, cuts that n-bit map into
// the p bitmaps V(i,j) and sends each to rank j in one Alltoallv (phase
// PhaseBuild). It does not need symmetry, but costs an exchange of
// (p−1)/p·n bits per rank, an n-bit scratch map with atomic updates per
// stored edge and the receive buffers. For undirected graphs the two give
// identical directories (the tests check it); graphrun uses Build, and keeps
// BuildExchanged as Lv et al.'s reference and for matrices that are not
// stored symmetrically.
//
// # The 2D grid
//
// Exchange2D carries the directory to the 2D partition that Lv et al.
// §VIII–IX name as the next step: once, at set-up, every rank of an R×C grid
// learns from its column peers which of its vertices have an entry in their
// blocks and from its row peers which have a row there. The 2D BFS engine
// sieves with it, and the 2D validator exchanges its ghosts along it.
//
// # Memory
//
// A directory holds p bitmaps of Words(rank) words: p·⌈n/p/64⌉·8 bytes, about
// n bits (n/8 bytes) per rank — O(n/p) bits per pair of ranks, O(n) per rank,
// the same order as the global frontier bitmap of Alg. 1 (Lv et al. §VI-B).
// A directory vector that is all zero (the ranks share no edge) or all one
// (every owned vertex has a neighbour on the peer, usual for the rank's own
// column and for dense graphs on few ranks) is not stored: it is flagged
// (Kind) and shares one read-only bitmap per kind, so such peers cost no
// memory and their sieve is a clear or a copy (an exchange may also skip the
// message to a peer whose vector is empty). Bytes reports the total.
// Build needs no memory beyond the directory itself and p words per thread;
// BuildExchanged needs about 3n bits per rank more while it runs (scratch
// map, send and receive buffers).
//
// # References
//
//   - Huiwei Lv, Guangming Tan, Mingyu Chen and Ninghui Sun. "Compression and
//     Sieve: Reducing Communication in Parallel Breadth First Search on
//     Distributed Memory Systems". arXiv preprint (Institute of Computing
//     Technology, CAS), 2012. Cited as Lv et al.
//
// REFERENCES.md at the repository root lists every source under the same
// keys.
package sieve
