package main

// The help of every command: its usage line, its examples, its
// subcommands and its own flags, wrapped to helpWidth columns, then one
// line pointing to the root command's help for the global flags instead of
// repeating them.

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
)

// helpWidth is the widest line of a command's help.
const helpWidth = 100

// rootExample is the root command's Example: a first run of each command
// on the graphs in testdata/.
const rootExample = `  graphrun bfs -s 16                                   # Graph500 BFS on a Kronecker graph
  graphrun bfs testdata/road-luxembourg-osm.mtx --ranks 2
  graphrun pagerank testdata/soc-Slashdot0902.txt.gz --ranks 4
  graphrun generate -s 12 -o kron12.el
  graphrun bench bfs-scaling -s 14 --ranks 4`

// setUsage gives root and every command below it graphrun's usage text,
// and an Example to the commands cobra adds (help, completion).
func setUsage(root *cobra.Command) {
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		switch c.Name() {
		case "help":
			c.Example = "  graphrun help bfs"
		case "completion":
			c.Example = "  graphrun completion bash > ~/.local/share/bash-completion/completions/graphrun"
			var shells []string
			for _, shell := range c.Commands() {
				shell.Example = fmt.Sprintf("  graphrun completion %s > graphrun.%s", shell.Name(), shell.Name())
				shells = append(shells, shell.Name())
			}
			// A shell cobra has no script for (tcsh) is an error, not
			// the help with status 0.
			c.RunE = func(c *cobra.Command, args []string) error {
				if len(args) > 0 {
					return usageError{fmt.Errorf("completion: no script for the shell %q (want one of %s)", args[0], strings.Join(shells, ", "))}
				}
				return c.Help()
			}
		}
	}
	root.SetUsageFunc(func(c *cobra.Command) error { return writeUsage(c.OutOrStderr(), c) })
}

// hideFlags hides cmd's flags names from its help and reference: they
// still work (the experiment knobs, aliases).
func hideFlags(cmd *cobra.Command, names ...string) {
	for _, name := range names {
		cmd.Flags().Lookup(name).Hidden = true
	}
}

// writeUsage writes c's usage to w.
func writeUsage(w io.Writer, c *cobra.Command) error {
	var b strings.Builder
	b.WriteString("Usage:\n")
	if c.Runnable() {
		fmt.Fprintf(&b, "  %s\n", c.UseLine())
	}
	if c.HasAvailableSubCommands() {
		fmt.Fprintf(&b, "  %s [command]\n", c.CommandPath())
	}
	if c.HasExample() {
		fmt.Fprintf(&b, "\nExamples:\n%s\n", c.Example)
	}
	if c.HasAvailableSubCommands() {
		b.WriteString("\nCommands:\n")
		for _, sub := range c.Commands() {
			if sub.IsAvailableCommand() || sub.Name() == "help" {
				fmt.Fprintf(&b, "  %-*s %s\n", sub.NamePadding(), sub.Name(), sub.Short)
			}
		}
	}
	if c.HasAvailableLocalFlags() {
		fmt.Fprintf(&b, "\nFlags:\n%s", c.LocalFlags().FlagUsagesWrapped(helpWidth))
	}
	if c.HasAvailableSubCommands() {
		fmt.Fprintf(&b, "\nRun \"%s [command] --help\" for a command's help.\n", c.CommandPath())
	}
	if c.HasParent() {
		fmt.Fprintf(&b, "\nGlobal flags (--ranks, --threads, --procs, --transport, …): see %s --help\n", c.Root().Name())
	}
	_, err := io.WriteString(w, b.String())
	return err
}
