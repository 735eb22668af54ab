package results

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run.json")
	if err := WriteFileAtomic(path, syntheticRun().WriteJSON); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := ReadRunJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	if r.Scale != 10 || r.NBFS() != 8 {
		t.Errorf("read back SCALE %d NBFS %d", r.Scale, r.NBFS())
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", fi.Mode().Perm())
	}
	assertOnly(t, dir, "run.json")
}

func TestWriteFileAtomicWriteError(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run.json")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := WriteFileAtomic(path, func(w io.Writer) error {
		if _, err := io.WriteString(w, "partial"); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("error %v does not wrap the write error", err)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "old" {
		t.Errorf("target is %q, %v; want the old content", b, err)
	}
	assertOnly(t, dir, "run.json")
}

func TestWriteFileAtomicRenameError(t *testing.T) {
	dir := t.TempDir()
	// The target is a non-empty directory: the temporary file is written but
	// cannot be renamed over it.
	target := filepath.Join(dir, "run.json")
	if err := os.MkdirAll(filepath.Join(target, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(target, syntheticRun().WriteJSON); err == nil {
		t.Fatal("renaming over a directory succeeded")
	}
	assertOnly(t, dir, "run.json")
}

func TestWriteFileAtomicBadDir(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "missing", "run.json")
	called := false
	err := WriteFileAtomic(path, func(io.Writer) error { called = true; return nil })
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("error %v, want one wrapping os.ErrNotExist", err)
	}
	if called {
		t.Error("write called although no temporary file could be made")
	}
	assertOnly(t, dir)
}

func TestWriteFileAtomicStdout(t *testing.T) {
	if err := WriteFileAtomic("-", func(io.Writer) error { return nil }); err == nil {
		t.Error(`WriteFileAtomic("-") succeeded`)
	}
	if _, err := os.Stat("-"); err == nil {
		t.Error(`a file named "-" was created`)
	}
}

// assertOnly fails unless dir holds exactly the entries names.
func assertOnly(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if len(got) != len(names) {
		t.Fatalf("%s holds %v, want %v", dir, got, names)
	}
	for i := range got {
		if got[i] != names[i] {
			t.Fatalf("%s holds %v, want %v", dir, got, names)
		}
	}
}
