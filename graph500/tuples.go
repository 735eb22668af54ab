package graph500

// The Kronecker graph's tuples written out (graphrun generate): exactly
// the tuples a run on any number of ranks generates (kernel 0 of the
// Graph500 specification), as an edge list or a .grb binary graph.

import (
	"context"
	"io"

	"github.com/graphrun/graphrun/gen/kronecker"
	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/graph/edgelist"
)

// WriteTuples writes the tuples of the Kronecker graph p, generated in
// tuple order by threads goroutines, to w: as a .grb binary graph (grb;
// relabelled, its vertices the ids that occur in a tuple), whose vertex
// count it returns, or as an edge list of format (edgelist.EdgeListFormat's
// names; edgelist.EdgeListWeighted adds each tuple's weight).
func WriteTuples(ctx context.Context, w io.Writer, p kronecker.Params, threads int, grb bool, format string) (vertices int64, err error) {
	share := p.Share(0, 1, threads)
	tuples := share.Edges()
	switch {
	case grb:
		h, err := edgelist.WriteGRB(ctx, w, tuples, false, false, 0)
		return h.Vertices, err
	case format == edgelist.EdgeListWeighted:
		return 0, writeWeightedTuples(ctx, w, share)
	}
	return 0, edgelist.WriteEdgeListOf(ctx, w, tuples, format, p.NumEdges(), 0)
}

// writeWeightedTuples writes the tuples of share with kernel 3's weights
// (kronecker.Params.Weights) as a weighted edge list, "u v w" per line,
// each weight in the shortest text that reads back as its float32: the
// weighted graph that graphrun sssp generates, for gapbs's converter or
// graphrun sssp FILE.
func writeWeightedTuples(ctx context.Context, w io.Writer, share kronecker.Share) error {
	enc, err := edgelist.NewEdgeListEncoder(w, edgelist.EdgeListWeighted, share.Len())
	if err != nil {
		return err
	}
	edges := make([]graph.Edge, min(share.Len(), graph.ScanChunk))
	ws := make([]float32, len(edges))
	for first := int64(0); first < share.Len(); first += int64(len(edges)) {
		k := min(int64(len(edges)), share.Len()-first)
		if err := share.Read(ctx, first, edges[:k]); err != nil {
			return err
		}
		if err := share.ReadWeights(ctx, first, ws[:k]); err != nil {
			return err
		}
		if err := enc.WriteWeighted(edges[:k], ws[:k]); err != nil {
			return err
		}
	}
	return enc.Close()
}
