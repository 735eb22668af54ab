package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/graphrun/graphrun/graph"
)

// generateChunk is how many tuples are generated and written at a time.
const generateChunk = 1 << 20

func newGenerateCommand() *cobra.Command {
	var f graphFlags
	var out, format string
	cmd := &cobra.Command{
		Use:   "generate -o FILE",
		Short: "Write the Graph500 Kronecker tuples that graphrun bfs searches",
		Long: `Writes the edge tuples of the Kronecker graph chosen by --scale, --edgefactor and
--seed, in tuple order: exactly the tuples that graphrun bfs with the same flags
searches, on any number of ranks. Formats: text .el ("u v" per line) or binary
.bel (magic "GRUNEL01", uint64 tuple count, then little-endian int64 pairs).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			params, err := f.params()
			if err != nil {
				return err
			}
			threads, err := f.threadCount(cmd, 1)
			if err != nil {
				return err
			}
			if out == "" {
				return flagError("output", "an output file is required")
			}
			w, err := graph.CreateEdgeList(out, format)
			if err != nil {
				return flagError("output", "%v", err)
			}
			defer w.Abort()
			m := params.NumEdges()
			buf := make([]graph.Edge, min(m, generateChunk))
			for first := int64(0); first < m; first += int64(len(buf)) {
				chunk := buf[:min(int64(len(buf)), m-first)]
				params.GenerateParallel(first, chunk, threads)
				if err := w.Write(chunk); err != nil {
					return err
				}
			}
			if err := w.Close(); err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "graphrun: wrote %d tuples of scale %d to %s\n", m, params.Scale, out)
			return nil
		},
	}
	f.register(cmd)
	cmd.Flags().StringVarP(&out, "output", "o", "", "output file (.el text or .bel binary)")
	cmd.Flags().StringVar(&format, "format", "", "el or bel (default: from the file extension)")
	return cmd
}
