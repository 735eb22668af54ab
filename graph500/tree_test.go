package graph500

import (
	"bytes"
	"encoding/binary"
	"testing"
)

// appendRun appends one run of sendTree's fused message: its first
// original id, its length and its lines.
func appendRun(msg []byte, first int64, lines string) []byte {
	msg = binary.AppendUvarint(msg, uint64(first))
	msg = binary.AppendUvarint(msg, uint64(len(lines)))
	return append(msg, lines...)
}

// TestSortRuns: the ranks' runs come out in the order of their first
// original ids; a truncated header or a length past the message is an
// error.
func TestSortRuns(t *testing.T) {
	recv := [][]byte{
		appendRun(appendRun(nil, 8, "8 0 1\n"), 0, "0 0 0\n"),
		nil,
		appendRun(nil, 4, "4 0 1\n5 4 2\n"),
	}
	got, err := sortRuns(recv)
	if err != nil {
		t.Fatal(err)
	}
	if all := bytes.Join(got, nil); string(all) != "0 0 0\n4 0 1\n5 4 2\n8 0 1\n" {
		t.Fatalf("sorted runs %q", all)
	}
	for _, bad := range [][]byte{{0x80}, appendRun(nil, 1, "x")[:1], {1, 5, 'a'}} {
		if _, err := sortRuns([][]byte{bad}); err == nil {
			t.Fatalf("%x accepted", bad)
		}
	}
}

// FuzzSortRuns: any message either fails or splits into runs whose lines
// add up to the message's payload bytes, with no panic.
func FuzzSortRuns(f *testing.F) {
	f.Add(appendRun(appendRun(nil, 8, "8 0 1\n"), 0, "0 0 0\n"))
	f.Add([]byte{0x80})
	f.Add([]byte{1, 5, 'a'})
	f.Fuzz(func(t *testing.T, msg []byte) {
		runs, err := sortRuns([][]byte{msg, msg})
		if err != nil {
			return
		}
		total := 0
		for _, r := range runs {
			total += len(r)
		}
		if total > 2*len(msg) {
			t.Fatalf("%x: %d bytes of lines from %d bytes", msg, total, 2*len(msg))
		}
	})
}
