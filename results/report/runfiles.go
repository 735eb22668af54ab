package report

// The run JSON files a report is made of, read from disk.

import "os"

// ReadRunFiles reads the run JSON files at paths (ReadRunFile), in order.
// The first file that cannot be read or decoded is the error, as the
// file system or ReadRunFile says it.
func ReadRunFiles(paths []string) ([]Input, error) {
	var inputs []Input
	for _, path := range paths {
		data, err := os.ReadFile(path)
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
