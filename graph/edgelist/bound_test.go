package edgelist

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/inproc"
	"github.com/graphrun/graphrun/graph"
)

// TestMaxEdgesBoundsWhatIsRead: a gzip of one repeated line "0 1" is
// small and expands to many edges; with Input.MaxEdges below a rank's
// share, a rank's scan fails with an *fs.PathError naming the file once
// it has read past the bound — having allocated what its chunks take,
// not what the share holds — and the job ends with it. Without a bound the same
// share reads whole.
func TestMaxEdgesBoundsWhatIsRead(t *testing.T) {
	const lines = 1 << 20
	var b bytes.Buffer
	w, _ := gzip.NewWriterLevel(&b, gzip.BestSpeed)
	_, _ = w.Write(bytes.Repeat([]byte("0 1\n"), lines))
	_ = w.Close()
	path := filepath.Join(t.TempDir(), "repeated.el.gz")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		max   int64
		fails bool
	}{{1 << 16, true}, {0, false}, {lines, false}} {
		in, err := NewInput(path, "", false, nil)
		if err != nil {
			t.Fatal(err)
		}
		in.MaxEdges = c.max
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		errs := make([]error, 2)
		counts := make([]int64, 2)
		err = inproc.Run(context.Background(), 2, func(ctx context.Context, cm comm.Comm) error {
			share, err := in.Share(ctx, cm)
			if err != nil {
				return err
			}
			errs[cm.Rank()] = share.Scan(ctx, func(es []graph.Edge) error {
				counts[cm.Rank()] += int64(len(es))
				return nil
			})
			return errs[cm.Rank()]
		})
		runtime.ReadMemStats(&after)
		if !c.fails {
			if err != nil || counts[0]+counts[1] != lines {
				t.Errorf("MaxEdges %d: %v, %d edges read of %d", c.max, err, counts[0]+counts[1], lines)
			}
			continue
		}
		var pe *fs.PathError
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), "repeated.el.gz") || !strings.Contains(err.Error(), "more than 65536 edges") {
			t.Errorf("MaxEdges %d: the job ends with %v, want an *fs.PathError naming the file and the bound", c.max, err)
		}
		for rank, err := range errs {
			if err == nil || (!errors.As(err, &pe) && !errors.Is(err, context.Canceled)) {
				t.Errorf("rank %d: %v, want the bound's error or the job's cancellation", rank, err)
			}
			if counts[rank] > c.max {
				t.Errorf("rank %d handed on %d edges past the bound of %d", rank, counts[rank], c.max)
			}
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
			t.Errorf("a bounded read allocated %d MiB", grew>>20)
		}
	}
}

// TestMaxEdgesBoundsASpreadStream: a stream, whose parts the ranks hold
// in memory as rank 0 spreads them, fails on every rank in the round that
// passes the bound, naming the input.
func TestMaxEdgesBoundsASpreadStream(t *testing.T) {
	data := bytes.Repeat([]byte("0 1\n"), 1<<21)
	in, err := NewInput(StdinName, "el", true, bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	in.MaxEdges = 1 << 19
	err = inproc.Run(context.Background(), 2, func(ctx context.Context, cm comm.Comm) error {
		_, err := in.Share(ctx, cm)
		return err
	})
	var pe *fs.PathError
	if !errors.As(err, &pe) || pe.Path != StdinName || !strings.Contains(err.Error(), "more than 524288 edges") {
		t.Fatalf("%v, want an *fs.PathError naming standard input and the bound", err)
	}
}

// TestMaxEdgesBoundsAWeightedShare: the weighted share of a file (shortest
// paths read .wel weights) is bounded as the plain one is.
func TestMaxEdgesBoundsAWeightedShare(t *testing.T) {
	path := filepath.Join(t.TempDir(), "repeated.wel")
	if err := os.WriteFile(path, bytes.Repeat([]byte("0 1 2.5\n"), 1<<17), 0o644); err != nil {
		t.Fatal(err)
	}
	in, err := NewInput(path, "", false, nil)
	if err != nil {
		t.Fatal(err)
	}
	in.MaxEdges = 1 << 10
	err = inproc.Run(context.Background(), 1, func(ctx context.Context, cm comm.Comm) error {
		share, err := in.WeightedShare(ctx, cm)
		if err != nil {
			return err
		}
		return share.ScanWeighted(ctx, func([]graph.Edge, []float32) error { return nil })
	})
	var pe *fs.PathError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "repeated.wel") || !strings.Contains(err.Error(), "more than 1024 edges") {
		t.Fatalf("%v, want an *fs.PathError naming the file and the bound", err)
	}
}
