// graphrun convert: an edge list to graphrun's binary graph (.grb, read by
// every command without parsing), or any input — a .grb or a gapbs .sg
// included — back to a text or binary edge list. The conversions are
// graph.ReadInputEntries and graph.WriteConverted; this file maps the
// flags.

package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/graphrun/graphrun/graph"
)

func newConvertCommand() *cobra.Command {
	var out, format, to string
	cmd := &cobra.Command{
		Use:   "convert IN -o OUT",
		Short: "Convert an edge list to graphrun's binary graph (.grb), or a graph back to an edge list",
		Long: `Reads IN (SNAP text, .el, .wel, Matrix Market, .bel, optionally gzipped; a
graphrun .grb; a gapbs .sg or .wsg; - for standard input with --format) and
writes OUT: a .grb binary graph — relabelled dense ids with the original-id
map, checksummed, read by bfs and pagerank with positioned reads and no
parsing — or a text .el or binary .bel edge list with the input's ids.
OUT's extension chooses, or --to.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return flagError("output", "an output file is required")
			}
			kind := strings.ToLower(strings.TrimPrefix(filepath.Ext(out), "."))
			if cmd.Flags().Changed("to") {
				kind = strings.ToLower(to)
			}
			switch kind {
			case "grb", graph.EdgeListText, graph.EdgeListBinary:
			default:
				return flagError("to", "cannot write %q: want grb, el or bel (from -o's extension, or --to)", kind)
			}
			in, err := resolveFileInput(cmd, format, args[0], jobPlan{})
			if err != nil {
				return err
			}
			outs := outputsOf(cmd)
			outs.Input(in.Path)
			file := outs.File("output", out)
			if err := outs.Check(); err != nil {
				return err
			}
			ef, err := graph.ReadInputEntries(cmd.Context(), in, cmd.InOrStdin())
			if err != nil {
				return usageError{err}
			}
			var what string
			err = file.WriteAll(func(w io.Writer) (err error) {
				what, err = graph.WriteConverted(cmd.Context(), w, ef, kind, in.IDOffset)
				return err
			})
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "graphrun: wrote %s to %s\n", what, out)
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "output file: .grb (binary graph), .el (text) or .bel (binary edge list)")
	cmd.Flags().StringVar(&format, "format", "auto", "IN's format: snap, el, wel, mtx or bel (optionally .gz), grb, sg or wsg (auto: from the name; needed for -)")
	cmd.Flags().StringVar(&to, "to", "", "OUT's format, grb, el or bel (default: from -o's extension)")
	return cmd
}
