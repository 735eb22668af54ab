// Package profile writes the CPU and heap profiles of a graphrun command
// (`go tool pprof` reads them) as outputs of the command like its own
// (internal/output): checked with them before any
// work, and not written when the command fails on bad input or is
// interrupted. It implements no paper: it is how graphrun's own time and
// allocations are measured.
package profile

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"runtime/pprof"

	"github.com/graphrun/graphrun/internal/output"
)

// Profiles are a running command's profiles.
type Profiles struct {
	outs    *output.Set  // the command's outputs
	cpuFile *output.File // the CPU profile being written
	memFile *output.File
}

// Start takes the CPU and heap profiles cpu and mem, declared among the
// command's outputs outs by the caller (nil for none), checks the outputs
// and begins the CPU profile.
func Start(outs *output.Set, cpu, mem *output.File) (*Profiles, error) {
	p := &Profiles{outs: outs, cpuFile: cpu, memFile: mem}
	if p.memFile != nil {
		runtime.MemProfileRate = 512 * 1024 // the default, set explicitly: the heap profile relies on it
	}
	if p.cpuFile == nil && p.memFile == nil {
		return p, nil
	}
	if err := outs.Check(); err != nil {
		return p, err
	}
	if p.cpuFile != nil {
		if err := pprof.StartCPUProfile(p.cpuFile); err != nil {
			p.cpuFile.Abort()
			p.cpuFile = nil
			return p, fmt.Errorf("--%s: %w", cpu.Flag(), err)
		}
	}
	return p, nil
}

// Finish ends the command's outputs once it returned with cmdErr (badInput:
// the command failed on bad input): it stops the CPU profile and writes
// both profiles, unless the command failed on bad input; on any failure it
// gives up every output the command did not complete (Set.Abort). A nil
// Profiles (the command line was refused before the command started) does
// nothing.
func (p *Profiles) Finish(cmdErr error, badInput bool) error {
	if p == nil {
		return nil
	}
	if cmdErr != nil {
		defer p.outs.Abort()
	}
	if p.cpuFile != nil {
		pprof.StopCPUProfile()
	}
	if cmdErr != nil && badInput {
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
