package report

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
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

// TestReadRunFilesBounded: a stream that opens a JSON object and never
// ends (a FIFO fed without end) is refused after a bounded read, not read
// into memory whole.
func TestReadRunFilesBounded(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "endless.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer w.Close()
		chunk := append([]byte("{"), bytes.Repeat([]byte(" "), 1<<16)...)
		for {
			if _, err := w.Write(chunk); err != nil {
				return // the reader stopped
			}
			chunk = chunk[1:]
		}
	}()
	done := make(chan error, 1)
	go func() {
		_, err := readBounded(fifo, 1<<20)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "endless.json: more than 1 MiB") {
			t.Fatalf("%v, want a refusal naming the FIFO", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("reading an endless FIFO did not stop")
	}
}

// TestReadRunFilesDeviceRefusedAtOnce: a device whose bytes cannot open a
// run JSON (/dev/zero) is refused after its first bytes, allocating a
// buffer and not the 256 MiB bound; a regular file larger than the bound is
// refused by its size without being read.
func TestReadRunFilesDeviceRefusedAtOnce(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := ReadRunFiles([]string{"/dev/zero"})
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "/dev/zero: not a run JSON: it starts with the byte 0x00") {
		t.Fatalf("%v, want a refusal naming /dev/zero and its first byte", err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
		t.Errorf("reading /dev/zero allocated %d KiB", grew>>10)
	}
	big := filepath.Join(t.TempDir(), "big.json")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(MaxRunFile + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	runtime.ReadMemStats(&before)
	_, err = ReadRunFiles([]string{big})
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "big.json: more than 256 MiB") {
		t.Fatalf("%v, want a refusal of the size", err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
		t.Errorf("refusing a sparse file of 256 MiB allocated %d KiB", grew>>10)
	}
	for _, c := range []struct{ data, want string }{
		{"", "it is empty"},
		{"  \n[1]", "it starts with the byte 0x5b"},
	} {
		path := filepath.Join(t.TempDir(), "x.json")
		if err := os.WriteFile(path, []byte(c.data), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadRunFiles([]string{path}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.data, err, c.want)
		}
	}
}
