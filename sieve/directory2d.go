package sieve

import (
	"context"
	"fmt"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/frontier"
	"github.com/graphrun/graphrun/graph"
)

// PhaseSetup2D is the phase under which Exchange2D's traffic is counted
// (named for the 2D BFS engine, its first user).
const PhaseSetup2D = "bfs2d.setup"

// Exchange2D builds the cross directories of the 2D grid: Lv et al. §V-A's
// directory carried to the grid partition their §VIII–IX name as the next
// step. Rank (i, j) sends every column peer a the columns of its block g that
// fall in a's piece (the vertices of a's piece this block can use), and
// every row peer s the rows of its block in s's piece (the vertices of s's
// piece this block can discover), as raw bitmaps, and returns what the peers
// sent: per column peer a the own vertices with an entry in block (a, j),
// per row peer s those with a row in block (i, s). Every rank of the grid
// calls it once; the 2D BFS engine's sieve and the 2D validator's ghost
// exchange read what it returns.
func Exchange2D(ctx context.Context, g *graph.Block2D, row, col *comm.Sub) (colDirOut, rowDirOut []frontier.Bitmap, err error) {
	grid := g.Grid
	pw := int(grid.Part.Block / 64)
	piece := func(bm frontier.Bitmap, k, owner int) frontier.Bitmap {
		return bm[k*pw : k*pw+grid.Part.Words(owner)]
	}
	sendCol, sendRow := make([][]byte, grid.R), make([][]byte, grid.C)
	for a := range grid.R {
		sendCol[a] = piece(g.ColMask, a, grid.Rank(a, g.Col)).AppendBytes(nil)
	}
	for s := range grid.C {
		sendRow[s] = piece(g.RowMask, s, grid.Rank(g.Row, s)).AppendBytes(nil)
	}
	own := grid.Part.Words(g.Rank)
	load := func(sub *comm.Sub, send [][]byte) ([]frontier.Bitmap, error) {
		recv, err := sub.Alltoallv(ctx, PhaseSetup2D, send, nil)
		if err != nil {
			return nil, fmt.Errorf("sieve: exchanging the 2D directories: %w", err)
		}
		out := make([]frontier.Bitmap, len(recv))
		for k, m := range recv {
			out[k] = make(frontier.Bitmap, own)
			if err := out[k].LoadBytes(m); err != nil {
				return nil, fmt.Errorf("sieve: directory from rank %d: %w", sub.Members()[k], err)
			}
		}
		return out, nil
	}
	if colDirOut, err = load(col, sendCol); err != nil {
		return nil, nil, err
	}
	if rowDirOut, err = load(row, sendRow); err != nil {
		return nil, nil, err
	}
	return colDirOut, rowDirOut, nil
}
