// Command graphrun is the command line of graphrun, a distributed graph
// analytics engine: Graph500 breadth-first search on Kronecker graphs, with
// more kernels to come. This package only turns flags into job
// configurations and prints results; the algorithms live in the library
// packages.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
)

// version is graphrun's release version.
const version = "0.1.0"

// usageError marks bad input (flags, files): graphrun exits with status 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// flagError returns a usage error naming the flag.
func flagError(flag string, format string, args ...any) error {
	return usageError{fmt.Errorf("--%s: %s", flag, fmt.Sprintf(format, args...))}
}

// exitCode maps an error to graphrun's exit status: 0 success, 2 bad input,
// a --procs job's first failed rank's status, 1 anything else (including a
// failed validation).
func exitCode(err error) int {
	if err == nil {
		return 0
	}
	var ue usageError
	if errors.As(err, &ue) {
		return 2
	}
	if code, ok := launchExitCode(err); ok {
		return code
	}
	return 1
}

func newRootCommand(stdout, stderr io.Writer, prof *profileFlags) *cobra.Command {
	root := &cobra.Command{
		Use:           "graphrun",
		Short:         "Distributed graph analytics: Graph500 BFS with compressed, sieved frontiers",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.PersistentPreRunE = func(*cobra.Command, []string) error { return prof.start() }
	prof.register(root)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	bench := newBenchCommand()
	bench.AddCommand(
		newBenchBFSCommand("bfs-codecs", "Paper 004's algorithms, the packed sieve and direction-optimised runs on one graph: bytes, TEPS, breakdown"),
		newBenchBFSCommand("bfs-scaling", "The default and the packed exchange on 1, 2, 4, ... up to --ranks ranks"),
		newBenchPageRankCommand())
	bench.AddCommand(newBenchAllreduceCommand(), newBenchMemoryCommand())
	root.AddCommand(newBFSCommand(), newGenerateCommand(), newVersionCommand(), bench, newPageRankCommand(), newReportCommand())
	return root
}

// run executes graphrun with args and returns its exit status.
func run(args []string, stdout, stderr io.Writer) int {
	var prof profileFlags
	cmd := newRootCommand(stdout, stderr, &prof)
	cmd.SetArgs(args)
	err := cmd.Execute()
	if perr := prof.stop(); perr != nil && err == nil {
		err = perr
	}
	if err != nil {
		var ue usageError
		if !errors.As(err, &ue) && isCobraUsage(err) {
			err = usageError{err}
		}
		fmt.Fprintf(stderr, "graphrun: %v\n", err)
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
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}
