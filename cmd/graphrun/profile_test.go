package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestProfileFlags: --cpuprofile and --memprofile write gzipped pprof
// profiles; an unwritable path is a usage error naming the flag.
func TestProfileFlags(t *testing.T) {
	dir := t.TempDir()
	cpu, mem := filepath.Join(dir, "cpu.prof"), filepath.Join(dir, "mem.prof")
	mustRun(t, "bfs", "--scale", "8", "--roots", "2", "--cpuprofile", cpu, "--memprofile", mem)
	for _, path := range []string{cpu, mem} {
		data := readFile(t, path)
		if len(data) < 2 || data[0] != 0x1f || data[1] != 0x8b {
			t.Fatalf("%s is not a gzipped profile (%d bytes)", path, len(data))
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Fatalf("temporary files left behind: %v", entries)
	}
	code, _, errOut := runCLI(t, "version", "--cpuprofile", filepath.Join(dir, "missing", "cpu.prof"))
	if code != 2 || !strings.Contains(errOut, "--cpuprofile") {
		t.Fatalf("unwritable profile: exit %d, %q", code, errOut)
	}
}
