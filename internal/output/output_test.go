package output

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// assertOnly fails unless dir holds exactly names (no temporary file).
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
	slices.Sort(names)
	if !slices.Equal(got, names) {
		t.Fatalf("%s holds %v, want %v", dir, got, names)
	}
}

func readString(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func writeString(w io.Writer, s string) error {
	_, err := io.WriteString(w, s)
	return err
}

// write declares path as --out of a fresh Set, checks it and writes s.
func write(t *testing.T, path, s string) error {
	t.Helper()
	set := NewSet(context.Background(), io.Discard)
	f := set.File("out", path)
	if err := set.Check(); err != nil {
		return err
	}
	return f.WriteAll(func(w io.Writer) error { return writeString(w, s) })
}

// withUmask runs fn with the process umask set to mask.
func withUmask(mask int, fn func()) {
	old := syscall.Umask(mask)
	defer syscall.Umask(old)
	fn()
}

func TestNewFileGets0644MinusUmask(t *testing.T) {
	for _, c := range []struct {
		umask int
		want  fs.FileMode
	}{{0o022, 0o644}, {0o077, 0o600}, {0o002, 0o644}} {
		dir := t.TempDir()
		path := filepath.Join(dir, "run.json")
		withUmask(c.umask, func() {
			if err := write(t, path, "new"); err != nil {
				t.Fatal(err)
			}
		})
		info, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if info.Mode().Perm() != c.want {
			t.Errorf("umask %#o: mode %v, want %v", c.umask, info.Mode().Perm(), c.want)
		}
		if got := readString(t, path); got != "new" {
			t.Errorf("content %q", got)
		}
		assertOnly(t, dir, "run.json")
	}
}

func TestReplaceKeepsTheOldMode(t *testing.T) {
	dir := t.TempDir()
	for _, mode := range []fs.FileMode{0o600, 0o640, 0o755} {
		path := filepath.Join(dir, "f")
		if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
		if err := write(t, path, "new"); err != nil {
			t.Fatal(err)
		}
		info, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if info.Mode().Perm() != mode || readString(t, path) != "new" {
			t.Errorf("after replacing a %v file: mode %v, content %q", mode, info.Mode().Perm(), readString(t, path))
		}
	}
	assertOnly(t, dir, "f")
}

// TestSymlinkTargetIsReplaced: writing a symbolic link replaces its target
// and keeps the link; a dangling link's target is created.
func TestSymlinkTargetIsReplaced(t *testing.T) {
	dir := t.TempDir()
	real, link := filepath.Join(dir, "real.tsv"), filepath.Join(dir, "link.tsv")
	if err := os.WriteFile(real, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real.tsv", link); err != nil {
		t.Fatal(err)
	}
	if err := write(t, link, "new"); err != nil {
		t.Fatal(err)
	}
	if info, err := os.Lstat(link); err != nil || info.Mode()&fs.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v, %v", info, err)
	}
	if got := readString(t, real); got != "new" {
		t.Fatalf("target holds %q", got)
	}
	if info, _ := os.Stat(real); info.Mode().Perm() != 0o600 {
		t.Fatalf("target mode %v, want 0600", info.Mode().Perm())
	}

	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	dangling := filepath.Join(dir, "dangling.tsv")
	if err := os.Symlink(filepath.Join("sub", "later.tsv"), dangling); err != nil {
		t.Fatal(err)
	}
	if err := write(t, dangling, "created"); err != nil {
		t.Fatal(err)
	}
	if got := readString(t, filepath.Join(sub, "later.tsv")); got != "created" {
		t.Fatalf("dangling link's target holds %q", got)
	}
	assertOnly(t, dir, "real.tsv", "link.tsv", "dangling.tsv", "sub")
	assertOnly(t, sub, "later.tsv")
}

// TestFIFOIsWrittenInPlace: a FIFO is opened and written, not replaced by
// a regular file; it is opened only when the output is written.
func TestFIFOIsWrittenInPlace(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "out.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	set := NewSet(context.Background(), io.Discard)
	f := set.File("out", fifo)
	if err := set.Check(); err != nil {
		t.Fatal(err) // checking must not open (and block on) the FIFO
	}
	got := make(chan string, 1)
	go func() {
		r, err := os.Open(fifo)
		if err != nil {
			got <- err.Error()
			return
		}
		defer r.Close()
		b, _ := io.ReadAll(r)
		got <- string(b)
	}()
	if err := f.WriteAll(func(w io.Writer) error { return writeString(w, "through the pipe\n") }); err != nil {
		t.Fatal(err)
	}
	select {
	case s := <-got:
		if s != "through the pipe\n" {
			t.Fatalf("the reader got %q", s)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the reader got nothing")
	}
	if info, err := os.Lstat(fifo); err != nil || info.Mode()&fs.ModeNamedPipe == 0 {
		t.Fatalf("the FIFO is now %v (%v)", info.Mode(), err)
	}
	assertOnly(t, dir, "out.fifo")
}

// TestDevNullIsWrittenInPlace writes /dev/null, which must stay the
// character device it is. The plan is checked before anything is written,
// so that a broken writer cannot replace it even when the test runs as
// root.
func TestDevNullIsWrittenInPlace(t *testing.T) {
	p, err := inspect("/dev/null")
	if err != nil {
		t.Skipf("/dev/null: %v", err)
	}
	if p.kind != kindInPlace {
		t.Fatalf("/dev/null would be written as kind %d, not in place: refusing to write it", p.kind)
	}
	// And through a link to it.
	link := filepath.Join(t.TempDir(), "null")
	if err := os.Symlink("/dev/null", link); err != nil {
		t.Fatal(err)
	}
	if p, err := inspect(link); err != nil || p.kind != kindInPlace || p.target != "/dev/null" {
		t.Fatalf("a link to /dev/null: %+v, %v", p, err)
	}
	for _, path := range []string{"/dev/null", link} {
		if err := write(t, path, "discarded"); err != nil {
			t.Fatal(err)
		}
	}
	info, err := os.Lstat("/dev/null")
	if err != nil || info.Mode()&fs.ModeCharDevice == 0 {
		t.Fatalf("/dev/null is now %v (%v)", info.Mode(), err)
	}
}

func TestStdout(t *testing.T) {
	var buf bytes.Buffer
	set := NewSet(context.Background(), &buf)
	f := set.File("json", "-")
	if err := set.Check(); err != nil || !set.Stdout() {
		t.Fatalf("check %v, Stdout %v", err, set.Stdout())
	}
	if err := f.WriteAll(func(w io.Writer) error { return writeString(w, "{}\n") }); err != nil {
		t.Fatal(err)
	}
	if buf.String() != "{}\n" {
		t.Fatalf("stdout got %q", buf.String())
	}
	if _, err := os.Stat("-"); err == nil {
		t.Fatal(`a file named "-" was created`)
	}
}

// TestPartialResultNeverShows: until Commit the target keeps its old
// content; a failed write leaves it as it was and no temporary file.
func TestPartialResultNeverShows(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run.json")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	set := NewSet(context.Background(), io.Discard)
	f := set.File("json", path)
	if _, err := f.Write(bytes.Repeat([]byte("x"), 3*bufSize)); err != nil {
		t.Fatal(err)
	}
	if got := readString(t, path); got != "old" {
		t.Fatalf("mid-write the target holds %d bytes", len(got))
	}
	f.Abort()
	if got := readString(t, path); got != "old" {
		t.Fatalf("after Abort the target holds %q", got)
	}
	assertOnly(t, dir, "run.json")

	boom := errors.New("boom")
	g := NewSet(context.Background(), io.Discard).File("json", path)
	err := g.WriteAll(func(w io.Writer) error {
		if err := writeString(w, "partial"); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "--json: "+path) {
		t.Fatalf("error %v does not wrap the write error under the flag and path", err)
	}
	if got := readString(t, path); got != "old" {
		t.Fatalf("after a failed write the target holds %q", got)
	}
	assertOnly(t, dir, "run.json")
}

// TestNothingIsCommittedAfterCancel: once the command's context is done
// (an interrupt), Commit gives the file up.
func TestNothingIsCommittedAfterCancel(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.tsv")
	ctx, cancel := context.WithCancelCause(context.Background())
	f := NewSet(ctx, io.Discard).File("out", path)
	if _, err := f.Write([]byte("half")); err != nil {
		t.Fatal(err)
	}
	interrupted := errors.New("interrupted")
	cancel(interrupted)
	if err := f.Commit(); !errors.Is(err, interrupted) {
		t.Fatalf("Commit after cancel: %v", err)
	}
	assertOnly(t, dir)
}

// TestRegistryCleanup: a process that exits without waiting for its
// command removes the temporary files and the folders being filled.
func TestRegistryCleanup(t *testing.T) {
	dir := t.TempDir()
	reg := NewRegistry()
	set := NewSet(WithRegistry(context.Background(), reg), io.Discard)
	f := set.File("out", filepath.Join(dir, "tree.tsv"))
	d := set.Dir("plots", filepath.Join(dir, "plots", "run1"))
	if _, err := f.Write([]byte("half")); err != nil {
		t.Fatal(err)
	}
	if _, err := d.WriteFile("a.svg", func(w io.Writer) error { return writeString(w, "<svg/>") }); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Fatalf("before the cleanup %s holds %d entries, want the temporary file and plots", dir, len(entries))
	}
	reg.Cleanup()
	assertOnly(t, dir)
}

func TestDir(t *testing.T) {
	dir := t.TempDir()
	plots := filepath.Join(dir, "a", "b")
	set := NewSet(context.Background(), io.Discard)
	d := set.Dir("plots", plots)
	if err := set.Check(); err != nil {
		t.Fatal(err)
	}
	assertOnly(t, dir) // made only when written
	for _, name := range []string{"x.svg", "x.png"} {
		if _, err := d.WriteFile(name, func(w io.Writer) error { return writeString(w, name) }); err != nil {
			t.Fatal(err)
		}
	}
	assertOnly(t, plots, "x.svg", "x.png")
	set.Abort() // an interrupted command: nothing of it stays
	assertOnly(t, dir)

	// A folder that existed keeps what it had; files made are kept once Done.
	if err := os.MkdirAll(plots, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(plots, "mine.txt"), []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	set = NewSet(context.Background(), io.Discard)
	d = set.Dir("plots", plots)
	if _, err := d.WriteFile("x.svg", func(w io.Writer) error { return writeString(w, "x") }); err != nil {
		t.Fatal(err)
	}
	set.Abort()
	assertOnly(t, plots, "mine.txt")
	set = NewSet(context.Background(), io.Discard)
	d = set.Dir("plots", plots)
	if _, err := d.WriteFile("x.svg", func(w io.Writer) error { return writeString(w, "x") }); err != nil {
		t.Fatal(err)
	}
	d.Done()
	set.Abort()
	assertOnly(t, plots, "mine.txt", "x.svg")
}

// TestCheck: every refusal is an *Error naming the flag and the user's
// path, found before anything is written, and never names a temporary file.
func TestCheck(t *testing.T) {
	dir := t.TempDir()
	input := filepath.Join(dir, "g.el")
	if err := os.WriteFile(input, []byte("1 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	hard := filepath.Join(dir, "hard.el")
	if err := os.Link(input, hard); err != nil {
		t.Fatal(err)
	}
	soft := filepath.Join(dir, "soft.el")
	if err := os.Symlink("g.el", soft); err != nil {
		t.Fatal(err)
	}
	existing := filepath.Join(dir, "old.json")
	if err := os.WriteFile(existing, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	existingLink := filepath.Join(dir, "old-link.json")
	if err := os.Symlink("old.json", existingLink); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	type out struct{ flag, path string }
	for _, c := range []struct {
		name   string
		files  []out
		dirs   []out
		inputs []string
		flag   string // the flag the error names
		want   string
	}{
		{"missing directory", []out{{"out", filepath.Join(dir, "nope", "x.tsv")}}, nil, nil, "out", "the directory " + filepath.Join(dir, "nope") + " does not exist"},
		{"directory", []out{{"out", sub}}, nil, nil, "out", "is a directory"},
		{"link to a directory", []out{{"out", filepath.Join(dir, "sublink")}}, nil, nil, "out", "is a link to the directory"},
		{"the input", []out{{"out", input}}, nil, []string{input}, "out", "is an input of this command"},
		{"a hard link to the input", []out{{"out", hard}}, nil, []string{input}, "out", "is the input file " + input},
		{"a symlink to the input", []out{{"out", soft}}, nil, []string{input}, "out", "is the input file " + input},
		{"the input through a symlink", []out{{"out", input}}, nil, []string{soft}, "out", "is the input file " + soft},
		{"two new outputs", []out{{"out", filepath.Join(dir, "x")}, {"json", filepath.Join(sub, "..", "x")}}, nil, nil, "json", "the same file as --out"},
		{"two existing outputs", []out{{"out", existing}, {"json", existingLink}}, nil, nil, "json", "the same file as --out"},
		{"two on stdout", []out{{"json", "-"}, {"out", "-"}}, nil, nil, "out", "standard output is written by --json already"},
		{"plots is a file", nil, []out{{"plots", existing}}, nil, "plots", "is not a folder"},
		{"plots on stdout", nil, []out{{"plots", "-"}}, nil, "plots", "cannot be standard output"},
		{"plots inside a file", nil, []out{{"plots", filepath.Join(existing, "p")}}, nil, "plots", "is not a folder"},
		{"plots equal to an output", []out{{"out", filepath.Join(dir, "p")}}, []out{{"plots", filepath.Join(dir, "p")}}, nil, "plots", "the same path as --out"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.name == "link to a directory" {
				_ = os.Symlink("sub", filepath.Join(dir, "sublink"))
			}
			set := NewSet(context.Background(), io.Discard)
			for _, o := range c.files {
				set.File(o.flag, o.path)
			}
			for _, o := range c.dirs {
				set.Dir(o.flag, o.path)
			}
			for _, in := range c.inputs {
				set.Input(in)
			}
			err := set.Check()
			var oe *Error
			if !errors.As(err, &oe) {
				t.Fatalf("Check: %v, want an *Error", err)
			}
			msg := err.Error()
			if oe.Flag != c.flag || !strings.HasPrefix(msg, "--"+c.flag+": ") || !strings.Contains(msg, c.want) {
				t.Fatalf("Check: %q, want --%s and %q", msg, c.flag, c.want)
			}
			if strings.Contains(msg, ".tmp-") || strings.Contains(msg, "graphrun-check") {
				t.Fatalf("Check names a temporary file: %q", msg)
			}
		})
	}
	assertOnly(t, dir, "g.el", "hard.el", "soft.el", "old.json", "old-link.json", "sub", "sublink")
	if got := readString(t, input); got != "1 2\n" {
		t.Fatalf("the input now holds %q", got)
	}

	// What is fine: /dev/null twice, a new output beside an input.
	set := NewSet(context.Background(), io.Discard)
	set.File("out", "/dev/null")
	set.File("json", "/dev/null")
	set.File("memprofile", filepath.Join(dir, "new.prof"))
	set.Input(input)
	if err := set.Check(); err != nil {
		t.Fatal(err)
	}
}

// TestCheckUnwritableDirectory runs where permissions bind (not as root).
func TestCheckUnwritableDirectory(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root may write any directory")
	}
	dir := t.TempDir()
	ro := filepath.Join(dir, "ro")
	if err := os.Mkdir(ro, 0o555); err != nil {
		t.Fatal(err)
	}
	set := NewSet(context.Background(), io.Discard)
	set.File("json", filepath.Join(ro, "x.json"))
	if err := set.Check(); err == nil || !strings.Contains(err.Error(), "is not writable") {
		t.Fatalf("Check: %v", err)
	}
}

// TestCheckStdinInput: a command reading standard input ("-") redirected
// from a file may not write that file through any name of standard input.
func TestCheckStdinInput(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "g.txt")
	if err := os.WriteFile(in, []byte("1 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(in)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	saved, err := syscall.Dup(0)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Dup2(int(f.Fd()), 0); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = syscall.Dup2(saved, 0); _ = syscall.Close(saved) }()
	for _, out := range []string{"/dev/stdin", "/dev/fd/0", "/proc/self/fd/0", in} {
		s := NewSet(context.Background(), io.Discard)
		s.Input(Stdout)
		s.File("out", out)
		err := s.Check()
		var oe *Error
		if !errors.As(err, &oe) || oe.Flag != "out" || !strings.Contains(err.Error(), "standard input") {
			t.Errorf("--out %s: %v, want a refusal naming standard input", out, err)
		}
	}
	if got := readString(t, in); got != "1 2\n" {
		t.Fatalf("the input changed: %q", got)
	}
}

// TestStaleTemporariesRemoved: writing into a folder removes the
// temporary files of graphrun's naming that a killed writer left there,
// and keeps those of a live writer and every other file.
func TestStaleTemporariesRemoved(t *testing.T) {
	dir := t.TempDir()
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Skip(err)
	}
	old := time.Now().Add(-2 * staleAny)
	recent := time.Now().Add(-2 * staleDead)
	files := map[string]time.Time{
		".g.txt.tmp-" + strconv.Itoa(gone.Process.Pid) + "-0123456789ab": recent, // its writer is gone
		".g.txt.tmp-0123456789ab":                                   old,    // an older version's, a day old
		".h.txt.tmp-" + strconv.Itoa(os.Getpid()) + "-0123456789ab": recent, // a live writer's
		".g.txt.tmp-00112233aabb":                                   recent, // recent, names no process
		".notes.tmp-xyz":                                            old,    // not of graphrun's naming
		"g.txt":                                                     old,
	}
	for name, at := range files {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(path, at, at); err != nil {
			t.Fatal(err)
		}
	}
	s := NewSet(context.Background(), io.Discard)
	f := s.File("out", filepath.Join(dir, "out.txt"))
	if err := f.WriteAll(func(w io.Writer) error { _, err := io.WriteString(w, "ok\n"); return err }); err != nil {
		t.Fatal(err)
	}
	assertOnly(t, dir, "out.txt", "g.txt", ".notes.tmp-xyz", ".g.txt.tmp-00112233aabb", ".h.txt.tmp-"+strconv.Itoa(os.Getpid())+"-0123456789ab")
}

// TestDirRefusedWhereFoldersCannotBeMade: a folder output under /proc,
// where no one may make folders (access(2) lets root "write" there), is
// refused by Check, before any work.
func TestDirRefusedWhereFoldersCannotBeMade(t *testing.T) {
	if _, err := os.Stat("/proc/self"); err != nil {
		t.Skip(err)
	}
	s := NewSet(context.Background(), io.Discard)
	s.Dir("plots", "/proc/foo")
	err := s.Check()
	var oe *Error
	if !errors.As(err, &oe) || oe.Flag != "plots" || !strings.Contains(err.Error(), "cannot be made") {
		t.Fatalf("--plots /proc/foo: %v, want a refusal naming --plots", err)
	}
}
