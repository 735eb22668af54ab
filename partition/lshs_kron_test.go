package partition_test

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/graphrun/graphrun/gen/kronecker"
	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/partition"
)

// skewedBlocks cuts the Kronecker graph of the given scale, with its label
// permutation undone, into a br×bc grid of blocks and returns each block's
// entries (both directions of every non-loop tuple, duplicates included,
// as kernel 1 routes them) and memory (partition.BlockMemory with the exact
// counts of non-empty rows and columns). Unpermuted, the Kronecker
// distribution puts its heavy vertices at small ids, so the blocks near
// (0, 0) are far denser than the rest.
func skewedBlocks(scale, br, bc int) (int64, []partition.PlacementBlock) {
	return kroneckerBlocks(scale, br, bc, false)
}

// kroneckerBlocks is skewedBlocks, or with permuted set the Graph500 graph
// itself (labels permuted, as graphrun bfs searches it).
func kroneckerBlocks(scale, br, bc int, permuted bool) (int64, []partition.PlacementBlock) {
	params := kronecker.DefaultParams(scale)
	n := params.NumVertices()
	entries := make([]int64, br*bc)
	// rowsSeen[b] marks the rows with an entry in block column b (one bit
	// per vertex), colsSeen[a] the columns with an entry in block row a.
	rowsSeen := make([][]uint64, bc)
	colsSeen := make([][]uint64, br)
	for b := range rowsSeen {
		rowsSeen[b] = make([]uint64, (n+63)/64)
	}
	for a := range colsSeen {
		colsSeen[a] = make([]uint64, (n+63)/64)
	}
	add := func(u, v int64) {
		a, b := int(u*int64(br)/n), int(v*int64(bc)/n)
		entries[a*bc+b]++
		rowsSeen[b][u>>6] |= 1 << (u & 63)
		colsSeen[a][v>>6] |= 1 << (v & 63)
	}
	const chunk = 1 << 16
	buf := make([]graph.Edge, chunk)
	for first := int64(0); first < params.NumEdges(); first += chunk {
		es := buf[:min(chunk, params.NumEdges()-first)]
		params.Generate(first, es)
		for _, e := range es {
			if e.U != e.V {
				u, v := e.U, e.V
				if !permuted {
					u, v = params.Unpermute(u), params.Unpermute(v)
				}
				add(u, v)
				add(v, u)
			}
		}
	}
	count := func(bm []uint64, lo, hi int64) int64 {
		var c int64
		for x := lo; x < hi; x++ {
			c += int64(bm[x>>6] >> (x & 63) & 1)
		}
		return c
	}
	blocks := make([]partition.PlacementBlock, br*bc)
	for a := range br {
		rlo, rhi := partition.GridRange(n, a, br)
		for b := range bc {
			clo, chi := partition.GridRange(n, b, bc)
			e := entries[a*bc+b]
			blocks[a*bc+b] = partition.PlacementBlock{Edges: e,
				Memory: partition.BlockMemory(e, rhi-rlo, chi-clo, count(rowsSeen[b], rlo, rhi), count(colsSeen[a], clo, chi))}
		}
	}
	return n, blocks
}

// TestLSHSSkewedKronecker: on the unpermuted Kronecker graph cut into 32×32
// blocks over 12 ranks (a rank count no 32×32 grid divides evenly), LSHS
// keeps the max/mean edge and memory imbalance within 1.1 and beats
// round-robin on every load and on NumS's objective (eq. 2); with 16×16 blocks
// the largest block alone exceeds the mean rank load, and LSHS stays within
// 5% of that bound.
func TestLSHSSkewedKronecker(t *testing.T) {
	n, blocks := skewedBlocks(14, 32, 32)
	pb, err := partition.GridProblem(n, 32, 32, 12, blocks)
	if err != nil {
		t.Fatal(err)
	}
	lshs, err := partition.PlaceLSHS(pb, partition.OrderLargestFirst, 0)
	if err != nil {
		t.Fatal(err)
	}
	rr, err := partition.PlaceRoundRobin(pb)
	if err != nil {
		t.Fatal(err)
	}
	li, ri := lshs.Imbalance(), rr.Imbalance()
	if li.Edges > 1.1 || li.Memory > 1.1 {
		t.Errorf("LSHS imbalance %+v, want edges and memory ≤ 1.1", li)
	}
	if li.Memory >= ri.Memory || li.Edges >= ri.Edges || lshs.Objective() >= rr.Objective() {
		t.Errorf("LSHS %+v (objective %d) not better than round-robin %+v (objective %d)", li, lshs.Objective(), ri, rr.Objective())
	}
	// The skew is real: the largest block holds many times the mean.
	var sum, top int64
	for _, b := range blocks {
		sum += b.Edges
		top = max(top, b.Edges)
	}
	if float64(top) < 10*float64(sum)/float64(len(blocks)) {
		t.Errorf("largest block %d, mean %d: not skewed", top, sum/int64(len(blocks)))
	}

	n, blocks = skewedBlocks(14, 16, 16)
	pb, _ = partition.GridProblem(n, 16, 16, 12, blocks)
	lshs, _ = partition.PlaceLSHS(pb, partition.OrderLargestFirst, 0)
	if lb := edgeBound(pb); lshs.Imbalance().Edges > 1.05*lb || lb < 1.1 {
		t.Errorf("16x16 blocks: LSHS edge imbalance %.3f, lower bound %.3f", lshs.Imbalance().Edges, lb)
	}
}

// imbalanceBound is the least max/mean imbalance of the quantity of
// pb's blocks that size gives that any placement can have, counting the
// blocks alone: max(largest, mean) / mean.
func imbalanceBound(pb partition.PlacementProblem, size func(partition.PlacementBlock) int64) float64 {
	var sum, top int64
	for _, b := range pb.Blocks {
		sum += size(b)
		top = max(top, size(b))
	}
	mean := float64(sum) / float64(pb.Ranks)
	return max(float64(top), mean) / mean
}

// memoryBound is imbalanceBound for the memory.
func memoryBound(pb partition.PlacementProblem) float64 {
	return imbalanceBound(pb, func(b partition.PlacementBlock) int64 { return b.Memory })
}

// edgeBound is imbalanceBound for the edges.
func edgeBound(pb partition.PlacementProblem) float64 {
	return imbalanceBound(pb, func(b partition.PlacementBlock) int64 { return b.Edges })
}

// TestLSHSReport prints LSHS against round-robin placements (imbalance of
// edges, memory and bytes, and the per-rank loads) when
// GRAPHRUN_LSHS_SCALE is set (for example 20):
//
//	GRAPHRUN_LSHS_SCALE=20 go test ./partition -run TestLSHSReport -v
func TestLSHSReport(t *testing.T) {
	s := os.Getenv("GRAPHRUN_LSHS_SCALE")
	if s == "" {
		t.Skip("set GRAPHRUN_LSHS_SCALE to print the report")
	}
	scale, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	type cfg struct{ blocks, ranks int }
	configs := []cfg{{16, 12}, {16, 24}, {32, 12}, {32, 48}, {32, 100}, {64, 12}, {64, 100}}
	var detail, detailRR partition.Placement
	for _, permuted := range []bool{true, false} {
		name := "unpermuted Kronecker (heavy vertices at small ids)"
		if permuted {
			name = "Graph500 Kronecker (labels permuted, the graph graphrun bfs searches)"
		}
		fmt.Fprintf(&out, "\n%s, scale %d, edgefactor 16\n\n", name, scale)
		fmt.Fprintf(&out, "| blocks | ranks | placement | edges max/mean | memory max/mean | bytes in max/mean | bytes sent max/mean | objective (eq. 2), B |\n|---|---|---|---|---|---|---|---|\n")
		for _, c := range configs {
			n, blocks := kroneckerBlocks(scale, c.blocks, c.blocks, permuted)
			pb, err := partition.GridProblem(n, c.blocks, c.blocks, c.ranks, blocks)
			if err != nil {
				t.Fatal(err)
			}
			rr, _ := partition.PlaceRoundRobin(pb)
			lf, _ := partition.PlaceLSHS(pb, partition.OrderLargestFirst, 0)
			sm, _ := partition.PlaceLSHS(pb, partition.OrderSampled, 1)
			fmt.Fprintf(&out, "| %dx%d | %d | lower bound (largest block or mean) | %.3f | %.3f | | | |\n", c.blocks, c.blocks, c.ranks, edgeBound(pb), memoryBound(pb))
			for _, row := range []struct {
				name string
				p    partition.Placement
			}{{"round-robin", rr}, {"LSHS, sampled order", sm}, {"LSHS, largest first", lf}} {
				im := row.p.Imbalance()
				fmt.Fprintf(&out, "| %dx%d | %d | %s | %.3f | %.3f | %.3f | %.3f | %d |\n", c.blocks, c.blocks, c.ranks, row.name,
					im.Edges, im.Memory, im.In, im.Out, row.p.Objective())
			}
			if !permuted && c.blocks == 32 && c.ranks == 12 {
				detail, detailRR = lf, rr
			}
		}
	}
	fmt.Fprintf(&out, "\nper rank, unpermuted, 32x32 blocks on 12 ranks (round-robin | LSHS largest first)\n\n")
	fmt.Fprintf(&out, "| rank | blocks | edges | memory B | bytes in | bytes sent | blocks | edges | memory B | bytes in | bytes sent |\n|---|---|---|---|---|---|---|---|---|---|---|\n")
	for k := range detail.Loads {
		a, b := detailRR.Loads[k], detail.Loads[k]
		fmt.Fprintf(&out, "| %d | %d | %d | %d | %d | %d | %d | %d | %d | %d | %d |\n", k, a.Blocks, a.Edges, a.Memory, a.In, a.Out,
			b.Blocks, b.Edges, b.Memory, b.In, b.Out)
	}
	t.Log(out.String())
}
