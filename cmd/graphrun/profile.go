package main

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"runtime/pprof"

	"github.com/spf13/cobra"

	"github.com/graphrun/graphrun/internal/output"
)

// profileFlags are the root command's --cpuprofile and --memprofile: the
// profiles `go tool pprof` reads, written for the whole command (for a
// --procs or multi-process job, each process writes its own, so give each a
// different file or run one rank). They are outputs of the command like its
// own (internal/output): checked with them before any work, and not
// written when the command fails on bad input or is interrupted.
type profileFlags struct {
	cpu, mem string
	outs     *output.Set  // the command's outputs
	cpuFile  *output.File // the CPU profile being written
	memFile  *output.File
}

func (p *profileFlags) register(root *cobra.Command) {
	fl := root.PersistentFlags()
	fl.StringVar(&p.cpu, "cpuprofile", "", "write a CPU profile of the command to this file (go tool pprof)")
	fl.StringVar(&p.mem, "memprofile", "", "write a heap profile (allocations) at the end of the command to this file")
}

// start declares the profiles among the command's outputs, checks them and
// begins the CPU profile.
func (p *profileFlags) start(outs *output.Set) error {
	p.outs = outs
	p.cpuFile = outs.File("cpuprofile", p.cpu)
	p.memFile = outs.File("memprofile", p.mem)
	if p.memFile != nil {
		runtime.MemProfileRate = 512 * 1024 // the default, set explicitly: the heap profile relies on it
	}
	if p.cpuFile == nil && p.memFile == nil {
		return nil
	}
	if err := outs.Check(); err != nil {
		return err
	}
	if p.cpuFile != nil {
		if err := pprof.StartCPUProfile(p.cpuFile); err != nil {
			p.cpuFile.Abort()
			p.cpuFile = nil
			return usageError{fmt.Errorf("--cpuprofile: %w", err)}
		}
	}
	return nil
}

// finish ends the command's outputs once it returned with cmdErr: it stops
// the CPU profile and writes both profiles, unless the command failed on bad
// input or was interrupted; on any failure it gives up every output the
// command did not complete (internal/output's Set.Abort).
func (p *profileFlags) finish(cmdErr error) error {
	if p.outs == nil {
		return nil // the command line was refused before the command started
	}
	if cmdErr != nil {
		defer p.outs.Abort()
	}
	if p.cpuFile != nil {
		pprof.StopCPUProfile()
	}
	if cmdErr != nil && isUsage(cmdErr) {
		return nil // bad input writes nothing
	}
	var errs []error
	if p.cpuFile != nil {
		errs = append(errs, p.cpuFile.Commit())
	}
	if p.memFile != nil {
		runtime.GC() // up-to-date statistics of what is still live
		errs = append(errs, p.memFile.WriteAll(func(w io.Writer) error { return pprof.Lookup("allocs").WriteTo(w, 0) }))
	}
	return errors.Join(errs...)
}
