package results

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// WriteFileAtomic creates or replaces the file at path with what write
// writes, so that readers see either the old file or the complete new one:
// write goes to a temporary file in the same directory, which is synced,
// closed, given mode 0644 and renamed over path. On any error the temporary
// file is removed and path is left as it was.
//
// The path "-" (standard output in --json FILE|-) is not a file: the caller
// handles it by calling write with os.Stdout, and WriteFileAtomic rejects it.
func WriteFileAtomic(path string, write func(io.Writer) error) (err error) {
	if path == "-" {
		return errors.New(`results: write file: "-" means standard output, which the caller must write itself`)
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return fmt.Errorf("results: write %s: %w", path, err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close() // may already be closed; the write error matters more
			os.Remove(tmp)
		}
	}()
	if err := write(f); err != nil {
		return fmt.Errorf("results: write %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("results: write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("results: write %s: %w", path, err)
	}
	if err := os.Chmod(tmp, 0o644); err != nil {
		return fmt.Errorf("results: write %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("results: write %s: %w", path, err)
	}
	return nil
}
