package graph500

import (
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"slices"
	"strconv"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/partition"
	"github.com/graphrun/graphrun/spmv/bfs"
)

// sendTree formats this rank's vertices as "vertex parent level" lines and
// delivers every rank's lines to sink on rank 0, in rank order (which is
// vertex order under the block partition). With ids (a graph read from a
// file) the vertices and parents are the file's ids (sendFileTree).
//
// With order (a fused run, whose vertices are renumbered) the lines are in
// the generator's ids and order: every rank cuts its vertices into the
// runs that are contiguous in the original numbering, and rank 0 writes
// the runs of all ranks sorted by their first original id.
func sendTree(ctx context.Context, c comm.Comm, part partition.Block1D, res *bfs.Result, ids *fileIDs, order *partition.SegmentOrder, sink func([]byte) error) error {
	if ids != nil {
		return sendFileTree(ctx, c, res, ids, sink)
	}
	first := part.First(c.Rank())
	originalID := func(v int64) int64 { return v }
	if order != nil {
		originalID = func(v int64) int64 {
			if v < 0 { // no parent
				return v
			}
			return order.Original(v)
		}
	}
	lines := make([]byte, 0, 24*len(res.Parent))
	appendLines := func(lo, hi, original int64) {
		for v := lo; v < hi; v++ {
			lines = strconv.AppendInt(lines, original+v-lo, 10)
			lines = append(lines, ' ')
			lines = strconv.AppendInt(lines, originalID(res.Parent[v-first]), 10)
			lines = append(lines, ' ')
			lines = strconv.AppendInt(lines, int64(res.Level[v-first]), 10)
			lines = append(lines, '\n')
		}
	}
	end := first + int64(len(res.Parent))
	if order == nil {
		appendLines(first, end, first)
	} else {
		// Runs: uvarint original first id, uvarint byte length, the lines.
		var chunk []byte
		order.Runs(first, end, func(lo, hi, original int64) {
			lines = lines[:0]
			appendLines(lo, hi, original)
			chunk = binary.AppendUvarint(chunk, uint64(original))
			chunk = binary.AppendUvarint(chunk, uint64(len(lines)))
			chunk = append(chunk, lines...)
		})
		lines = chunk
	}
	send := make([][]byte, c.Size())
	send[0] = lines
	recv, err := c.Alltoallv(ctx, "driver.tree", send, nil)
	if err != nil {
		return fmt.Errorf("gathering the search tree: %w", err)
	}
	if order != nil && c.Rank() == 0 {
		if recv, err = sortRuns(recv); err != nil {
			return fmt.Errorf("gathering the search tree: %w", err)
		}
	}
	return deliverTree(ctx, c, recv, sink)
}

// sortRuns splits the ranks' messages of runs (sendTree) and returns the
// runs' lines in the order of their first original ids.
func sortRuns(recv [][]byte) ([][]byte, error) {
	type run struct {
		first int64
		lines []byte
	}
	var runs []run
	for r, msg := range recv {
		for len(msg) > 0 {
			first, k := binary.Uvarint(msg)
			if k <= 0 {
				return nil, fmt.Errorf("rank %d: corrupt run header", r)
			}
			msg = msg[k:]
			n, k := binary.Uvarint(msg)
			if k <= 0 || n > uint64(len(msg)-k) {
				return nil, fmt.Errorf("rank %d: corrupt run length", r)
			}
			runs = append(runs, run{int64(first), msg[k : k+int(n)]})
			msg = msg[k+int(n):]
		}
	}
	slices.SortFunc(runs, func(a, b run) int { return cmp.Compare(a.first, b.first) })
	out := make([][]byte, len(runs))
	for k, r := range runs {
		out[k] = r.lines
	}
	return out, nil
}

// deliverTree hands the gathered chunks to sink on rank 0; every rank
// learns whether rank 0 could write, so that all fail together.
func deliverTree(ctx context.Context, c comm.Comm, recv [][]byte, sink func([]byte) error) error {
	var sinkErr error
	if c.Rank() == 0 {
		for _, chunk := range recv {
			if sinkErr = sink(chunk); sinkErr != nil {
				break
			}
		}
	}
	// Every rank learns whether rank 0 could write, so that all fail together.
	failed := []int64{0}
	if sinkErr != nil {
		failed[0] = 1
	}
	if err := c.AllreduceInt64(ctx, "driver.tree", failed, comm.Max); err != nil {
		return err
	}
	if sinkErr != nil {
		return sinkErr
	}
	if failed[0] != 0 {
		return fmt.Errorf("rank 0 could not write the search tree")
	}
	return nil
}
