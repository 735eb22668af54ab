//go:build !unix

package output

import (
	"io/fs"
	"os"
)

// fileID is unknown here: outputs are compared by path.
func fileID(fs.FileInfo) (string, bool) { return "", false }

// writable cannot be asked without writing here: the write itself will
// tell.
func writable(string, bool) error { return nil }

// keepOwner does nothing where files have no Unix owner.
func keepOwner(*os.File, fs.FileInfo) {}

// owner is unknown here.
func owner(fs.FileInfo) (uid, gid int, ok bool) { return 0, 0, false }

// processGone cannot tell here: a temporary file is stale by its age alone.
func processGone(int) bool { return false }
