// This file places the blocks of a 2D-partitioned adjacency matrix on ranks
// when there are more blocks than ranks (a block grid finer than the process
// grid, a rank count with no good factorisation, or random-edge blocks), by
// the load-simulated greedy of NumS (Elibol et al., full citation below):
// its §5 Algorithm 1 (LSHS) takes the operations one at a time and puts
// each on the node that minimises the objective of its §5.1 equation 2, the
// maximum simulated memory load plus the maximum network-in load plus the
// maximum network-out load over all nodes, after simulating the placement;
// its §4 lays out blocks cyclically, which is the round-robin baseline here.
//
// Here the "operations" are the blocks' BFS work and the simulated cluster
// state is, per rank, its memory, the bytes it receives and the bytes it
// sends per level:
//
//   - memory: the block's bytes where it is placed, plus the frontier and
//     candidate vectors of its block column and row the first time the rank
//     holds that column or row (a rank keeps one copy per column and row);
//   - network: a rank holding a block of column b needs b's frontier piece
//     once per level, sent by the rank that owns those vertices (ColHome); a
//     rank holding a block of row a sends a's candidates once per level (its
//     blocks of that row are merged locally first) to the vertices' owner
//     (RowHome). Nothing crosses the network when the holder is the home.
//
// Co-location is thus rewarded exactly as in NumS, where an operand already
// on a node costs no transfer.
//
// Memory is what NumS balances; a BFS's time goes to the entries it reads,
// which are not proportional to the entries a block holds (a hub row finds
// a frontier parent in its first entries). When the blocks carry a Work
// cost (graph500 measures it on a scaled-down pilot run), the first term
// of equation 2 is the largest work load instead of the largest memory.
//
// Departure from NumS: NumS samples the next operation at random from
// the frontier of its computation graph, because operations become ready as
// their inputs complete. Blocks are all ready at once, so LSHS takes them
// largest first by default (the order of Graham's LPT rule, which bounds a
// greedy max-load placement within 4/3 of optimal when only memory counts);
// OrderSampled reproduces NumS's random order. Ties in the objective go
// to the rank whose own load would be smallest, then to the lowest rank.
//
// Melih Elibol, Vinamra Benara, Samyu Yagati, Lianmin Zheng, Alvin Cheung,
// Michael I. Jordan and Ion Stoica, "NumS: Scalable Array Programming for
// the Cloud", arXiv preprint, 2022.

package partition

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
)

// PlacementBlock is one block of a block grid to place.
type PlacementBlock struct {
	Edges  int64 // stored adjacency entries
	Memory int64 // bytes the block occupies on its rank
	// Work is the block's compute cost, e.g. the adjacency entries its
	// searches read. When any block of a problem has Work, LSHS balances
	// work in place of memory: the first term of equation 2 becomes the
	// largest work load, and blocks go largest-work first.
	Work int64
}

// PlacementProblem is a BlockRows×BlockCols grid of blocks (Blocks in
// row-major order) to place on Ranks ranks.
type PlacementProblem struct {
	Ranks                int
	BlockRows, BlockCols int
	Blocks               []PlacementBlock
	// ColBytes[b] is the size of block column b's frontier piece and
	// RowBytes[a] that of block row a's candidates: the bytes a rank
	// receives, or sends, per level for the column, or row, it holds.
	ColBytes, RowBytes []int64
	// ColHome[b] and RowHome[a] are the ranks owning the vertices of block
	// column b and block row a.
	ColHome, RowHome []int
}

// Order is the order in which LSHS places blocks.
type Order int

// Orders.
const (
	OrderLargestFirst Order = iota // decreasing Memory (Work when given), then block index
	OrderSampled                   // uniformly random, as NumS Alg. 1 samples
)

// RankLoad is the simulated load of one rank.
type RankLoad struct {
	Blocks int
	Edges  int64
	Memory int64
	Work   int64
	In     int64 // bytes received per level
	Out    int64 // bytes sent per level
}

// Placement is a block → rank assignment and the loads it implies.
type Placement struct {
	Owner []int      // per block, row-major
	Loads []RankLoad // per rank
}

// Imbalance is the max/mean ratio of every load over the ranks (1 is
// perfect; 0 when the mean is 0).
type Imbalance struct {
	Edges, Memory, Work, In, Out float64
}

// Check reports the first inconsistency of pb.
func (pb *PlacementProblem) Check() error {
	switch {
	case pb.Ranks < 1:
		return fmt.Errorf("partition: placement on %d ranks", pb.Ranks)
	case pb.BlockRows < 1 || pb.BlockCols < 1:
		return fmt.Errorf("partition: placement of a %dx%d block grid", pb.BlockRows, pb.BlockCols)
	case len(pb.Blocks) != pb.BlockRows*pb.BlockCols:
		return fmt.Errorf("partition: %d blocks for a %dx%d block grid", len(pb.Blocks), pb.BlockRows, pb.BlockCols)
	case len(pb.ColBytes) != pb.BlockCols || len(pb.ColHome) != pb.BlockCols:
		return fmt.Errorf("partition: %d column sizes and %d column homes for %d block columns", len(pb.ColBytes), len(pb.ColHome), pb.BlockCols)
	case len(pb.RowBytes) != pb.BlockRows || len(pb.RowHome) != pb.BlockRows:
		return fmt.Errorf("partition: %d row sizes and %d row homes for %d block rows", len(pb.RowBytes), len(pb.RowHome), pb.BlockRows)
	}
	for _, h := range append(slices.Clone(pb.ColHome), pb.RowHome...) {
		if h < 0 || h >= pb.Ranks {
			return fmt.Errorf("partition: home rank %d outside [0, %d)", h, pb.Ranks)
		}
	}
	for k, b := range pb.Blocks {
		if b.Edges < 0 || b.Memory < 0 || b.Work < 0 {
			return fmt.Errorf("partition: block %d has negative size", k)
		}
	}
	for _, x := range append(slices.Clone(pb.ColBytes), pb.RowBytes...) {
		if x < 0 {
			return fmt.Errorf("partition: negative vector size %d", x)
		}
	}
	return nil
}

// cluster is the simulated state: per rank its loads and which block
// columns and rows it holds.
type cluster struct {
	pb                             *PlacementProblem
	byWork                         bool // the first term is work, not memory
	loads                          []RankLoad
	hasCol, hasRow                 []bool // [rank*BlockCols+b], [rank*BlockRows+a]
	maxMem, maxWork, maxIn, maxOut int64
}

func newCluster(pb *PlacementProblem) *cluster {
	return &cluster{pb: pb, byWork: pb.hasWork(), loads: make([]RankLoad, pb.Ranks),
		hasCol: make([]bool, pb.Ranks*pb.BlockCols), hasRow: make([]bool, pb.Ranks*pb.BlockRows)}
}

// hasWork reports whether any block has a work cost.
func (pb *PlacementProblem) hasWork() bool {
	for _, b := range pb.Blocks {
		if b.Work > 0 {
			return true
		}
	}
	return false
}

// delta is the load a placement adds: to the rank itself, to the column's
// home (out) and to the row's home (in).
type delta struct {
	mem, work        int64 // on the rank
	in, out          int64 // on the rank
	homeOut, homeIn  int64 // on ColHome[b], RowHome[a]
	colHome, rowHome int
	newCol, newRow   bool
}

func (s *cluster) delta(k, a, b int) delta {
	pb := s.pb
	blk := pb.Blocks[a*pb.BlockCols+b]
	d := delta{mem: blk.Memory, work: blk.Work, colHome: pb.ColHome[b], rowHome: pb.RowHome[a]}
	if !s.hasCol[k*pb.BlockCols+b] {
		d.newCol = true
		if k != d.colHome {
			d.in += pb.ColBytes[b]
			d.mem += pb.ColBytes[b]
			d.homeOut = pb.ColBytes[b]
		}
	}
	if !s.hasRow[k*pb.BlockRows+a] {
		d.newRow = true
		if k != d.rowHome {
			d.out += pb.RowBytes[a]
			d.mem += pb.RowBytes[a]
			d.homeIn = pb.RowBytes[a]
		}
	}
	return d
}

// cost is NumS eq. 2 (§5.1) after the simulated placement d on rank
// k, and the rank's own load then (the tie-breaker). Loads only grow, so the
// new maxima are the old ones or the changed ranks' new values.
func (s *cluster) cost(k int, d delta) (objective, own int64) {
	l := s.loads[k]
	mem := max(s.maxMem, l.Memory+d.mem)
	ownFirst := l.Memory + d.mem
	if s.byWork {
		mem, ownFirst = max(s.maxWork, l.Work+d.work), l.Work+d.work
	}
	in := max(s.maxIn, l.In+d.in)
	out := max(s.maxOut, l.Out+d.out)
	// The homes' new loads (which may be k itself).
	hoOut := s.loads[d.colHome].Out + d.homeOut
	if d.colHome == k {
		hoOut += d.out
	}
	out = max(out, hoOut)
	hrIn := s.loads[d.rowHome].In + d.homeIn
	if d.rowHome == k {
		hrIn += d.in
	}
	in = max(in, hrIn)
	return mem + in + out, ownFirst + l.In + d.in + l.Out + d.out
}

// place applies placement d of block (a, b) on rank k.
func (s *cluster) place(k, a, b int, d delta) {
	pb := s.pb
	l := &s.loads[k]
	l.Blocks++
	l.Edges += pb.Blocks[a*pb.BlockCols+b].Edges
	l.Memory += d.mem
	l.Work += d.work
	l.In += d.in
	l.Out += d.out
	s.loads[d.colHome].Out += d.homeOut
	s.loads[d.rowHome].In += d.homeIn
	if d.newCol {
		s.hasCol[k*pb.BlockCols+b] = true
	}
	if d.newRow {
		s.hasRow[k*pb.BlockRows+a] = true
	}
	for _, r := range []int{k, d.colHome, d.rowHome} {
		s.maxMem = max(s.maxMem, s.loads[r].Memory)
		s.maxWork = max(s.maxWork, s.loads[r].Work)
		s.maxIn = max(s.maxIn, s.loads[r].In)
		s.maxOut = max(s.maxOut, s.loads[r].Out)
	}
}

// PlaceLSHS places every block by the load-simulated greedy (see the file
// comment). seed is used by OrderSampled only.
func PlaceLSHS(pb PlacementProblem, order Order, seed uint64) (Placement, error) {
	if err := pb.Check(); err != nil {
		return Placement{}, err
	}
	n := len(pb.Blocks)
	seq := make([]int, n)
	for k := range seq {
		seq[k] = k
	}
	switch order {
	case OrderLargestFirst:
		size := func(k int) int64 { return pb.Blocks[k].Memory }
		if pb.hasWork() {
			size = func(k int) int64 { return pb.Blocks[k].Work }
		}
		slices.SortStableFunc(seq, func(x, y int) int { return cmp.Compare(size(y), size(x)) })
	case OrderSampled:
		rng := rand.New(rand.NewPCG(seed, 0x15b5))
		rng.Shuffle(n, func(i, j int) { seq[i], seq[j] = seq[j], seq[i] })
	default:
		return Placement{}, fmt.Errorf("partition: unknown placement order %d", order)
	}
	s := newCluster(&pb)
	owner := make([]int, n)
	for _, blk := range seq {
		a, b := blk/pb.BlockCols, blk%pb.BlockCols
		best, bestCost, bestOwn := -1, int64(0), int64(0)
		var bestDelta delta
		for k := range pb.Ranks {
			d := s.delta(k, a, b)
			c, own := s.cost(k, d)
			if best < 0 || c < bestCost || (c == bestCost && own < bestOwn) {
				best, bestCost, bestOwn, bestDelta = k, c, own, d
			}
		}
		s.place(best, a, b, bestDelta)
		owner[blk] = best
	}
	return Placement{Owner: owner, Loads: s.loads}, nil
}

// PlaceRoundRobin places block k (row-major) on rank k mod Ranks: NumS
// §4's cyclic layout, the baseline.
func PlaceRoundRobin(pb PlacementProblem) (Placement, error) {
	owner := make([]int, len(pb.Blocks))
	for k := range owner {
		owner[k] = k % max(1, pb.Ranks)
	}
	return Simulate(pb, owner)
}

// Simulate returns the loads of a given assignment (owner[k] is block k's
// rank), under the same model LSHS optimises.
func Simulate(pb PlacementProblem, owner []int) (Placement, error) {
	if err := pb.Check(); err != nil {
		return Placement{}, err
	}
	if len(owner) != len(pb.Blocks) {
		return Placement{}, fmt.Errorf("partition: %d owners for %d blocks", len(owner), len(pb.Blocks))
	}
	s := newCluster(&pb)
	for blk, k := range owner {
		if k < 0 || k >= pb.Ranks {
			return Placement{}, fmt.Errorf("partition: block %d on rank %d, outside [0, %d)", blk, k, pb.Ranks)
		}
		a, b := blk/pb.BlockCols, blk%pb.BlockCols
		s.place(k, a, b, s.delta(k, a, b))
	}
	return Placement{Owner: slices.Clone(owner), Loads: s.loads}, nil
}

// Imbalance returns the max/mean ratio of every load of p.
func (p Placement) Imbalance() Imbalance {
	ratio := func(get func(RankLoad) int64) float64 {
		var sum, top int64
		for _, l := range p.Loads {
			sum += get(l)
			top = max(top, get(l))
		}
		if sum == 0 {
			return 0
		}
		return float64(top) * float64(len(p.Loads)) / float64(sum)
	}
	return Imbalance{
		Edges:  ratio(func(l RankLoad) int64 { return l.Edges }),
		Memory: ratio(func(l RankLoad) int64 { return l.Memory }),
		Work:   ratio(func(l RankLoad) int64 { return l.Work }),
		In:     ratio(func(l RankLoad) int64 { return l.In }),
		Out:    ratio(func(l RankLoad) int64 { return l.Out }),
	}
}

// Objective is NumS eq. 2 (§5.1) for p: the largest memory, network-in
// and network-out loads, added (with work in place of memory when any rank
// has work).
func (p Placement) Objective() int64 {
	var mem, work, in, out int64
	for _, l := range p.Loads {
		mem, work, in, out = max(mem, l.Memory), max(work, l.Work), max(in, l.In), max(out, l.Out)
	}
	if work > 0 {
		mem = work
	}
	return mem + in + out
}

// BlockMemory is the bytes graph.Block2D needs for a block of the given
// entries over rows×cols local ids, of which nonEmptyRows rows and
// nonEmptyCols columns hold entries: 4 bytes per entry by rows and again by
// columns, a bitmap bit and a 4-byte running count per 64 rows and columns,
// and an 8-byte offset per non-empty row and column.
func BlockMemory(entries, rows, cols, nonEmptyRows, nonEmptyCols int64) int64 {
	return 8*entries + (rows+cols)/8 + 4*(rows+cols)/64 + 8*(nonEmptyRows+nonEmptyCols)
}

// GridProblem is the placement problem of an n-vertex graph cut into a
// br×bc grid of equal vertex ranges (block (a, b): rows in range a of br,
// columns in range b of bc), blocks in row-major order, on p ranks whose
// vertices are Block1D's: a block row's or column's vectors are raw bitmaps
// (one bit per vertex) homed at the rank owning its first vertex.
func GridProblem(n int64, br, bc, p int, blocks []PlacementBlock) (PlacementProblem, error) {
	part, err := NewBlock1D(n, p)
	if err != nil {
		return PlacementProblem{}, err
	}
	if br < 1 || bc < 1 || len(blocks) != br*bc {
		return PlacementProblem{}, fmt.Errorf("partition: %d blocks for a %dx%d block grid", len(blocks), br, bc)
	}
	pb := PlacementProblem{Ranks: p, BlockRows: br, BlockCols: bc, Blocks: slices.Clone(blocks),
		ColBytes: make([]int64, bc), RowBytes: make([]int64, br), ColHome: make([]int, bc), RowHome: make([]int, br)}
	for a := range br {
		lo, hi := GridRange(n, a, br)
		pb.RowBytes[a], pb.RowHome[a] = (hi-lo+7)/8, part.Owner(min(lo, n-1))
	}
	for b := range bc {
		lo, hi := GridRange(n, b, bc)
		pb.ColBytes[b], pb.ColHome[b] = (hi-lo+7)/8, part.Owner(min(lo, n-1))
	}
	return pb, nil
}

// GridRange is the k-th of parts near-equal ranges of [0, n).
func GridRange(n int64, k, parts int) (lo, hi int64) {
	return n * int64(k) / int64(parts), n * int64(k+1) / int64(parts)
}
