package report

// The run JSON files a report is made of, read from disk.

import (
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
// bytes.
func readBounded(path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s: more than %d MiB: not a run JSON", path, max>>20)
	}
	return data, nil
}
