package graph500

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/inproc"
	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/graph/edgelist"
)

// TestFileWeightsStaged loads a weighted .wel (more tuples than a staging
// chunk) on 1 to 3 ranks: every rank's staged tuples, mapped back to the
// file's ids, carry the file's weights in the file's order; a .grb is
// refused with ErrUnweighted; unit weights are all 1; nothing is left in
// the temporary directory.
func TestFileWeightsStaged(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	dir := t.TempDir()
	var text strings.Builder
	for i := range 2*stageChunk + 5 {
		fmt.Fprintf(&text, "%d %d %g\n", (i*7919)%3001, (i*104729+3)%2999, float32(i%1000)/1000)
	}
	wel := filepath.Join(dir, "g.wel")
	if err := os.WriteFile(wel, []byte(text.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	ef, err := edgelist.ReadWeightedEdges(wel, "")
	if err != nil {
		t.Fatal(err)
	}
	for ranks := 1; ranks <= 3; ranks++ {
		shares := make([]struct {
			edges   []graph.Edge
			weights []float32
		}, ranks)
		var original []int64
		err := inproc.Run(context.Background(), ranks, func(ctx context.Context, c comm.Comm) error {
			in, err := edgelist.NewInput(wel, "", false, nil)
			if err != nil {
				return err
			}
			in.Entries = true
			src, labels, err := loadTuples(ctx, c, in, true)
			if err != nil {
				return err
			}
			defer src.(weightedStaged).Close()
			ids := &fileIDs{original: labels.Original}
			if err := ids.gatherAll(ctx, c); err != nil {
				return err
			}
			all, err := readAll(ctx, src, 1000)
			if err != nil {
				return err
			}
			w, err := fileWeights(src, false)
			if err != nil {
				return err
			}
			ws := make([]float32, src.Len())
			for first := int64(0); first < src.Len(); first += 999 {
				if err := w.ReadWeights(ctx, first, ws[first:min(first+999, src.Len())]); err != nil {
					return err
				}
			}
			if err := w.ReadWeights(ctx, src.Len()-1, make([]float32, 2)); err == nil {
				return fmt.Errorf("a read of weights past the share's end gave no error")
			}
			unit, err := fileWeights(src, true)
			if err != nil {
				return err
			}
			ones := make([]float32, src.Len())
			if err := unit.ReadWeights(ctx, 0, ones); err != nil {
				return err
			}
			for _, x := range ones {
				if x != 1 {
					return fmt.Errorf("a unit weight of %v", x)
				}
			}
			if c.Rank() == 0 {
				original = ids.all // the whole map back to the file's ids
			}
			shares[c.Rank()].edges, shares[c.Rank()].weights = all, ws
			return nil
		})
		if err != nil {
			t.Fatalf("%d ranks: %v", ranks, err)
		}
		var edges []graph.Edge
		var ws []float32
		for _, s := range shares {
			for _, e := range s.edges {
				edges = append(edges, graph.Edge{U: original[e.U], V: original[e.V]})
			}
			ws = append(ws, s.weights...)
		}
		if len(edges) != len(ef.Edges) {
			t.Fatalf("%d ranks: %d tuples, the file has %d", ranks, len(edges), len(ef.Edges))
		}
		for i := range edges {
			if edges[i] != ef.Edges[i] || ws[i] != ef.Weights[i] {
				t.Fatalf("%d ranks: tuple %d is %v weighing %v, the file's %v weighing %v", ranks, i, edges[i], ws[i], ef.Edges[i], ef.Weights[i])
			}
		}
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Fatalf("the staging left %d files in the temporary directory", len(left))
	}
	grb := filepath.Join(dir, "g.grb")
	f, err := os.Create(grb)
	if err != nil {
		t.Fatal(err)
	}
	whole, err := edgelist.NewFileShare(wel, "", 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := edgelist.WriteGRB(context.Background(), f, whole, true, false, 0); err != nil {
		t.Fatal(err)
	}
	f.Close()
	err = inproc.Run(context.Background(), 1, func(ctx context.Context, c comm.Comm) error {
		in, err := edgelist.NewInput(grb, "", false, nil)
		if err != nil {
			return err
		}
		in.Entries = true
		_, _, err = loadTuples(ctx, c, in, true)
		return err
	})
	if !errors.Is(err, edgelist.ErrUnweighted) || !strings.Contains(err.Error(), grb) {
		t.Fatalf("weights of a .grb: %v", err)
	}
}
