package launch

import "syscall"

// childAttr makes a rank die with SIGKILL if the launcher dies first, so
// that no rank outlives it: SIGKILL, because a stopped rank (SIGSTOP, a
// debugger) would hold any other signal pending forever. A rank killed so
// leaves its temporary files behind; the next run into their folder
// removes them.
func childAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} }
