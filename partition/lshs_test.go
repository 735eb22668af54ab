package partition

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// randomProblem is a br×bc grid of blocks with heavy-tailed sizes on p ranks.
func randomProblem(rng *rand.Rand, br, bc, p int, netBytes int64) PlacementProblem {
	pb := PlacementProblem{Ranks: p, BlockRows: br, BlockCols: bc,
		ColBytes: make([]int64, bc), RowBytes: make([]int64, br), ColHome: make([]int, bc), RowHome: make([]int, br)}
	for range br * bc {
		e := int64(1 + rng.ExpFloat64()*1000*float64(1+rng.IntN(4)))
		pb.Blocks = append(pb.Blocks, PlacementBlock{Edges: e, Memory: 8 * e})
	}
	for b := range bc {
		pb.ColBytes[b], pb.ColHome[b] = netBytes, b*p/bc
	}
	for a := range br {
		pb.RowBytes[a], pb.RowHome[a] = netBytes, a*p/br
	}
	return pb
}

func sumLoads(p Placement) (blocks int, edges int64) {
	for _, l := range p.Loads {
		blocks += l.Blocks
		edges += l.Edges
	}
	return blocks, edges
}

// TestLSHSPlacesEveryBlockOnce: every block is on one rank in range, the
// loads add up, and the result is deterministic.
func TestLSHSPlacesEveryBlockOnce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for trial := range 50 {
		br, bc, p := 1+rng.IntN(12), 1+rng.IntN(12), 1+rng.IntN(20)
		pb := randomProblem(rng, br, bc, p, int64(rng.IntN(5000)))
		var total int64
		for _, b := range pb.Blocks {
			total += b.Edges
		}
		for _, order := range []Order{OrderLargestFirst, OrderSampled} {
			pl, err := PlaceLSHS(pb, order, uint64(trial))
			if err != nil {
				t.Fatal(err)
			}
			blocks, edges := sumLoads(pl)
			if blocks != len(pb.Blocks) || edges != total || len(pl.Owner) != len(pb.Blocks) {
				t.Fatalf("trial %d: %d blocks, %d edges placed, want %d, %d", trial, blocks, edges, len(pb.Blocks), total)
			}
			for _, k := range pl.Owner {
				if k < 0 || k >= p {
					t.Fatalf("trial %d: owner %d outside [0, %d)", trial, k, p)
				}
			}
			again, _ := PlaceLSHS(pb, order, uint64(trial))
			if !slices.Equal(again.Owner, pl.Owner) {
				t.Fatalf("trial %d: placement not deterministic", trial)
			}
			// The loads LSHS reports are the model's loads of its assignment.
			sim, err := Simulate(pb, pl.Owner)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(sim.Loads, pl.Loads) {
				t.Fatalf("trial %d: LSHS loads %v, simulated %v", trial, pl.Loads, sim.Loads)
			}
		}
	}
}

// TestLSHSMemoryOnlyIsListScheduling: with no network cost, largest-first
// LSHS is LPT: its largest memory is within the list-scheduling bound (mean
// plus the largest block) and within 4/3 of the lower bound max(mean,
// largest block); it never loses to round-robin.
func TestLSHSMemoryOnlyIsListScheduling(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	for trial := range 200 {
		pb := randomProblem(rng, 1+rng.IntN(10), 1+rng.IntN(10), 1+rng.IntN(16), 0)
		pl, err := PlaceLSHS(pb, OrderLargestFirst, 0)
		if err != nil {
			t.Fatal(err)
		}
		rr, err := PlaceRoundRobin(pb)
		if err != nil {
			t.Fatal(err)
		}
		var sum, big int64
		for _, b := range pb.Blocks {
			sum += b.Memory
			big = max(big, b.Memory)
		}
		mean := float64(sum) / float64(pb.Ranks)
		top := float64(pl.Objective())
		if top > mean+float64(big)+1e-9 || top > 4.0/3*max(mean, float64(big))+1e-9 {
			t.Fatalf("trial %d: max memory %.0f, mean %.0f, largest block %d", trial, top, mean, big)
		}
		if pl.Objective() > rr.Objective() {
			t.Fatalf("trial %d: LSHS %d worse than round-robin %d", trial, pl.Objective(), rr.Objective())
		}
	}
}

// TestLSHSEqualBlocksBalancePerfectly: equal blocks, a multiple of the
// rank count: every rank gets the same number.
func TestLSHSEqualBlocksBalancePerfectly(t *testing.T) {
	pb := PlacementProblem{Ranks: 6, BlockRows: 6, BlockCols: 4, ColBytes: make([]int64, 4), RowBytes: make([]int64, 6),
		ColHome: []int{0, 1, 2, 3}, RowHome: []int{0, 1, 2, 3, 4, 5}}
	for range 24 {
		pb.Blocks = append(pb.Blocks, PlacementBlock{Edges: 100, Memory: 800})
	}
	pl, err := PlaceLSHS(pb, OrderLargestFirst, 0)
	if err != nil {
		t.Fatal(err)
	}
	for k, l := range pl.Loads {
		if l.Blocks != 4 {
			t.Fatalf("rank %d holds %d blocks, want 4", k, l.Blocks)
		}
	}
	if im := pl.Imbalance(); im.Edges != 1 || im.Memory != 1 {
		t.Fatalf("imbalance %+v", im)
	}
}

// TestLSHSUsesLocality: when only the network counts, LSHS keeps each
// block column on few ranks and sends less than round-robin.
func TestLSHSUsesLocality(t *testing.T) {
	// 4 block columns whose frontier pieces are expensive, 4 ranks, no
	// memory cost: LSHS can give every rank one column and send nothing.
	pb := PlacementProblem{Ranks: 4, BlockRows: 4, BlockCols: 4, ColBytes: []int64{1000, 1000, 1000, 1000}, RowBytes: make([]int64, 4),
		ColHome: []int{3, 2, 1, 0}, RowHome: []int{0, 0, 0, 0}, Blocks: make([]PlacementBlock, 16)}
	pl, err := PlaceLSHS(pb, OrderLargestFirst, 0)
	if err != nil {
		t.Fatal(err)
	}
	rr, _ := PlaceRoundRobin(pb)
	if pl.Objective() != 0 || rr.Objective() == 0 {
		t.Fatalf("LSHS objective %d (want 0: every column on its home), round-robin %d", pl.Objective(), rr.Objective())
	}
	for blk, k := range pl.Owner {
		if k != 3-blk%4 {
			t.Fatalf("block %d (column %d) on rank %d, not on the column's home", blk, blk%4, k)
		}
	}
}

func TestLSHSRejects(t *testing.T) {
	good := randomProblem(rand.New(rand.NewPCG(3, 3)), 2, 3, 4, 10)
	bad := []func(*PlacementProblem){
		func(pb *PlacementProblem) { pb.Ranks = 0 },
		func(pb *PlacementProblem) { pb.Blocks = pb.Blocks[1:] },
		func(pb *PlacementProblem) { pb.ColHome[0] = 4 },
		func(pb *PlacementProblem) { pb.RowBytes = pb.RowBytes[:1] },
		func(pb *PlacementProblem) { pb.Blocks[2].Memory = -1 },
	}
	for i, f := range bad {
		pb := good
		pb.Blocks, pb.ColHome, pb.RowBytes = slices.Clone(good.Blocks), slices.Clone(good.ColHome), slices.Clone(good.RowBytes)
		f(&pb)
		if _, err := PlaceLSHS(pb, OrderLargestFirst, 0); err == nil {
			t.Errorf("case %d accepted", i)
		}
	}
	if _, err := PlaceLSHS(good, Order(7), 0); err == nil {
		t.Error("unknown order accepted")
	}
	if _, err := Simulate(good, []int{0, 1}); err == nil {
		t.Error("short assignment accepted")
	}
	if _, err := Simulate(good, []int{0, 1, 2, 3, 4, 0}); err == nil {
		t.Error("rank out of range accepted")
	}
	if _, err := GridProblem(100, 2, 2, 4, make([]PlacementBlock, 3)); err == nil {
		t.Error("wrong number of block sizes accepted")
	}
}

func TestBlockMemoryMatchesGridProblem(t *testing.T) {
	blocks := []PlacementBlock{{Edges: 1, Memory: BlockMemory(1, 50, 25, 1, 1)}, {Edges: 0, Memory: BlockMemory(0, 50, 25, 0, 0)}}
	pb, err := GridProblem(100, 2, 4, 3, append(blocks, make([]PlacementBlock, 6)...))
	if err != nil {
		t.Fatal(err)
	}
	if pb.Blocks[0].Memory != 8+75/8+4*75/64+16 || pb.RowBytes[1] != 7 || pb.ColBytes[3] != 4 || pb.ColHome[3] != 1 || pb.RowHome[1] != 0 {
		t.Fatalf("problem %+v", pb)
	}
}

// TestLSHSBalancesWork: with Work given, LSHS balances work, not memory:
// blocks of equal memory whose work differs by 10× land so that the work
// loads are equal, which placing by memory cannot see.
func TestLSHSBalancesWork(t *testing.T) {
	blocks := make([]PlacementBlock, 8)
	for k := range blocks {
		blocks[k] = PlacementBlock{Edges: 100, Memory: 1000, Work: 10_000}
	}
	// Two heavy blocks and 6 light ones, 180 000 in all; the network terms
	// (bitmaps of 128 and 256 bytes) are small beside them, as a search's
	// entries read are beside its bytes per level.
	blocks[0].Work, blocks[1].Work = 60_000, 60_000
	pb, err := GridProblem(1<<12, 2, 4, 2, blocks)
	if err != nil {
		t.Fatal(err)
	}
	pl, err := PlaceLSHS(pb, OrderLargestFirst, 0)
	if err != nil {
		t.Fatal(err)
	}
	if pl.Owner[0] == pl.Owner[1] {
		t.Fatalf("both heavy blocks on rank %d: %v", pl.Owner[0], pl.Owner)
	}
	if im := pl.Imbalance(); im.Work != 1 {
		t.Fatalf("work imbalance %v, want 1 (loads %+v)", im.Work, pl.Loads)
	}
	if got := pl.Objective(); got < 90_000 {
		t.Fatalf("objective %d is below the largest work load 90 000", got)
	}
	// Without Work the same blocks are equal, and LSHS splits them 4/4
	// by memory whatever their work.
	for k := range blocks {
		blocks[k].Work = 0
	}
	pb.Blocks = blocks
	if pl, err = PlaceLSHS(pb, OrderLargestFirst, 0); err != nil {
		t.Fatal(err)
	}
	if im := pl.Imbalance(); im.Memory != 1 || im.Work != 0 {
		t.Fatalf("memory imbalance %v, work %v", im.Memory, im.Work)
	}
}
