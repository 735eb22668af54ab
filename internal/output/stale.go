package output

// Temporary files left behind by a process killed while it wrote (SIGKILL,
// a power cut) are removed by the next one that writes into their folder:
// those of graphrun's own naming (createTemp) whose writer is gone.

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// tempName matches a temporary file of createTemp's naming: ".NAME.tmp-"
// then the writer's process id and 12 hex digits (older versions wrote
// only the hex digits).
var tempName = regexp.MustCompile(`^\..+\.tmp-(?:([0-9]+)-)?[0-9a-f]{12}$`)

// Ages past which a temporary file is stale: one whose writer's process
// is gone, left untouched for staleDead (a writer on another machine
// sharing the folder keeps its file fresh); one that names no process,
// untouched for staleAny.
const (
	staleDead = time.Minute
	staleAny  = 24 * time.Hour
)

// removeStale removes the stale temporary files in dir, skipping keep
// (the caller's own). Errors are ignored: this is housekeeping.
func removeStale(dir, keep string) {
	if dir == "" {
		dir = "."
	}
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	now := time.Now()
	for _, name := range names {
		m := tempName.FindStringSubmatch(name)
		path := filepath.Join(dir, name)
		if m == nil || path == keep || !strings.HasPrefix(name, ".") {
			continue
		}
		info, err := os.Lstat(path)
		if err != nil || !info.Mode().IsRegular() {
			continue
		}
		if uid, _, ok := owner(info); ok && uid != os.Geteuid() {
			continue // another user's
		}
		age := now.Sub(info.ModTime())
		stale := age > staleAny
		if m[1] != "" && age > staleDead {
			pid, err := strconv.Atoi(m[1])
			stale = stale || (err == nil && processGone(pid))
		}
		if stale {
			_ = os.Remove(path)
		}
	}
}
