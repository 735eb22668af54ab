package output

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
)

// bufSize is the buffer of a file being written.
const bufSize = 64 << 10

// Set is the outputs and the inputs of one command. Declare them (File,
// Dir, Input), Check before any work, write, and defer Abort: it removes
// whatever was not completed when the command fails or is interrupted.
// A Set is used by one goroutine at a time.
type Set struct {
	ctx    context.Context
	reg    *Registry
	stdout io.Writer
	files  []*File
	dirs   []*Dir
	inputs []string
	// stdin: the command reads its standard input, whose file no output
	// may be either (/dev/stdin, /dev/fd/0, /proc/self/fd/0 name it).
	stdin *os.File
}

// NewSet returns the Set of a command whose standard output is stdout.
// Nothing is written once ctx is done; the Registry ctx carries, if any,
// learns of every temporary file.
func NewSet(ctx context.Context, stdout io.Writer) *Set {
	return &Set{ctx: ctx, reg: registryFrom(ctx), stdout: stdout}
}

// File declares the output file at path, given by the command-line option
// called flag (without dashes). An empty path declares nothing and returns
// nil.
func (s *Set) File(flag, path string) *File {
	if path == "" {
		return nil
	}
	f := &File{set: s, flag: flag, path: path}
	s.files = append(s.files, f)
	return f
}

// Dir declares the output folder at path, given by the command-line option
// called flag (a folder of plots, of benchmark runs). An empty path declares
// nothing and returns nil.
func (s *Set) Dir(flag, path string) *Dir {
	if path == "" {
		return nil
	}
	d := &Dir{set: s, flag: flag, path: path}
	s.dirs = append(s.dirs, d)
	return d
}

// Input declares a file the command reads: no output may be that file.
// Stdout ("-") declares standard input (os.Stdin).
func (s *Set) Input(path string) {
	switch path {
	case "":
	case Stdout:
		s.stdin = os.Stdin
	default:
		s.inputs = append(s.inputs, path)
	}
}

// Stdout reports whether one of the outputs is standard output (commands
// then print their text to standard error).
func (s *Set) Stdout() bool {
	for _, f := range s.files {
		if f.path == Stdout {
			return true
		}
	}
	return false
}

// Check checks every declared output against the file system, the inputs
// and the other outputs (see the package documentation), and returns an
// *Error for the first that cannot be written.
func (s *Set) Check() error {
	inputs := map[string]string{}
	for _, in := range s.inputs {
		info, err := os.Stat(in)
		if err != nil {
			continue // the command's reader reports a missing input
		}
		if id, ok := fileID(info); ok {
			inputs[id] = in
		} else {
			inputs[pathID(in)] = in
		}
	}
	if s.stdin != nil {
		if info, err := s.stdin.Stat(); err == nil && info.Mode().IsRegular() {
			if id, ok := fileID(info); ok {
				inputs[id] = Stdout
			}
		}
	}
	taken := map[string]string{} // identity → the flag that writes it
	for _, f := range s.files {
		p, err := inspect(f.path)
		if err == nil {
			err = p.check()
		}
		if err != nil {
			return f.usage(err)
		}
		if p.kind == kindInPlace {
			continue // a device or a FIFO takes several outputs
		}
		id := p.identity()
		if in, ok := inputs[id]; ok && p.info != nil {
			if in == f.path {
				return f.usage(errors.New("is an input of this command: writing it would destroy what is read"))
			}
			if in == Stdout {
				return f.usage(errors.New("is the file on standard input, which this command reads: writing it would destroy what is read"))
			}
			return f.usage(fmt.Errorf("is the input file %s: writing it would destroy what is read", in))
		}
		if p.kind == kindReplace && p.info != nil && isMountPoint(p.target) {
			return f.usage(errors.New("is a mount point (a file bind-mounted there), which renaming a finished output over cannot replace: write to another path"))
		}
		if other, ok := taken[id]; ok {
			if p.kind == kindStdout {
				return f.usage(fmt.Errorf("standard output is written by --%s already", other))
			}
			return f.usage(fmt.Errorf("the same file as --%s", other))
		}
		taken[id] = f.flag
	}
	for _, d := range s.dirs {
		id, err := d.check()
		if err != nil {
			return &Error{Flag: d.flag, Path: d.path, Err: err}
		}
		if other, ok := taken[id]; ok {
			return &Error{Flag: d.flag, Path: d.path, Err: fmt.Errorf("the same path as --%s", other)}
		}
	}
	return nil
}

// Abort gives up every output not completed: temporary files are removed,
// and so are the files and folders a Dir created, unless it is Done.
func (s *Set) Abort() {
	for _, f := range s.files {
		f.Abort()
	}
	for _, d := range s.dirs {
		d.Abort()
	}
}

// ---------------------------------------------------------------------------
// File

// File is one output file. It is opened when first written (a FIFO thus
// blocks only when the output is ready) and completed by Commit: until
// then a regular file's readers see the old one. Abort, safe to defer,
// gives it up.
type File struct {
	set        *Set
	flag, path string

	plan   plan
	f      *os.File
	bw     *bufio.Writer
	tmp    string      // kindReplace: the temporary file
	mode   fs.FileMode // kindReplace: the mode the file ends with
	opened bool
	done   bool  // committed
	err    error // the first failure; every later call returns it
	forget func()
}

// Path is the path as the user gave it.
func (f *File) Path() string { return f.path }

// Flag is the name of the option that gave the file's path.
func (f *File) Flag() string { return f.flag }

// usage is a check's error about f.
func (f *File) usage(err error) error { return &Error{Flag: f.flag, Path: f.path, Err: err} }

// fail records that op failed and gives the file up.
func (f *File) fail(op string, err error) error {
	if f.err == nil {
		f.err = fmt.Errorf("--%s: %s: %s: %w", f.flag, f.path, op, plainError(err))
	}
	f.discard()
	return f.err
}

// open starts writing, once.
func (f *File) open() error {
	switch {
	case f.err != nil:
		return f.err
	case f.done:
		return fmt.Errorf("--%s: %s: written already", f.flag, f.path)
	case f.opened:
		return nil
	}
	if err := f.set.ctx.Err(); err != nil {
		return f.fail("not written", context.Cause(f.set.ctx))
	}
	p, err := inspect(f.path)
	if err != nil {
		return f.fail("opening", err)
	}
	f.plan = p
	switch p.kind {
	case kindStdout:
		f.bw = bufio.NewWriterSize(f.set.stdout, bufSize)
	case kindInPlace:
		file, err := os.OpenFile(p.target, os.O_WRONLY, 0)
		if err != nil {
			return f.fail("opening", err)
		}
		f.f, f.bw = file, bufio.NewWriterSize(file, bufSize)
	case kindReplace:
		file, tmp, mode, err := createTemp(p.target)
		if err != nil {
			return f.fail("creating a temporary file beside it", err)
		}
		f.f, f.tmp, f.bw = file, tmp, bufio.NewWriterSize(file, bufSize)
		f.mode = mode
		if p.info != nil {
			f.mode = p.info.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
		}
		f.forget = f.set.reg.track(func() { _ = os.Remove(tmp) })
	}
	f.opened = true
	return nil
}

// createTemp creates a private temporary file beside target, named after
// it and this process, and returns it with the mode a new file gets there
// (0644 minus the umask). It removes the stale temporary files of the
// folder (removeStale).
func createTemp(target string) (*os.File, string, fs.FileMode, error) {
	dir, base := filepath.Split(target)
	if len(base) > 200 {
		base = base[:200] // the temporary name stays within NAME_MAX
	}
	for range 100 {
		var r [6]byte
		if _, err := rand.Read(r[:]); err != nil {
			return nil, "", 0, err
		}
		name := filepath.Join(dir, "."+base+".tmp-"+strconv.Itoa(os.Getpid())+"-"+hex.EncodeToString(r[:]))
		file, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, "", 0, err
		}
		info, err := file.Stat()
		if err == nil {
			err = file.Chmod(0o600) // private while it is written
		}
		if err != nil {
			file.Close()
			os.Remove(name)
			return nil, "", 0, err
		}
		removeStale(dir, name)
		return file, name, info.Mode().Perm(), nil
	}
	return nil, "", 0, errors.New("no free temporary file name")
}

// Write writes to the file, opening it first.
func (f *File) Write(p []byte) (int, error) {
	if err := f.open(); err != nil {
		return 0, err
	}
	n, err := f.bw.Write(p)
	if err != nil {
		return n, f.fail("writing", err)
	}
	return n, nil
}

// Commit completes the file: standard output and files written in place
// are flushed (and closed); a regular file is synced, given its mode and
// renamed over the target. Once the Set's context is done nothing is
// committed: the file is given up and the context's cause returned.
func (f *File) Commit() error {
	if f.done {
		return nil
	}
	if err := f.open(); err != nil { // a file nothing was written to
		return err
	}
	if err := f.bw.Flush(); err != nil {
		return f.fail("writing", err)
	}
	switch f.plan.kind {
	case kindStdout:
	case kindInPlace:
		err := f.f.Close()
		f.f = nil
		if err != nil {
			return f.fail("closing", err)
		}
	case kindReplace:
		if err := f.set.ctx.Err(); err != nil {
			return f.fail("not written", context.Cause(f.set.ctx))
		}
		if err := f.f.Sync(); err != nil {
			return f.fail("syncing", err)
		}
		if err := f.f.Chmod(f.mode); err != nil {
			return f.fail("setting its mode", err)
		}
		if f.plan.info != nil {
			keepOwner(f.f, f.plan.info)
		}
		err := f.f.Close()
		f.f = nil
		if err != nil {
			return f.fail("closing", err)
		}
		if err := os.Rename(f.tmp, f.plan.target); err != nil {
			return f.fail("replacing it", err)
		}
		f.tmp = ""
		syncDir(filepath.Dir(f.plan.target))
	}
	if f.forget != nil {
		f.forget()
	}
	f.done = true
	return nil
}

// syncDir makes a rename in dir durable, where the system allows.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
}

// Abort gives the file up unless it was committed: a temporary file is
// removed, a file written in place closed. It is safe to call more than
// once and after Commit.
func (f *File) Abort() {
	if f == nil || f.done {
		return
	}
	if f.err == nil {
		f.err = fmt.Errorf("--%s: %s: given up", f.flag, f.path)
	}
	f.discard()
}

// discard closes and removes what open made.
func (f *File) discard() {
	if f.f != nil {
		_ = f.f.Close()
		f.f = nil
	}
	if f.tmp != "" {
		_ = os.Remove(f.tmp)
		f.tmp = ""
	}
	if f.forget != nil {
		f.forget()
		f.forget = nil
	}
}

// WriteAll writes the whole file with write and commits it; on any error
// the file is given up.
func (f *File) WriteAll(write func(io.Writer) error) error {
	if err := write(f); err != nil {
		f.Abort()
		if f.err != nil && errors.Is(err, f.err) {
			return err
		}
		return fmt.Errorf("--%s: %s: %w", f.flag, f.path, err)
	}
	return f.Commit()
}

// ---------------------------------------------------------------------------
// Dir

// Dir is an output folder, created (with its missing parents) when the
// first file is written into it. Files go in through WriteFile, each
// written as an output File. Until Done, Abort removes the files it
// created and the folders it made.
type Dir struct {
	set        *Set
	flag, path string

	mu      sync.Mutex // guards made and created: Registry.Cleanup may run remove meanwhile
	made    []string   // folders made, outermost first
	created []string   // files created (none was there before)
	done    bool
	forget  func()
}

// Path is the folder as the user gave it.
func (d *Dir) Path() string { return d.path }

// check checks the folder: it is a writable folder, or it can be made in
// its nearest existing ancestor. It returns the folder's identity.
func (d *Dir) check() (string, error) {
	if d.path == Stdout {
		return "", errors.New("a folder of files cannot be standard output")
	}
	info, err := os.Stat(d.path)
	switch {
	case err == nil && !info.IsDir():
		return "", errors.New("is not a folder")
	case err == nil:
		if err := writable(d.path, true); err != nil {
			return "", fmt.Errorf("the folder is not writable: %w", err)
		}
		if id, ok := fileID(info); ok {
			return id, nil
		}
		return pathID(d.path), nil
	case !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR):
		return "", plainError(err)
	}
	parent := filepath.Dir(filepath.Clean(d.path))
	for {
		info, err := os.Stat(parent)
		switch {
		case err == nil && !info.IsDir():
			return "", fmt.Errorf("cannot be made: %s is not a folder", shown(parent))
		case err == nil:
			if err := writable(parent, true); err != nil {
				return "", fmt.Errorf("cannot be made: %s is not writable: %w", shown(parent), err)
			}
			// Permissions are not all: a file system may refuse new
			// folders to anyone (/proc, a read-only mount seen by
			// root). A probe folder, made and removed, tells before
			// any work.
			probe, err := os.MkdirTemp(parent, ".graphrun-check-")
			if err != nil {
				return "", fmt.Errorf("cannot be made in %s: %w", shown(parent), plainError(err))
			}
			_ = os.Remove(probe)
			return pathID(d.path), nil
		case !errors.Is(err, fs.ErrNotExist):
			return "", fmt.Errorf("cannot be made: %w", plainError(err))
		}
		next := filepath.Dir(parent)
		if next == parent {
			return "", errors.New("cannot be made: no parent folder exists")
		}
		parent = next
	}
}

// ensure makes the folder and its missing parents, remembering which.
func (d *Dir) ensure() error {
	if err := d.set.ctx.Err(); err != nil {
		return fmt.Errorf("--%s: %s: not written: %w", d.flag, d.path, context.Cause(d.set.ctx))
	}
	if d.forget == nil {
		d.forget = d.set.reg.track(d.remove)
	}
	var missing []string
	for p := filepath.Clean(d.path); ; p = filepath.Dir(p) {
		if _, err := os.Stat(p); err == nil {
			break
		}
		missing = append(missing, p)
		if filepath.Dir(p) == p {
			break
		}
	}
	for i := len(missing) - 1; i >= 0; i-- {
		if err := os.Mkdir(missing[i], 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("--%s: %s: making the folder: %w", d.flag, d.path, plainError(err))
		} else if err == nil {
			d.mu.Lock()
			d.made = append(d.made, missing[i])
			d.mu.Unlock()
		}
	}
	return nil
}

// WriteFile writes the file name of the folder with write (see File) and
// returns its path. A nil Dir (a folder the command was not given) writes
// nothing and returns "".
func (d *Dir) WriteFile(name string, write func(io.Writer) error) (string, error) {
	if d == nil {
		return "", nil
	}
	if err := d.ensure(); err != nil {
		return "", err
	}
	path := filepath.Join(d.path, name)
	_, statErr := os.Lstat(path)
	f := &File{set: d.set, flag: d.flag, path: path}
	if err := f.WriteAll(write); err != nil {
		return "", err
	}
	if errors.Is(statErr, fs.ErrNotExist) {
		d.mu.Lock()
		d.created = append(d.created, path)
		d.mu.Unlock()
	}
	return path, nil
}

// Done marks the folder complete: Abort leaves it alone. Nothing for a nil
// Dir.
func (d *Dir) Done() {
	if d == nil {
		return
	}
	d.done = true
	if d.forget != nil {
		d.forget()
		d.forget = nil
	}
}

// Abort removes, unless the folder is Done, the files WriteFile created and
// the folders ensure made (those left empty).
func (d *Dir) Abort() {
	if d == nil || d.done {
		return
	}
	d.remove()
	if d.forget != nil {
		d.forget()
		d.forget = nil
	}
}

func (d *Dir) remove() {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, f := range d.created {
		_ = os.Remove(f)
	}
	d.created = nil
	for i := len(d.made) - 1; i >= 0; i-- {
		_ = os.Remove(d.made[i]) // fails, and keeps the folder, if something else is in it
	}
	d.made = nil
}
