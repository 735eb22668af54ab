package launch

import "syscall"

// childAttr makes a rank die with SIGTERM if the launcher dies first, so
// that no rank outlives it.
func childAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM} }
