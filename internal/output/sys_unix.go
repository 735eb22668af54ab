//go:build unix

package output

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// fileID is a file's device and inode.
func fileID(info fs.FileInfo) (string, bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return "", false
	}
	return fmt.Sprintf("inode:%d:%d", uint64(st.Dev), uint64(st.Ino)), true
}

// writable reports whether this process may write path (and, for a
// directory, create files in it), as access(2) says: root may write
// anything but a read-only file system.
func writable(path string, dir bool) error {
	mode := uint32(0x2) // W_OK
	if dir {
		mode |= 0x1 // X_OK
	}
	if err := syscall.Access(path, mode); err != nil {
		return err
	}
	return nil
}

// owner is a file's owner and group.
func owner(info fs.FileInfo) (uid, gid int, ok bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, false
	}
	return int(st.Uid), int(st.Gid), true
}

// keepOwner gives f the owner and group of the file it replaces, where the
// process may (root may; others only keep their own group).
func keepOwner(f *os.File, old fs.FileInfo) {
	uid, gid, ok := owner(old)
	if !ok || (uid == os.Geteuid() && gid == os.Getegid()) {
		return
	}
	_ = f.Chown(uid, gid) // best effort: an ordinary user cannot give a file away
}

// processGone reports whether no process has id pid on this machine.
func processGone(pid int) bool {
	return pid > 0 && syscall.Kill(pid, 0) == syscall.ESRCH
}
