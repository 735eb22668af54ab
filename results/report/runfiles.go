package report

// The run JSON files a report is made of, read from disk.

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
)

// MaxRunFile bounds the bytes read from one run JSON file: a run of
// thousands of searches is a few MiB. A larger file, or a device that
// never ends (/dev/zero), is refused once that much was read, never read
// into memory whole.
const MaxRunFile = 256 << 20

// ReadRunFiles reads the run JSON files at paths (ReadRunFile), in order.
// The first file that cannot be read or decoded is the error, as the
// file system or ReadRunFile says it.
func ReadRunFiles(paths []string) ([]Input, error) {
	var inputs []Input
	for _, path := range paths {
		data, err := readBounded(path, MaxRunFile)
		if err != nil {
			return nil, err
		}
		in, err := ReadRunFile(path, data)
		if err != nil {
			return nil, err
		}
		inputs = append(inputs, in)
	}
	return inputs, nil
}

// readBounded reads the file at path, failing once it holds more than max
// bytes: a regular file larger than that is refused by its size, and any
// input whose first non-blank byte does not open a JSON object (a device
// such as /dev/zero) after reading a buffer of it.
func readBounded(path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if info, err := f.Stat(); err == nil && info.Mode().IsRegular() && info.Size() > max {
		return nil, fmt.Errorf("%s: more than %d MiB: not a run JSON", path, max>>20)
	}
	br := bufio.NewReaderSize(io.LimitReader(f, max+1), 4096)
	if err := startsObject(br); err != nil {
		return nil, fmt.Errorf("%s: not a run JSON: %w", path, err)
	}
	data, err := io.ReadAll(br)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s: more than %d MiB: not a run JSON", path, max>>20)
	}
	return data, nil
}

// startsObject checks, without consuming them, that the first bytes of r
// after blanks open a JSON object, as every run JSON does.
func startsObject(r *bufio.Reader) error {
	for i := 1; ; i++ {
		b, err := r.Peek(i)
		if err == bufio.ErrBufferFull {
			return errors.New("it starts with more than 4 KiB of blanks")
		}
		if len(b) < i {
			if err == io.EOF {
				return errors.New("it is empty")
			}
			return err
		}
		switch c := b[i-1]; c {
		case ' ', '\t', '\n', '\r':
		case '{':
			return nil
		default:
			return fmt.Errorf("it starts with the byte %#02x, not '{'", c)
		}
	}
}
