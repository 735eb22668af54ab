// Package allreduce is the sparse allreduce of graphrun: the Kylix nested,
// heterogeneous-degree butterfly, with the direct all-to-all and the binary
// butterfly networks as baselines in the same code. PageRank uses it by
// default. It implements Kylix §III (configuration, reduction,
// configreduce and the layout of the butterfly), §IV (degrees from the
// power-law density model, Proposition 4.1) and §VI-A (the tree merge),
// and reads per-layer volumes back for Fig. 5. The dense allreduce of whole
// vectors (Zhang and Qiu's hypercube, the task-based shared variables of
// Li et al.) is the subpackage hypercube.
//
// Reference: Huasha Zhao and John Canny, "Kylix: A Sparse Allreduce for
// Commodity Clusters", 43rd International Conference on Parallel
// Processing (ICPP), IEEE, 2014.
//
// # The operation (Kylix §III)
//
// The vector has n entries, indexed by int64 in [0, n). Rank r contributes
// values for its OUT index set and wants, for every index of its IN set, the
// sum over all ranks of the values contributed for that index. Both sets are
// sorted lists of unique indices (the caller removes duplicates; New and
// ConfigReduce validate and return an error wrapping ErrInvalid otherwise).
// An index that some rank wants but no rank contributes sums to 0.
//
// # Layout (§III, §III-D)
//
// The P ranks form a butterfly of degrees d_1 × … × d_L with product P. A rank
// id is read as a mixed-radix number whose most significant digit belongs to
// layer 1: digit_ℓ(r) = (r / s_ℓ) mod d_ℓ with stride s_ℓ = d_{ℓ+1}⋯d_L. At
// layer ℓ a rank exchanges with the d_ℓ ranks that differ from it only in
// digit ℓ (its group, member k being the one whose digit is k).
//
// Indices are hashed (a bijective 64-bit mixer, h) and the hash space is split
// into P equal ranges: the home of index i is ⌊h(i)·P / 2^64⌋. Layer ℓ routes
// an index to the group member whose digit equals digit ℓ of the index's
// home, which is exactly the paper's split of the current hashed range into
// d_ℓ equal sub-ranges. After the L layers of the down pass every index sits
// at its home, and each rank is the home of a hashed 1/P share of [0, n).
// All three kinds use the same homes, so an Apply callback sees the same
// index sets whatever the network.
//
// # Configuration (§III-A, §VI-A)
//
// The down pass partitions the rank's in- and out-sets by layer digit (a
// stable split, so every part stays sorted by index), sends part k to group
// member k, and merges the d_ℓ received parts of each kind into their union
// with a tree merge of sorted unique lists (§VI-A: leaves are the parts in
// member order, siblings are merged pairwise). Each merge records the
// position maps of the paper: g_k (OUT, position in the part received from
// member k → position in the union) and f_k (the same for IN). The sender
// keeps, per layer, the positions of each part in its own list. At the bottom
// the in- and out-sets are merged once more into the rank's home list. With
// these maps a reduction only indexes arrays: no searching, no hashing.
//
// # Reduction (§III-B)
//
// Values go down the same layers: a rank sends member k the values of part k
// in the agreed order, and the receiver adds them into the union through g_k
// (scatter-reduce). At the bottom the home list holds the full sums; the
// optional apply callback runs there and may transform the sums in place
// (PageRank computes its update at home); then the up pass (allgather) sends
// back, layer by layer, the values of every index some rank of the group
// asked for, selected through f_k, and the receiver scatters them into its
// in-list through its partition positions. Each rank ends up with exactly the
// values of its IN list, in the order of that list.
//
// Sums are deterministic: a rank clears its union and adds the parts in
// member order (that is, by ascending source rank), each part in list order,
// so a configuration gives bit-identical results run after run and
// ConfigReduce gives bit-identical results to Configure-then-Reduce. Different
// degree vectors add in different trees, so results of different kinds or
// degrees agree only up to floating-point rounding (the tests compare them
// within 1e-12 relative to Σ|v|).
//
// # Scalars on the up pass
//
// ReduceScalars also sums a few scalars over all ranks without a collective
// of its own (PageRank's L1 change, dangling mass and total rank, which are
// only known once apply has run at home). The up pass is a butterfly in
// which every member of a group sends to every other member, so it can
// allreduce as well as gather: at each layer, bottom to top, a rank appends
// its running sums to its message to each member and then adds the group's
// d running sums in member order. Members of a group hold the same running
// sums after every layer (same operands, same order), so after the top
// layer every rank holds the same total, bit for bit. The cost is 8 bytes
// per scalar per message, plus one message per pair of members whose values
// part would otherwise be empty — no extra round, where a separate
// AllreduceFloat64 counts as P·(P−1) messages.
//
// # ConfigReduce (§III-C)
//
// For index sets that change on every call (minibatches), ConfigReduce sends
// each layer's index parts and values in one message, configures and reduces
// in the same down pass, and runs the usual up pass.
//
// # Kinds
//
//   - "kylix": the given degrees, or, when degrees is nil, degrees designed
//     from the measured densities by AutoDegrees/DesignDegrees (§IV).
//   - "direct": one layer of degree P (Kylix Fig. 1b): every out value goes
//     straight to its home rank and back, one Alltoallv each way.
//   - "binary": degrees 2×2×…×2. When P is not a power of two, the layers
//     are the prime factors of P in descending order (12 → 3×2×2; a prime
//     P is a single direct layer).
//
// With P = 1 every kind has no layers and moves no data.
//
// # Degree design (§IV, Proposition 4.1)
//
// Feature frequencies follow a Poisson law with power-law rate λ·r^−α (α = 1,
// Alpha). The density of a vector summed over K ranks is
// D(Kλ₀) = (1/n)·Σ_{r=1..n} (1 − e^{−Kλ₀ r^−α}); λ₀ solves D(λ₀) = D₀, the
// measured density of one rank's set. A rank at node layer i (after K_i = d_1⋯d_i
// ranks have merged) holds B_i = 8·n·D(K_i λ₀)/K_i bytes of values (the mean
// of the IN and OUT models: the up pass carries the in-set, the down pass the
// out-set). Layer i+1 gets the largest divisor d of the remaining rank count
// with B_i/d ≥ minPacket (the paper's "largest d such that P/d is at least
// the minimum efficient packet"); if even d = 2 gives packets below the
// minimum, this and every later layer are latency-bound and the fewest
// messages come from the prime factors of the remaining rank count (a binary
// tail). See DesignDegrees.
//
// # Wire format
//
// A configuration message is the OUT part then the IN part, each as uvarint
// count followed by the sorted indices as uvarint deltas (the first from 0);
// a message with both parts empty is empty. A reduce message is the values
// only, little-endian float64, in the order the maps agreed on (an up
// message of ReduceScalars is followed by the running sums); a
// ConfigReduce message is a configuration message followed by the values of
// its OUT part. Decoders check counts, order, range and lengths and return
// errors wrapping ErrCorrupt; they never panic.
//
// # Counters
//
// Every layer uses its own phase: "allreduce.config.ℓ" (configuration),
// "allreduce.configreduce.ℓ" (ConfigReduce's down pass), "allreduce.down.ℓ"
// and "allreduce.up.ℓ" (reduction; ConfigReduce's up pass counts as up).
// "allreduce.check" is the small agreement allreduce of New and ConfigReduce,
// "allreduce.design" the density measurement of auto degrees. LayerStats
// reads the per-layer volumes (the "Kylix shape" of Kylix Fig. 5) back from
// comm.Stats.
package allreduce
