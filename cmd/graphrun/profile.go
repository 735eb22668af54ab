package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"

	"github.com/spf13/cobra"
)

// profileFlags are the root command's --cpuprofile and --memprofile: the
// profiles `go tool pprof` reads, written for the whole command (for a
// --procs or multi-process job, each process writes its own, so give each a
// different file or run one rank).
type profileFlags struct {
	cpu, mem string
	cpuTemp  *os.File // the CPU profile being written, renamed over cpu at stop
}

func (p *profileFlags) register(root *cobra.Command) {
	fl := root.PersistentFlags()
	fl.StringVar(&p.cpu, "cpuprofile", "", "write a CPU profile of the command to this file (go tool pprof)")
	fl.StringVar(&p.mem, "memprofile", "", "write a heap profile (allocations) at the end of the command to this file")
}

// start begins the CPU profile, into a temporary file beside the target.
func (p *profileFlags) start() error {
	if p.mem != "" {
		runtime.MemProfileRate = 512 * 1024 // the default, set explicitly: the heap profile relies on it
	}
	if p.cpu == "" {
		return nil
	}
	f, err := os.CreateTemp(filepath.Dir(p.cpu), "."+filepath.Base(p.cpu)+".*")
	if err != nil {
		return flagError("cpuprofile", "%v", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		os.Remove(f.Name())
		return flagError("cpuprofile", "%v", err)
	}
	p.cpuTemp = f
	return nil
}

// stop ends the CPU profile and writes the heap profile. It runs after the
// command, also when the command failed.
func (p *profileFlags) stop() error {
	var errs []error
	if p.cpuTemp != nil {
		pprof.StopCPUProfile()
		errs = append(errs, closeAndRename(p.cpuTemp, p.cpu))
		p.cpuTemp = nil
	}
	if p.mem != "" {
		runtime.GC() // up-to-date statistics of what is still live
		f, err := os.CreateTemp(filepath.Dir(p.mem), "."+filepath.Base(p.mem)+".*")
		if err != nil {
			return errors.Join(append(errs, fmt.Errorf("--memprofile: %w", err))...)
		}
		if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
			f.Close()
			os.Remove(f.Name())
			return errors.Join(append(errs, fmt.Errorf("--memprofile: %w", err))...)
		}
		errs = append(errs, closeAndRename(f, p.mem))
	}
	return errors.Join(errs...)
}

// closeAndRename closes a finished temporary file and moves it to path.
func closeAndRename(f *os.File, path string) error {
	if err := errors.Join(f.Chmod(0o644), f.Close()); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
