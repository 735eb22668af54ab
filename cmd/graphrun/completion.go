package main

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/graphrun/graphrun/frontier"
	"github.com/graphrun/graphrun/graph500"
	"github.com/graphrun/graphrun/spmv"
	"github.com/graphrun/graphrun/spmv/pagerank"
)

// Shell completion: cobra's `graphrun completion bash|zsh|fish|powershell`
// writes the script; the values of graphrun's enumerated flags are
// registered here for every command that has them, by walking the command
// tree once it is built, so that the files defining the flags need not know.

// flagValues returns the values the flag name of cmd accepts, or nil if it
// takes free text. --format and --partition mean different things to
// different commands.
func flagValues(cmd *cobra.Command, name string) []string {
	switch name {
	case "exchange":
		return []string{spmv.ExchangeAllgather.String(), spmv.ExchangeSieve.String(), spmv.ExchangePacked.String(), spmv.ExchangePush.String()}
	case "codec":
		return frontier.Names()
	case "algo":
		return graph500.AlgorithmNames()
	case "direction":
		return []string{"auto", "top-down", "bottom-up"}
	case "transport":
		return []string{"inproc", "tcp", "mpi"}
	case "allreduce":
		return []string{pagerank.AllreduceKylix.String(), pagerank.AllreduceDirect.String(), pagerank.AllreduceBinary.String(), pagerank.AllreduceDense.String()}
	case "partition":
		if cmd.Name() == "bfs" || cmd.Name() == "sssp" || strings.HasPrefix(cmd.Name(), "bfs-") {
			return []string{"1d", "2d"}
		}
		return []string{pagerank.PartitionRandomEdge.String(), pagerank.PartitionBlock1D.String()}
	case "format":
		if cmd.Name() == "generate" {
			return []string{"el", "bel"}
		}
		return []string{"auto", "snap", "el", "wel", "mtx", "bel"}
	}
	return nil
}

// registerCompletions registers the values of the enumerated flags of cmd
// and of every command below it.
func registerCompletions(cmd *cobra.Command) {
	visit := cmd.Flags().VisitAll
	if !cmd.HasParent() {
		visit = cmd.PersistentFlags().VisitAll // the global flags
	}
	visit(func(f *pflag.Flag) {
		values := flagValues(cmd, f.Name)
		if values == nil {
			return
		}
		complete := func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return values, cobra.ShellCompDirectiveNoFileComp
		}
		// The only error is a flag registered twice, which a walk of a
		// tree visits once.
		_ = cmd.RegisterFlagCompletionFunc(f.Name, complete)
	})
	for _, sub := range cmd.Commands() {
		registerCompletions(sub)
	}
}
