//go:build !linux

package launch

import "syscall"

// childAttr is nil where the parent's death cannot be signalled to the
// child: a rank then notices it when its output pipe breaks.
func childAttr() *syscall.SysProcAttr { return nil }
