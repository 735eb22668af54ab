// The weights of a file's tuples for kernel 3 (the Graph500
// specification's "Kernel 3 – Single-Source Shortest Paths" on the user's
// graph): a weighted share is staged as its tuples are (filetuples.go),
// its weights in a second unlinked temporary file, 4 bytes a tuple, that
// graph.BuildWeights reads back in the tuples' order; a file without
// weights can be searched with every weight 1 (unitWeights).

package graph500

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"unsafe"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/graph/edgelist"
)

// weightedStaged is a staged share with its weights: weights[i], in the
// machine's byte order, is tuple i's.
type weightedStaged struct {
	*stagedTuples
	weights *os.File
}

// floatBytes is the memory of xs as bytes (the staged weights' layout).
func floatBytes(xs []float32) []byte {
	if len(xs) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&xs[0])), 4*len(xs))
}

// ReadWeights reads the weights of tuples [first, first+len(out)) back
// from the file.
func (s weightedStaged) ReadWeights(ctx context.Context, first int64, out []float32) error {
	if first < 0 || first+int64(len(out)) > s.n {
		return fmt.Errorf("graph500: read of weights [%d, %d) from a share of %d", first, first+int64(len(out)), s.n)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if _, err := s.weights.ReadAt(floatBytes(out), 4*first); err != nil {
		return fmt.Errorf("reading back the staged weights: %w", err)
	}
	return nil
}

// Close frees both staging files.
func (s weightedStaged) Close() error {
	err := s.weights.Close()
	if e := s.stagedTuples.Close(); err == nil {
		err = e
	}
	return err
}

// stageWeightedTuples is stageTuples for a weighted share: the tuples and
// their weights, 12 bytes of disk per tuple. A bad weight is the file's
// error naming its line.
func stageWeightedTuples(ctx context.Context, share edgelist.WeightedShare, labels *graph.Labels, name string) (weightedStaged, error) {
	f, err := stagingFile(name)
	if err != nil {
		return weightedStaged{}, err
	}
	wf, err := stagingFile(name)
	if err != nil {
		f.Close()
		return weightedStaged{}, err
	}
	s := weightedStaged{stagedTuples: &stagedTuples{f: f}, weights: wf}
	w, ww := bufio.NewWriterSize(f, 1<<20), bufio.NewWriterSize(wf, 1<<18)
	packed := make([]uint64, graph.ScanChunk)
	err = share.ScanWeighted(ctx, func(es []graph.Edge, ws []float32) error {
		if err := s.stage(es, labels, packed, w); err != nil {
			return err
		}
		if _, err := ww.Write(floatBytes(ws)); err != nil {
			return fmt.Errorf("staging the weights (set TMPDIR to a disk with room for 4 bytes a tuple): %w", err)
		}
		return nil
	})
	if err == nil && s.n != labels.Edges {
		err = graph.ErrShareChanged
	}
	if err == nil {
		err = w.Flush()
	}
	if err == nil {
		err = ww.Flush()
	}
	if err != nil {
		s.Close()
		var le *edgelist.EdgeListError
		if errors.As(err, &le) {
			return weightedStaged{}, err // it names the file and line
		}
		return weightedStaged{}, fmt.Errorf("read edges %s: %w", name, err)
	}
	return s, nil
}

// unitWeights gives every tuple of a share weight 1: shortest paths on a
// file without weights count the edges of a path.
type unitWeights struct{ graph.TupleSource }

// ReadWeights writes 1 for every tuple of [first, first+len(out)).
func (u unitWeights) ReadWeights(ctx context.Context, first int64, out []float32) error {
	if first < 0 || first+int64(len(out)) > u.Len() {
		return fmt.Errorf("graph500: read of weights [%d, %d) from a share of %d", first, first+int64(len(out)), u.Len())
	}
	for i := range out {
		out[i] = 1
	}
	return ctx.Err()
}

// loadWeighted is loadTuples for an undirected view with the weights:
// the share is relabelled, then staged with its weights.
func loadWeighted(ctx context.Context, c comm.Comm, in *edgelist.Input) (graph.TupleSource, *graph.Labels, error) {
	if !in.Entries {
		return nil, nil, fmt.Errorf("graph500: the weights of %s are read for its undirected view only", in.Path)
	}
	if in.Detected == edgelist.EdgeFormatGRB {
		return nil, nil, &edgelist.EdgeListError{Name: in.Path, Line: 1, Err: fmt.Errorf("%w: a .grb file holds none (convert stores no weights)", edgelist.ErrUnweighted)}
	}
	share, err := in.WeightedShare(ctx, c)
	if err != nil {
		return nil, nil, err
	}
	labels, err := graph.RelabelShare(ctx, c, share)
	if err != nil {
		return nil, nil, err
	}
	staged, err := stageWeightedTuples(ctx, share, labels, in.Path)
	if err != nil {
		return nil, nil, err
	}
	return staged, labels, nil
}

// fileWeights is the source of the weights of share, a loaded file's
// tuples: share itself when it was staged with its weights, every weight
// 1 with unit.
func fileWeights(share graph.TupleSource, unit bool) (graph.WeightSource, error) {
	if unit {
		return unitWeights{share}, nil
	}
	w, ok := share.(graph.WeightSource)
	if !ok {
		return nil, fmt.Errorf("graph500: the tuples were loaded without their weights")
	}
	return w, nil
}
