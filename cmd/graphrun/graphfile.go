// The commands that write graph files. graphrun generate writes the
// Graph500 Kronecker tuples bfs searches, as an edge list or a .grb binary
// graph; graphrun convert turns an edge list into graphrun's binary graph
// (.grb, read by every command without parsing), or any input — a .grb or
// a gapbs .sg included — back to a text or binary edge list. The writers
// are the graph package's (edgelist.WriteEdgeListOf, edgelist.WriteGRB,
// edgelist.ReadInputEntries, edgelist.WriteConverted); these commands map the
// flags and choose the format from -o's extension or a flag.

package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/graphrun/graphrun/graph/edgelist"
	"github.com/graphrun/graphrun/graph500"
	"github.com/graphrun/graphrun/internal/output"
)

// fileKind is the kind of file path names by its extension, lower case
// without the dot ("grb", "el"; "" for none).
func fileKind(path string) string {
	return strings.ToLower(strings.TrimPrefix(filepath.Ext(path), "."))
}

// addOutFlag adds -o/--out, the file a command writes, and --output, its
// hidden alias; outFlag names the one given.
func addOutFlag(cmd *cobra.Command, out *string, usage string) {
	cmd.Flags().StringVarP(out, "out", "o", "", usage)
	cmd.Flags().StringVar(out, "output", "", usage)
	hideFlags(cmd, "output")
}

// outFlag is the name of the output flag given to cmd: "output" for the
// alias, else "out".
func outFlag(cmd *cobra.Command) string {
	if cmd.Flags().Changed("output") {
		return "output"
	}
	return "out"
}

func newGenerateCommand(g *globalFlags) *cobra.Command {
	var f graphFlags
	var out, format string
	cmd := &cobra.Command{
		Use:   "generate -o FILE|-",
		Short: "Write the Graph500 Kronecker tuples that graphrun bfs searches",
		Example: `  graphrun generate -s 16 -o kron16.el      # text edge list, "u v" per line
  graphrun generate -s 20 -o kron20.wel     # with kernel 3's weights, "u v w" per line
  graphrun generate -s 20 -o kron20.grb     # binary graph, read by bfs and pagerank
  graphrun generate -s 10 -o - | head`,
		Long: `Writes the edge tuples of the Kronecker graph chosen by --scale, --edgefactor and
--seed, in tuple order: exactly the tuples that graphrun bfs with the same flags
searches, on any number of ranks. Formats: text .el ("u v" per line), weighted
text .wel ("u v w": the weights graphrun sssp gives the same tuples, each
exact as written), binary .bel (magic "GRUNEL01", uint64 tuple count, then
little-endian int64 pairs), or the .grb binary graph (relabelled: the
vertices that occur in a tuple), which bfs and pagerank read without
parsing. With -o - the tuples go to standard output, as text unless
--format says.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			params, err := f.params()
			if err != nil {
				return err
			}
			threads, err := threadsOf(cmd, g.threads, 1)
			if err != nil {
				return err
			}
			if out == "" {
				return flagError("out", "an output file is required (- for standard output)")
			}
			if out == output.Stdout && format == "" {
				format = edgelist.EdgeListText // standard output has no extension: text unless --format says
			}
			grb := strings.EqualFold(format, "grb") || format == "" && fileKind(out) == "grb"
			fmtName, err := edgelist.EdgeListFormat(out, format)
			if err != nil && !grb {
				if cmd.Flags().Changed("format") {
					return flagError("format", "%v", err)
				}
				return flagError(outFlag(cmd), "%v", err)
			}
			outs := outputsOf(cmd)
			file := outs.File(outFlag(cmd), out)
			if err := outs.Check(); err != nil {
				return err
			}
			var vertices int64
			err = file.WriteAll(func(w io.Writer) (err error) {
				vertices, err = graph500.WriteTuples(cmd.Context(), w, params, threads, grb, fmtName)
				return err
			})
			if err != nil {
				return err
			}
			m := params.NumEdges()
			if grb {
				fmt.Fprintf(cmd.ErrOrStderr(), "graphrun: wrote %d tuples of scale %d (%d vertices with an edge) to %s\n", m, params.Scale, vertices, out)
				return nil
			}
			if f.noPermute {
				fmt.Fprint(cmd.ErrOrStderr(), noPermuteNote)
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "graphrun: wrote %d tuples of scale %d to %s\n", m, params.Scale, out)
			return nil
		},
	}
	jobFlags(cmd, groupThreads)
	f.register(cmd)
	addOutFlag(cmd, &out, "output file (.el text, .wel weighted text, .bel binary or .grb binary graph), or - for stdout")
	cmd.Flags().StringVar(&format, "format", "", "el, wel, bel or grb (default: from the file extension)")
	cmd.Flags().BoolVar(&f.noPermute, "no-permute", false, noPermuteUsage)
	return cmd
}

// symmetricListNote follows convert's message when a symmetric input (a
// symmetric Matrix Market matrix, an undirected gapbs graph, a symmetric
// .grb) was written as an edge list, which has no symmetric flag.
const symmetricListNote = `graphrun: the input is undirected: the list holds each edge once, so bfs counts the same
  tuples as on the input; pagerank reads a list as directed edges (--undirected adds the reverses)
`

func newConvertCommand() *cobra.Command {
	var out, format, to string
	cmd := &cobra.Command{
		Use:   "convert IN -o OUT",
		Short: "Convert an edge list to graphrun's binary graph (.grb), or back to an edge list",
		Example: `  graphrun convert testdata/road-luxembourg-osm.mtx -o lux.grb
  graphrun convert testdata/soc-Slashdot0902.txt.gz -o slashdot.grb
  graphrun convert lux.grb -o lux.el        # back to a text edge list`,
		Long: `Reads IN (SNAP text, .el, .wel, Matrix Market, .bel, optionally gzipped; a
graphrun .grb; a gapbs .sg or .wsg; - for standard input with --format) and
writes OUT: a .grb binary graph — relabelled dense ids with the original-id
map, checksummed, read by bfs and pagerank with positioned reads and no
parsing — or a text .el or binary .bel edge list with the input's ids.
OUT's extension chooses, or --to. An undirected input (Matrix Market
symmetric, gapbs -s, a .grb of either) keeps its flag in a .grb; an edge
list gets each of its edges once.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return flagError("out", "an output file is required")
			}
			kind := fileKind(out)
			if cmd.Flags().Changed("to") {
				kind = strings.ToLower(to)
			}
			switch kind {
			case "grb", edgelist.EdgeListText, edgelist.EdgeListBinary:
			default:
				return flagError("to", "cannot write %q: want grb, el or bel (from -o's extension, or --to)", kind)
			}
			in, err := resolveFileInput(cmd, format, args[0], jobPlan{})
			if err != nil {
				return err
			}
			outs := outputsOf(cmd)
			outs.Input(in.Path)
			file := outs.File(outFlag(cmd), out)
			if err := outs.Check(); err != nil {
				return err
			}
			ef, err := edgelist.ReadInputEntries(cmd.Context(), in, cmd.InOrStdin())
			if err != nil {
				return usageError{err}
			}
			var what string
			err = file.WriteAll(func(w io.Writer) (err error) {
				what, err = edgelist.WriteConverted(cmd.Context(), w, ef, kind, in.IDOffset)
				return err
			})
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "graphrun: wrote %s to %s\n", what, out)
			if ef.Symmetric && kind != "grb" {
				fmt.Fprint(cmd.ErrOrStderr(), symmetricListNote)
			}
			return nil
		},
	}
	addOutFlag(cmd, &out, "output file: .grb (binary graph), .el (text) or .bel (binary edge list)")
	cmd.Flags().StringVar(&format, "format", "auto", "IN's format: snap, el, wel, mtx, bel (optionally .gz), grb, sg or wsg (auto: from the name)")
	cmd.Flags().StringVar(&to, "to", "", "OUT's format, grb, el or bel (default: from -o's extension)")
	return cmd
}
