package graph500

// The Kronecker graph's tuples written out (graphrun generate): exactly
// the tuples a run on any number of ranks generates (kernel 0 of the
// Graph500 specification), as an edge list or a .grb binary graph.

import (
	"context"
	"io"

	"github.com/graphrun/graphrun/gen/kronecker"
	"github.com/graphrun/graphrun/graph/edgelist"
)

// WriteTuples writes the tuples of the Kronecker graph p, generated in
// tuple order by threads goroutines, to w: as a .grb binary graph (grb;
// relabelled, its vertices the ids that occur in a tuple), whose vertex
// count it returns, or as an edge list of format (edgelist.EdgeListFormat's
// names).
func WriteTuples(ctx context.Context, w io.Writer, p kronecker.Params, threads int, grb bool, format string) (vertices int64, err error) {
	tuples := p.Share(0, 1, threads).Edges()
	if grb {
		h, err := edgelist.WriteGRB(ctx, w, tuples, false, false, 0)
		return h.Vertices, err
	}
	return 0, edgelist.WriteEdgeListOf(ctx, w, tuples, format, p.NumEdges(), 0)
}
