package output

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// isMountPoint reports whether path, an existing file, is a mount point
// (a file bind-mounted there): rename(2) cannot replace it (EBUSY), so an
// output there would fail after all the work. It reads
// /proc/self/mountinfo, whose fifth field is each mount point, with
// space, tab, newline and backslash written as octal escapes.
func isMountPoint(path string) bool {
	abs, err := filepath.EvalSymlinks(path)
	if err != nil {
		return false
	}
	if abs, err = filepath.Abs(abs); err != nil {
		return false
	}
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) > 4 && unescapeMount(fields[4]) == abs {
			return true
		}
	}
	return false
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
