package graph500

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/inproc"
	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/graph/edgelist"
)

// readAll reads every tuple of src in chunks of k.
func readAll(ctx context.Context, src graph.TupleSource, k int) ([]graph.Edge, error) {
	out := make([]graph.Edge, src.Len())
	for first := 0; first < len(out); first += k {
		if err := src.Read(ctx, int64(first), out[first:min(first+k, len(out))]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// TestFileTuples checks kernel 1's sources of a file's tuples on 1 to 3
// ranks: the staged share of a text file reads back (whole, in chunks
// that cross the staging buffer, and from concurrent readers) the tuples
// the in-memory share holds, and leaves no file in the temporary
// directory; a .grb share read from the file is the in-memory share of
// the same graph; a span is its part.
func TestFileTuples(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	dir := t.TempDir()
	var text strings.Builder
	for i := range 3*stageChunk + 17 {
		fmt.Fprintf(&text, "%d %d\n", (i*7919)%5003, (i*104729+3)%4999)
	}
	el := filepath.Join(dir, "g.el")
	if err := os.WriteFile(el, []byte(text.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	grb := filepath.Join(dir, "g.grb")
	f, err := os.Create(grb)
	if err != nil {
		t.Fatal(err)
	}
	whole, err := edgelist.NewFileShare(el, "", 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := edgelist.WriteGRB(context.Background(), f, whole, true, false, 0); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	for ranks := 1; ranks <= 3; ranks++ {
		err := inproc.Run(context.Background(), ranks, func(ctx context.Context, c comm.Comm) error {
			return checkFileTuples(ctx, c, el, grb, tmp)
		})
		if err != nil {
			t.Fatalf("%d ranks: %v", ranks, err)
		}
	}
}

// checkFileTuples is one rank of TestFileTuples.
func checkFileTuples(ctx context.Context, c comm.Comm, el, grb, tmp string) error {
	in, err := edgelist.NewInput(el, "", false, nil)
	if err != nil {
		return err
	}
	in.Entries = false // a directed search's share: in memory
	mem, _, err := loadTuples(ctx, c, in, false)
	if err != nil {
		return err
	}
	if _, ok := mem.(packedTuples); !ok {
		return fmt.Errorf("a directed share is a %T, want it in memory", mem)
	}
	want, err := readAll(ctx, mem, 1<<20)
	if err != nil {
		return err
	}
	in.Entries = true
	staged, _, err := loadTuples(ctx, c, in, false)
	if err != nil {
		return err
	}
	defer staged.(*stagedTuples).Close()
	if err := c.Barrier(ctx, "test.staged"); err != nil { // every rank's file made and unlinked
		return err
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		return fmt.Errorf("the staging left %d files in the temporary directory", len(left))
	}
	g, closer, err := edgelist.OpenGRB(grb)
	if err != nil {
		return err
	}
	defer closer.Close()
	lo, hi := graph.ShareStart(g.Tuples, c.Rank(), c.Size()), graph.ShareStart(g.Tuples, c.Rank()+1, c.Size())
	var grbWant []graph.Edge
	if err := g.ScanTuples(ctx, lo, hi, func(packed []uint64) error {
		for _, e := range packedTuples(packed) {
			grbWant = append(grbWant, graph.Edge{U: int64(e >> 32), V: int64(e & 0xffffffff)})
		}
		return nil
	}); err != nil {
		return err
	}
	fromFile, _, err := loadGRB(ctx, c, grb, false)
	if err != nil {
		return err
	}
	defer fromFile.(openTuples).Close()
	for _, k := range []int{1 << 20, stageChunk + 3, 1000} {
		for _, s := range []struct {
			name string
			src  graph.TupleSource
			want []graph.Edge
		}{{"staged", staged, want}, {".grb", fromFile, grbWant}} {
			got, err := readAll(ctx, s.src, k)
			if err != nil {
				return err
			}
			if !slices.Equal(got, s.want) {
				return fmt.Errorf("%s share read in chunks of %d differs from the tuples (%d of %d)", s.name, k, len(got), len(s.want))
			}
		}
	}
	// Concurrent readers of parts, as the blocks of a rank read them.
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for p := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lo, hi := graph.ShareStart(staged.Len(), p, len(errs)), graph.ShareStart(staged.Len(), p+1, len(errs))
			got, err := readAll(ctx, spanTuples{src: staged, lo: lo, hi: hi}, 777)
			if err == nil && !slices.Equal(got, want[lo:hi]) {
				err = fmt.Errorf("part %d of the staged share differs", p)
			}
			errs[p] = err
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	if err := staged.Read(ctx, staged.Len()-1, make([]graph.Edge, 2)); err == nil {
		return fmt.Errorf("a read past the share's end gave no error")
	}
	return nil
}
