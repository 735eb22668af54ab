// Package output is the one writer of graphrun's output files. Every
// command's outputs go through it — results and run records, generated
// graphs, reports, folders of plots and of benchmark runs, profiles — so
// that one piece of code decides how a path is written:
//
//   - "-" is standard output.
//   - An existing file that is not a regular file (a character device such
//     as /dev/null, a FIFO, a terminal) is opened and written in place. It
//     is never renamed over: that would replace the device or the pipe by a
//     regular file.
//   - A regular file, or a new one, is written to a temporary file in the
//     target's directory and renamed over it only when complete, so that a
//     reader sees the old file or the whole new one, never a part. A
//     symbolic link is followed: its target is replaced and the link stays.
//     The new file keeps the old one's mode (and, where the process may,
//     its owner); a new file gets 0644 minus the umask.
//
// A command declares its outputs and inputs in a Set, each under the name
// of the command-line option that gave its path, and calls Check before any
// work. Check refuses, with an *Error naming the option and the user's path
// (the CLI exits 2): a path whose directory is missing or not
// writable, a path that is a directory, an output that is one of the
// command's input files (same device and inode, also through links), two
// outputs that are the same file, two outputs on standard output, a
// folder output that is a file, and a file that is a mount point (bind
// mounted), which the final rename cannot replace.
//
// Nothing is written once the Set's context is done (an interrupted
// command): Commit then removes the temporary file and returns the
// context's error. A Registry, carried by the context, knows every
// temporary file and every folder being filled, so that a process that
// must exit before its command returned (a blocked open of a FIFO, say)
// removes them (Registry.Cleanup).
package output

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/graphrun/graphrun/internal/untrusted"
)

// Stdout is the path that means standard output.
const Stdout = "-"

// Error is an output or input path found unusable before any work. Flag is
// the name of the option that gave the path, without dashes, as declared in
// the Set; Path the path as the user gave it.
type Error struct {
	Flag, Path string
	Err        error
}

func (e *Error) Error() string {
	if e.Flag == "" {
		return fmt.Sprintf("%s: %v", e.Path, e.Err)
	}
	return fmt.Sprintf("--%s: %s: %v", e.Flag, e.Path, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// kind is how a path is written.
type kind int

const (
	kindStdout  kind = iota + 1 // standard output
	kindReplace                 // a regular file or a new one: temporary file and rename
	kindInPlace                 // an existing file that is not regular: opened and written in place
)

// plan is what inspect found out about an output path.
type plan struct {
	kind   kind
	target string      // the file written: path with its symbolic links resolved
	info   fs.FileInfo // the target's, if it exists
}

// maxLinks bounds the symbolic links followed to resolve a dangling link.
const maxLinks = 40

// inspect decides how path is written. It follows symbolic links, also
// dangling ones (whose final target is then created).
func inspect(path string) (plan, error) {
	if path == Stdout {
		return plan{kind: kindStdout}, nil
	}
	if path == "" {
		return plan{}, errors.New("empty path")
	}
	target := path
	info, err := os.Lstat(path)
	for hops := 0; err == nil && info.Mode()&fs.ModeSymlink != 0; hops++ {
		if hops == maxLinks {
			return plan{}, errors.New("too many levels of symbolic links")
		}
		link, rerr := os.Readlink(target)
		if rerr != nil {
			return plan{}, plainError(rerr)
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(filepath.Dir(target), link)
		}
		target = link
		info, err = os.Lstat(target)
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return plan{kind: kindReplace, target: target}, nil
	case err != nil:
		return plan{}, plainError(err)
	case info.IsDir():
		if target != path {
			return plan{}, fmt.Errorf("is a link to the directory %s", shown(target))
		}
		return plan{}, errors.New("is a directory")
	case info.Mode().IsRegular():
		return plan{kind: kindReplace, target: target, info: info}, nil
	case info.Mode()&fs.ModeSocket != 0:
		return plan{}, errors.New("is a socket, which cannot be opened as a file")
	}
	return plan{kind: kindInPlace, target: target, info: info}, nil
}

// check reports whether p can be written: the directory of a file to
// replace exists and is writable; a file written in place is writable.
func (p plan) check() error {
	switch p.kind {
	case kindReplace:
		dir := filepath.Dir(p.target)
		info, err := os.Stat(dir)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return fmt.Errorf("the directory %s does not exist", shown(dir))
		case err != nil:
			return plainError(err)
		case !info.IsDir():
			return fmt.Errorf("%s is not a directory", shown(dir))
		}
		if err := writable(dir, true); err != nil {
			return fmt.Errorf("the directory %s is not writable: %w", shown(dir), err)
		}
	case kindInPlace:
		if err := writable(p.target, false); err != nil {
			return fmt.Errorf("%s is not writable: %w", shown(p.target), err)
		}
	}
	return nil
}

// identity names the file p writes, to compare it with other outputs and
// with the inputs: device and inode when it exists, else its absolute path
// with the directory's links resolved.
func (p plan) identity() string {
	switch p.kind {
	case kindStdout:
		return "stdout"
	}
	if p.info != nil {
		if id, ok := fileID(p.info); ok {
			return id
		}
	}
	return pathID(p.target)
}

// pathID is the identity of a file that does not exist (yet).
func pathID(path string) string {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	if resolved, err := filepath.EvalSymlinks(dir); err == nil {
		dir = resolved
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	return "path:" + filepath.Join(dir, base)
}

// shown is a path the program found (a link's target, a folder), not one
// the user gave, as a message shows it: quoted when it cannot be printed
// raw (a newline or an escape code in it, untrusted.Unsafe).
func shown(path string) string {
	if untrusted.Unsafe(path) {
		return untrusted.Quoted(path)
	}
	return path
}

// plainError drops the path from a *fs.PathError or *os.LinkError, so that
// messages name the user's path (and never a temporary file's).
func plainError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

// ---------------------------------------------------------------------------
// Registry

type registryKey struct{}

// Registry knows the temporary files and the folders being filled by the
// Sets of one process, so that a process that exits before its command
// returned removes them. It is safe for concurrent use.
type Registry struct {
	mu       sync.Mutex
	next     int
	cleanups map[int]func()
}

// NewRegistry returns an empty Registry.
func NewRegistry() *Registry { return &Registry{cleanups: map[int]func(){}} }

// WithRegistry returns ctx carrying r: the Sets made from it register there.
func WithRegistry(ctx context.Context, r *Registry) context.Context {
	return context.WithValue(ctx, registryKey{}, r)
}

func registryFrom(ctx context.Context) *Registry {
	r, _ := ctx.Value(registryKey{}).(*Registry)
	return r
}

// track records a cleanup; the returned function forgets it.
func (r *Registry) track(cleanup func()) (forget func()) {
	if r == nil {
		return func() {}
	}
	r.mu.Lock()
	id := r.next
	r.next++
	r.cleanups[id] = cleanup
	r.mu.Unlock()
	return func() {
		r.mu.Lock()
		delete(r.cleanups, id)
		r.mu.Unlock()
	}
}

// Cleanup removes every temporary file and every folder content still
// being written. It is for a process about to exit without waiting for its
// command.
func (r *Registry) Cleanup() {
	r.mu.Lock()
	fns := make([]func(), 0, len(r.cleanups))
	for id, fn := range r.cleanups {
		fns = append(fns, fn)
		delete(r.cleanups, id)
	}
	r.mu.Unlock()
	for _, fn := range fns {
		fn()
	}
}
