// Command graphrun is the command line of graphrun, a distributed graph
// analytics engine: Graph500 breadth-first search on Kronecker graphs and on
// the user's graphs, PageRank, benchmark matrices and reports. This package
// only turns flags into job configurations and prints results; the
// algorithms live in the library packages.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
	"unicode"

	"github.com/spf13/cobra"

	"github.com/graphrun/graphrun/comm/launch"
	"github.com/graphrun/graphrun/internal/fielderr"
	"github.com/graphrun/graphrun/internal/interrupt"
	"github.com/graphrun/graphrun/internal/output"
	"github.com/graphrun/graphrun/internal/untrusted"
)

// usageError marks bad input (flags, files): graphrun exits with status 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// flagError returns a usage error naming the flag.
func flagError(flag string, format string, args ...any) error {
	return usageError{fmt.Errorf("--%s: %s", flag, fmt.Sprintf(format, args...))}
}

// flagErrors turns a library's error about a configuration field, a
// fielderr.Error, into a usage error naming the flag that sets the field
// ("--repeat: 0 is less than 1"). Other errors are returned as they are.
func flagErrors(err error) error {
	if fe, ok := fielderr.As(err); ok {
		return flagError(flagOf(fe.Field), "%s", flagWords(fe.Msg))
	}
	return err
}

// flagOf maps a library configuration field, as a fielderr.Error names it
// ("BlocksPerRank"), to the flag that sets it ("blocks-per-rank"): the
// field's words in kebab case, except for the fields whose flag reads
// otherwise (renamedFlag). The command line is the only place that knows
// flag names.
func flagOf(field string) string {
	if flag, ok := renamedFlag(field); ok {
		return flag
	}
	var b strings.Builder
	for i, r := range field {
		if unicode.IsUpper(r) {
			if i > 0 && field[i-1] != '-' && !unicode.IsUpper(rune(field[i-1])) {
				b.WriteByte('-')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// renamedFlag is the flag of a configuration field whose flag is not the
// field's name in kebab case.
func renamedFlag(field string) (string, bool) {
	switch field {
	case "EdgeFactor":
		return "edgefactor", true
	case "NumRoots": // graph500.Config
		return "roots", true
	case "GridRows", "GridCols":
		return "grid", true
	case "Partition2D":
		return "partition", true
	case "Unfused":
		return "no-fuse", true
	case "Personalization": // pagerank.Config
		return "personalize", true
	case "Weighted":
		return "weights", true
	}
	return "", false
}

// usage is flagErrors for a check whose every error is bad input: one
// without a field is a usage error too. nil stays nil.
func usage(err error) error {
	if err = flagErrors(err); err != nil && !isUsage(err) {
		return usageError{err}
	}
	return err
}

// exitCode maps an error to graphrun's exit status: 0 success, the status
// the job decides (launch.JobStatus: a --procs job's is that of the rank
// at fault, and a rank it started that failed because of another rank
// exits with launch.ExitBlamed, which the launcher turns into that other
// rank's), 2 bad input (flags, files, outputs), 3 a pagerank run not
// converged within its iteration limit, 1 anything else (including a
// failed validation). An interrupted command's status, 130
// or 143, is runMain's.
func exitCode(err error) int {
	if err == nil {
		return 0
	}
	if status, ok := launch.JobStatus(err, os.LookupEnv); ok {
		return status
	}
	if isUsage(err) {
		return 2
	}
	if errors.As(err, new(notConvergedError)) {
		return exitNotConverged
	}
	return 1
}

// exitNotConverged is the exit status of a pagerank run that stopped at
// its iteration limit without converging (its outputs are written).
const exitNotConverged = 3

// isUsage reports whether err is bad input: a usage error, or an output
// path refused before any work.
func isUsage(err error) bool {
	var ue usageError
	var oe *output.Error
	return errors.As(err, &ue) || errors.As(err, &oe)
}

func newRootCommand(stdout, stderr io.Writer, prof *profileFlags) *cobra.Command {
	root := &cobra.Command{
		Use:           "graphrun",
		Short:         "Distributed graph analytics: Graph500 BFS with compressed, sieved frontiers, and PageRank",
		Version:       version,
		Example:       rootExample,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetVersionTemplate(versionLine())
	g := &globalFlags{}
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error {
		if err := checkJobFlags(cmd); err != nil {
			return err
		}
		// The command's outputs: the profiles join them here, the command
		// adds its own and checks them all before any work.
		outs := output.NewSet(cmd.Context(), cmd.OutOrStdout())
		cmd.SetContext(context.WithValue(cmd.Context(), outputsKey{}, outs))
		return prof.start(outs)
	}
	g.register(root.PersistentFlags())
	prof.register(root)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	bench := newBenchCommand(g)
	bench.AddCommand(
		newBenchBFSCommand(g, "bfs-codecs", "Lv et al.'s algorithms, the packed sieve, direction-optimised runs: bytes, TEPS"),
		newBenchBFSCommand(g, "bfs-scaling", "The default and the packed exchange on 1, 2, 4, ... up to --ranks ranks"),
		newBenchPageRankCommand(g),
		newBenchPageRankSpeedCommand(g))
	bench.AddCommand(newBenchAllreduceCommand(g), newBenchMemoryCommand(g))
	root.AddCommand(newBFSCommand(g), newSSSPCommand(g), newGenerateCommand(g), newConvertCommand(), newVersionCommand(), bench, newPageRankCommand(g), newReportCommand())
	registerCompletions(root)
	setUsage(root)
	return root
}

// outputsKey is the context key of a command's output Set.
type outputsKey struct{}

// invocationKey is the context key of the invocation runContext runs.
type invocationKey struct{}

// invocation is graphrun's command line and when it started, for the
// Envelope of the JSON documents (results.Envelope).
type invocation struct {
	commandLine []string
	startedAt   time.Time
	// names are the arguments that cannot be printed raw (a file name
	// with a newline or an escape code): every message shows them quoted.
	names untrusted.Names
}

// invocationOf is the invocation the running command belongs to (zero
// outside runContext).
func invocationOf(cmd *cobra.Command) invocation {
	inv, _ := cmd.Context().Value(invocationKey{}).(invocation)
	return inv
}

// outputsOf is the output Set of the running command (see
// newRootCommand): every output of a command, and its inputs, go there.
func outputsOf(cmd *cobra.Command) *output.Set {
	if outs, ok := cmd.Context().Value(outputsKey{}).(*output.Set); ok {
		return outs
	}
	return output.NewSet(cmd.Context(), cmd.OutOrStdout())
}

// textOut is where a command prints its text: standard output, or
// standard error when one of its outputs is standard output ("-"). The
// arguments that cannot be printed raw are shown quoted there (standard
// error quotes them already; data written to standard output is not
// text and goes elsewhere).
func textOut(cmd *cobra.Command, outs *output.Set) io.Writer {
	if outs.Stdout() {
		return cmd.ErrOrStderr()
	}
	return invocationOf(cmd).names.Writer(cmd.OutOrStdout())
}

// run executes graphrun with args and returns its exit status; tests and
// nested commands call it. runMain is graphrun as a process.
func run(args []string, stdout, stderr io.Writer) int {
	return runContext(context.Background(), args, stdout, stderr)
}

// runContext executes graphrun with args under ctx, whose cancellation
// (an interrupt) stops the command: its error is then not printed, the
// caller reports the interrupt.
func runContext(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	names := untrusted.NamesOf(args)
	stderr = names.Writer(stderr) // standard error carries text only
	ctx = context.WithValue(ctx, invocationKey{}, invocation{
		commandLine: append([]string{"graphrun"}, args...),
		startedAt:   time.Now().UTC(),
		names:       names,
	})
	var prof profileFlags
	cmd := newRootCommand(stdout, stderr, &prof)
	cmd.SetArgs(args)
	err := cmd.ExecuteContext(ctx)
	if err != nil {
		var ue usageError
		if !errors.As(err, &ue) && isCobraUsage(err) {
			err = usageError{err}
		}
	}
	if perr := prof.finish(err); perr != nil && err == nil {
		err = perr
	}
	if ctx.Err() != nil {
		return exitCode(err) // interrupted: runMain says so, once
	}
	if err != nil {
		// Errors carry names from outside (file names, peers' reasons):
		// the command line's are quoted, and every other control
		// character is escaped.
		fmt.Fprintf(stderr, "graphrun: %s\n", untrusted.Text(names.Quote(err.Error())))
	}
	return exitCode(err)
}

// isCobraUsage recognises the errors cobra itself returns for a bad command
// line (unknown command, wrong argument count), which bypass the flag error
// function.
func isCobraUsage(err error) bool {
	msg := err.Error()
	for _, prefix := range []string{"unknown command", "accepts ", "requires ", "unknown flag", "unknown shorthand", "invalid argument"} {
		if len(msg) >= len(prefix) && msg[:len(prefix)] == prefix {
			return true
		}
	}
	return false
}

func main() {
	os.Exit(runMain(os.Args[1:], os.Stdout, os.Stderr))
}

// runMain is graphrun as a process: runContext with SIGINT and SIGTERM
// handled (internal/interrupt): a signal cancels the command's context and
// silences its output; the process ends with one line, "graphrun:
// interrupted", and the shell's status for the signal: 130 for SIGINT, 143
// for SIGTERM.
func runMain(args []string, stdout, stderr io.Writer) int {
	return interrupt.Run(stdout, stderr, func(ctx context.Context, stdout, stderr io.Writer) int {
		return runContext(ctx, args, stdout, stderr)
	})
}
