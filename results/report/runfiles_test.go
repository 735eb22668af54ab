package report

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestReadRunFiles: the files are read in order; a missing file or one of
// neither kind is the error, naming it.
func TestReadRunFiles(t *testing.T) {
	dir := t.TempDir()
	pr := filepath.Join(dir, "pr.json")
	var bfs bytes.Buffer
	if err := chartRun("allgather", "raw", 1).WriteJSON(&bfs); err != nil {
		t.Fatal(err)
	}
	a := filepath.Join(dir, "a.json")
	bad := filepath.Join(dir, "bad.json")
	for path, data := range map[string]string{pr: pagerankJSON, a: bfs.String(), bad: `{"neither": 1}`} {
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ins, err := ReadRunFiles([]string{pr, a})
	if err != nil || len(ins) != 2 || ins[0].PageRank == nil || ins[1].BFS == nil || ins[1].Path != a {
		t.Fatalf("ReadRunFiles: %+v, %v", ins, err)
	}
	if _, err := ReadRunFiles([]string{pr, filepath.Join(dir, "missing.json")}); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing file: %v", err)
	}
	if _, err := ReadRunFiles([]string{bad}); err == nil || !strings.Contains(err.Error(), "bad.json") {
		t.Fatalf("a file of neither kind: %v", err)
	}
}

// TestReadRunFilesBounded: a device that never ends is refused after a
// bounded read, not read into memory whole.
func TestReadRunFilesBounded(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := readBounded("/dev/zero", 1<<20)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "/dev/zero: more than 1 MiB") {
			t.Fatalf("%v, want a refusal naming /dev/zero", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("reading /dev/zero did not stop")
	}
}
