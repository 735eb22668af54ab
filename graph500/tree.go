package graph500

import (
	"context"
	"fmt"
	"strconv"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/partition"
	"github.com/graphrun/graphrun/spmv"
)

// sendTree formats this rank's vertices as "vertex parent level" lines and
// delivers every rank's lines to sink on rank 0, in rank order (which is
// vertex order under the block partition). With ids (a graph read from a
// file) the vertices and parents are the file's ids (sendFileTree).
func sendTree(ctx context.Context, c comm.Comm, part partition.Block1D, res *spmv.Result, ids *fileIDs, sink func([]byte) error) error {
	if ids != nil {
		return sendFileTree(ctx, c, res, ids, sink)
	}
	first := part.First(c.Rank())
	lines := make([]byte, 0, 24*len(res.Parent))
	for v, p := range res.Parent {
		lines = strconv.AppendInt(lines, first+int64(v), 10)
		lines = append(lines, ' ')
		lines = strconv.AppendInt(lines, p, 10)
		lines = append(lines, ' ')
		lines = strconv.AppendInt(lines, int64(res.Level[v]), 10)
		lines = append(lines, '\n')
	}
	send := make([][]byte, c.Size())
	send[0] = lines
	recv, err := c.Alltoallv(ctx, "driver.tree", send, nil)
	if err != nil {
		return fmt.Errorf("gathering the search tree: %w", err)
	}
	return deliverTree(ctx, c, recv, sink)
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
