package bfs

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/inproc"
	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/partition"
)

// directedCSR is the one-rank CSR of out-edges: rows[u] in any order.
func directedCSR(rows [][]uint32) *graph.CSR {
	g := &graph.CSR{NumGlobal: int64(len(rows)), NumLocal: len(rows), Offsets: []int64{0}, TupleDegree: make([]uint32, len(rows))}
	for u, r := range rows {
		r = slices.Clone(r)
		slices.Sort(r)
		slices.Reverse(r)
		g.Cols32 = append(g.Cols32, r...)
		g.Offsets = append(g.Offsets, int64(len(g.Cols32)))
		g.TupleDegree[u] = uint32(len(r))
	}
	return g
}

// TestValidateDirected searches a small directed graph, checks that the
// result validates, then breaks each rule in turn: every broken result is
// a *ValidationError naming the rule.
func TestValidateDirected(t *testing.T) {
	// 0→1→2, 0→3, 3→2, 4→0 (4 unreachable), 2 has no out-edge.
	g := directedCSR([][]uint32{{1, 3}, {2}, {}, {2}, {0}})
	part, err := partition.NewBlock1D(5, 1)
	if err != nil {
		t.Fatal(err)
	}
	err = inproc.Run(context.Background(), 1, func(ctx context.Context, c comm.Comm) error {
		b, err := NewDirected(c, g, part)
		if err != nil {
			return err
		}
		res, err := b.Run(ctx, 0)
		if err != nil {
			return err
		}
		if !slices.Equal(res.Level, []int32{0, 1, 2, 1, -1}) || !slices.Equal(res.Parent, []int64{0, 0, 1, 0, -1}) {
			t.Fatalf("levels %v, parents %v", res.Level, res.Parent)
		}
		if n, err := ValidateDirected(ctx, c, g, part, 0, res.Parent, res.Level, 4); err != nil || n != 4 {
			t.Fatalf("valid result: %d, %v", n, err)
		}
		for _, bad := range []struct {
			name   string
			parent []int64
			level  []int32
			nedge  int64
			rule   string
		}{
			{"root", []int64{1, 0, 1, 0, -1}, []int32{0, 1, 2, 1, -1}, 4, "root"},
			{"level", []int64{0, 0, 1, 0, -1}, []int32{0, 1, 3, 1, -1}, 4, "check 2"},
			{"not an edge", []int64{0, 0, 3, 2, -1}, []int32{0, 1, 2, 3, -1}, 4, "check 4"},
			{"unreached", []int64{0, 0, -1, 0, -1}, []int32{0, 1, -1, 1, -1}, 3, "check 3"},
			{"half", []int64{0, 0, 1, 0, 2}, []int32{0, 1, 2, 1, -1}, 4, "reached and unreached"},
			{"range", []int64{0, 0, 9, 0, -1}, []int32{0, 1, 2, 1, -1}, 4, "out of range"},
			{"nedge", []int64{0, 0, 1, 0, -1}, []int32{0, 1, 2, 1, -1}, 7, "nedge"},
		} {
			_, err := ValidateDirected(ctx, c, g, part, 0, bad.parent, bad.level, bad.nedge)
			var ve *ValidationError
			if !errors.As(err, &ve) || ve.Counts[bad.rule] == 0 {
				t.Errorf("%s: %v, want a violation of %q", bad.name, err, bad.rule)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
