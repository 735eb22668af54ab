package main

// The flags every bench matrix shares: --dir, where it records itself
// (bench.Output), and, for the matrices that run over a job of processes,
// the hidden --from-procs beside the global transport flags.

import (
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/graphrun/graphrun/bench"
	"github.com/graphrun/graphrun/comm/launch"
	"github.com/graphrun/graphrun/internal/output"
)

// registerBenchOutput adds --dir of a matrix's Output. It has no default:
// a matrix writes files only where it is asked to (it prints its table
// either way).
func registerBenchOutput(fl *pflag.FlagSet, o *bench.Output) {
	fl.StringVar(&o.Dir, "dir", "", "also write one JSON per run and summary.json into this folder")
	o.Version = version
}

// matrixFlags are the flags of a matrix that runs in this process: its
// settings S (a bench Spec, whose fields the command binds to its flags)
// and --dir.
type matrixFlags[S any] struct {
	spec S
	out  bench.Output
}

// startBench declares and checks the outputs of a matrix that runs in
// this process, and its input files, and starts it (bench.Output.Start).
// It returns the command's outputs.
func startBench(cmd *cobra.Command, o *bench.Output, matrix, key, command string, inputs ...string) (*output.Set, error) {
	outs := outputsOf(cmd)
	for _, in := range inputs {
		outs.Input(in)
	}
	declareBenchOutput(outs, o)
	if err := outs.Check(); err != nil {
		return nil, err
	}
	o.Start(matrix, key, command)
	return outs, nil
}

// newMatrixCommand is the command of a bench matrix, which takes no
// arguments: run does its work.
func newMatrixCommand(use, short string, run func(cmd *cobra.Command) error) *cobra.Command {
	return &cobra.Command{Use: use, Short: short, Args: cobra.NoArgs, RunE: func(cmd *cobra.Command, _ []string) error { return run(cmd) }}
}

// fromProcsFlag is the hidden flag --procs gives the rank processes of a
// bench matrix, so that rank 0 names the table after the --procs command
// line.
const fromProcsFlag = "from-procs"

// benchJobFlags are the global flags of a matrix that runs over a job of
// processes, and --from-procs.
type benchJobFlags struct {
	*globalFlags
	fromProcs bool
}

func (f *benchJobFlags) register(cmd *cobra.Command) {
	jobFlags(cmd, groupRanks, groupTransport)
	fl := cmd.Flags()
	fl.BoolVar(&f.fromProcs, fromProcsFlag, false, "set by --procs on the processes it starts")
	fl.Lookup(fromProcsFlag).Hidden = true
}

// job is a matrix's job on plan. On the process that reports (rank 0's
// first replica, or the --procs launcher) out's files and those declare
// adds (nil for none) join the command's outputs, checked before any work.
func (f *benchJobFlags) job(cmd *cobra.Command, plan jobPlan, out *bench.Output, declare func(*output.Set)) (bench.Job, error) {
	job := bench.Job{Plan: plan, FromProcs: f.fromProcs, Out: out, Stderr: cmd.ErrOrStderr()}
	if !plan.Reports() {
		return job, nil
	}
	outs := outputsOf(cmd)
	declareBenchOutput(outs, out)
	if declare != nil {
		declare(outs)
	}
	job.Text = textOut(cmd, outs)
	return job, outs.Check()
}

// declareBenchOutput declares a matrix's --dir among the command's
// outputs (bench.Output.Declare).
func declareBenchOutput(outs *output.Set, o *bench.Output) {
	o.Declare(outs.Dir("dir", o.Dir))
}

// jobSpec is how a bench table names a multi-process job: the transport
// and logical rank count for its key, and the flags that start the job
// again for its command line. A job started by hand (--rank R --size N, N
// counting every replica process) differs from one started by --procs
// (fromProcs). multi is false for an in-process run, whose rank counts
// each matrix names itself.
func jobSpec(plan launch.Plan, fromProcs bool) (keys, flags []string, multi bool) {
	p := plan.TotalRanks()
	switch {
	case plan.MPI():
		return []string{"transport=mpi", fmt.Sprintf("procs=%d", p)}, []string{"--transport mpi"}, true
	case plan.TCP() && fromProcs:
		return []string{fmt.Sprintf("procs=%d", p)}, []string{fmt.Sprintf("--procs %d", p)}, true
	case plan.TCP():
		n := p * plan.Replication()
		return []string{fmt.Sprintf("procs=%d", p)}, []string{fmt.Sprintf("--rank R --size %d", n)}, true
	}
	return nil, nil, false
}
