package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/internal/output"
)

func newGenerateCommand() *cobra.Command {
	var f graphFlags
	var out, format string
	cmd := &cobra.Command{
		Use:   "generate -o FILE|-",
		Short: "Write the Graph500 Kronecker tuples that graphrun bfs searches",
		Long: `Writes the edge tuples of the Kronecker graph chosen by --scale, --edgefactor and
--seed, in tuple order: exactly the tuples that graphrun bfs with the same flags
searches, on any number of ranks. Formats: text .el ("u v" per line), binary
.bel (magic "GRUNEL01", uint64 tuple count, then little-endian int64 pairs),
or the .grb binary graph (relabelled: the vertices that occur in a tuple),
which bfs and pagerank read without parsing. With -o - the tuples go to
standard output, as text unless --format says.`,
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
				return flagError("output", "an output file is required (- for standard output)")
			}
			if out == output.Stdout && format == "" {
				format = graph.EdgeListText // standard output has no extension: text unless --format says
			}
			grb := strings.EqualFold(format, "grb") || format == "" && strings.EqualFold(filepath.Ext(out), ".grb")
			fmtName, err := graph.EdgeListFormat(out, format)
			if err != nil && !grb {
				if cmd.Flags().Changed("format") {
					return flagError("format", "%v", err)
				}
				return flagError("output", "%v", err)
			}
			outs := outputsOf(cmd)
			file := outs.File("output", out)
			if err := outs.Check(); err != nil {
				return err
			}
			m := params.NumEdges()
			if grb {
				// Relabelled: the vertices are the ids that occur in a tuple.
				share := params.Share(0, 1, threads).Edges()
				var h graph.GRBHeader
				err := file.WriteAll(func(w io.Writer) (err error) {
					h, err = graph.WriteGRB(cmd.Context(), w, share, false, false, 0)
					return err
				})
				if err != nil {
					return err
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "graphrun: wrote %d tuples of scale %d (%d vertices with an edge) to %s\n", m, params.Scale, h.Vertices, out)
				return nil
			}
			err = file.WriteAll(func(w io.Writer) error {
				return graph.WriteEdgeListOf(cmd.Context(), w, params.Share(0, 1, threads).Edges(), fmtName, m, 0)
			})
			if err != nil {
				return err
			}
			if f.noPermute {
				fmt.Fprint(cmd.ErrOrStderr(), noPermuteNote)
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "graphrun: wrote %d tuples of scale %d to %s\n", m, params.Scale, out)
			return nil
		},
	}
	f.register(cmd)
	cmd.Flags().StringVarP(&out, "output", "o", "", "output file (.el text, .bel binary or .grb binary graph), or - for standard output")
	cmd.Flags().StringVar(&format, "format", "", "el, bel or grb (default: from the file extension)")
	cmd.Flags().BoolVar(&f.noPermute, "no-permute", false, noPermuteUsage)
	return cmd
}
