package main

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/graphrun/graphrun/internal/output"
	"github.com/graphrun/graphrun/internal/profile"
)

// profileFlags are the root command's --cpuprofile and --memprofile: the
// profiles `go tool pprof` reads, written for the whole command (for a
// --procs or multi-process job, each process writes its own, so give each a
// different file or run one rank) by internal/profile.
type profileFlags struct {
	cpu, mem string
	running  *profile.Profiles // nil until the command starts
}

func (p *profileFlags) register(root *cobra.Command) {
	fl := root.PersistentFlags()
	fl.StringVar(&p.cpu, "cpuprofile", "", "write a CPU profile of the command to this file (go tool pprof)")
	fl.StringVar(&p.mem, "memprofile", "", "write a heap profile (allocations) at the end of the command to this file")
}

// start declares the profiles among the command's outputs, checks them and
// begins the CPU profile.
func (p *profileFlags) start(outs *output.Set) error {
	var err error
	p.running, err = profile.Start(outs, outs.File("cpuprofile", p.cpu), outs.File("memprofile", p.mem))
	var oe *output.Error
	if err != nil && !errors.As(err, &oe) {
		return usageError{err}
	}
	return err
}

// finish ends the command's outputs once it returned with cmdErr
// (profile.Profiles.Finish).
func (p *profileFlags) finish(cmdErr error) error {
	return p.running.Finish(cmdErr, cmdErr != nil && isUsage(cmdErr))
}
