package tcp

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/graphrun/graphrun/comm"
)

func sampleFrame() Frame {
	return Frame{Type: FrameData, Kind: uint8(comm.CollectiveAlltoallv), Flags: FlagLast, Job: 0x1122334455667788, Seq: 42, Phase: 0xfeedface, Arg: 7<<8 | 1, Src: 3}
}

func TestFrameRoundTrip(t *testing.T) {
	var stream []byte
	payloads := [][]byte{nil, []byte("x"), bytes.Repeat([]byte("graphrun"), 1000)}
	for i, p := range payloads {
		f := sampleFrame()
		f.Seq = uint64(i + 1)
		stream = AppendFrame(stream, f, p)
	}
	r := bytes.NewReader(stream)
	buf := make([]byte, 0, 16)
	for i, want := range payloads {
		f, got, err := ReadFrame(r, buf, 1<<20)
		if err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		if f.Seq != uint64(i+1) || f.Len != uint32(len(want)) || f.Total != uint64(len(want)) || f.Src != 3 || f.Type != FrameData {
			t.Fatalf("frame %d: header %+v", i, f)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("frame %d: payload differs", i)
		}
		if len(want) <= cap(buf) && len(want) > 0 && &got[0] != &buf[:1][0] {
			t.Fatalf("frame %d: payload not read into the caller's buffer", i)
		}
	}
	if _, _, err := ReadFrame(r, nil, 1<<20); err != io.EOF {
		t.Fatalf("at the end of the stream: %v, want io.EOF", err)
	}
}

func TestReadFrameRejects(t *testing.T) {
	good := AppendFrame(nil, sampleFrame(), []byte("payload"))
	corrupt := func(at int) []byte {
		b := bytes.Clone(good)
		b[at] ^= 0x40
		return b
	}
	withHeader := func(edit func(h []byte)) []byte {
		b := bytes.Clone(good)
		edit(b[:HeaderSize])
		return b
	}
	cases := []struct {
		name  string
		data  []byte
		limit int
		want  error
	}{
		{"empty", nil, 1 << 20, io.EOF},
		{"truncated header", good[:HeaderSize-1], 1 << 20, io.ErrUnexpectedEOF},
		{"truncated payload", good[:HeaderSize+3], 1 << 20, io.ErrUnexpectedEOF},
		{"truncated trailer", good[:len(good)-1], 1 << 20, io.ErrUnexpectedEOF},
		{"bad magic", corrupt(0), 1 << 20, ErrBadMagic},
		{"bad version", corrupt(4), 1 << 20, ErrBadVersion},
		{"unknown type", withHeader(func(h []byte) { h[5] = 99 }), 1 << 20, ErrMalformed},
		{"unknown flag", withHeader(func(h []byte) { h[7] = 0x80 }), 1 << 20, ErrMalformed},
		{"length above total", withHeader(func(h []byte) { binary.LittleEndian.PutUint64(h[48:], 1) }), 1 << 20, ErrMalformed},
		{"too large", good, 6, ErrFrameTooLarge},
		{"payload bit flip", corrupt(HeaderSize + 2), 1 << 20, ErrChecksum},
		{"header bit flip", corrupt(20), 1 << 20, ErrChecksum},
		{"trailer bit flip", corrupt(len(good) - 2), 1 << 20, ErrChecksum},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := ReadFrame(bytes.NewReader(tc.data), nil, tc.limit)
			if !errors.Is(err, tc.want) {
				t.Fatalf("ReadFrame: %v, want %v", err, tc.want)
			}
		})
	}
}

// TestReadFrameBoundedAllocation feeds headers that announce a gigabyte of
// payload followed by a few bytes: the decoder must fail without allocating
// anything near the announced size.
func TestReadFrameBoundedAllocation(t *testing.T) {
	var hdr [HeaderSize]byte
	f := sampleFrame()
	f.Len, f.Total = 1<<30, 1<<30
	putHeader(hdr[:], f)
	data := append(hdr[:], make([]byte, 1000)...)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 100 {
		if _, _, err := ReadFrame(bytes.NewReader(data), nil, 1<<30); !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatalf("ReadFrame: %v, want io.ErrUnexpectedEOF", err)
		}
	}
	runtime.ReadMemStats(&after)
	if perCall := (after.TotalAlloc - before.TotalAlloc) / 100; perCall > 1<<20 {
		t.Fatalf("a truncated frame announcing 1 GiB allocated %d bytes per call", perCall)
	}
	// Over the limit: rejected from the header alone.
	if _, _, err := ReadFrame(bytes.NewReader(data), nil, 1<<20); !errors.Is(err, ErrFrameTooLarge) {
		t.Fatalf("ReadFrame: %v, want ErrFrameTooLarge", err)
	}
}

// fuzzMaxFrame is the frame limit of the fuzz target: large, so that
// headers announcing big payloads reach the payload reader.
const fuzzMaxFrame = 1 << 30

// FuzzReadFrame decodes arbitrary streams. The decoder must never panic,
// every frame it accepts must re-encode to exactly the bytes it consumed,
// and it must not allocate much more than the stream holds.
func FuzzReadFrame(f *testing.F) {
	good := AppendFrame(nil, sampleFrame(), []byte("hello, graphrun"))
	f.Add(good)
	f.Add(append(bytes.Clone(good), good...))
	f.Add(good[:HeaderSize+4])
	f.Add(AppendFrame(nil, Frame{Type: FrameBye}, nil))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := bytes.NewReader(data)
		buf := make([]byte, 0, 64)
		consumed := 0
		for {
			fr, payload, err := ReadFrame(r, buf, fuzzMaxFrame)
			if err != nil {
				if err == io.EOF && r.Len() != 0 {
					t.Fatalf("io.EOF with %d bytes left", r.Len())
				}
				return
			}
			if len(payload) != int(fr.Len) || uint64(fr.Len) > fr.Total {
				t.Fatalf("payload of %d bytes for header %+v", len(payload), fr)
			}
			if cap(payload) > 2*len(data)+2*growStep {
				t.Fatalf("payload capacity %d for a stream of %d bytes", cap(payload), len(data))
			}
			n := len(data) - r.Len()
			if again := AppendFrame(nil, fr, payload); !bytes.Equal(again, data[consumed:n]) {
				t.Fatalf("frame %+v does not re-encode to the bytes it was read from", fr)
			}
			consumed = n
		}
	})
}

// TestAbortReasonFromOutside: an abort notice's reason, written by another
// process, is printed capped and with its control characters escaped: a
// 64 KiB reason of escape codes cannot clear the screen or forge lines.
func TestAbortReasonFromOutside(t *testing.T) {
	reason := "x\n\x1b[2Jgraphrun: forged line" + strings.Repeat("\x1b[31m", 64<<10/5)
	blame, got := decodeAbort(append([]byte{2, 0, 0, 0}, reason...))
	if blame != 2 {
		t.Errorf("blame %d, want 2", blame)
	}
	if strings.ContainsAny(got, "\n\x1b") || len(got) > maxAbortReason+3 {
		t.Errorf("decoded reason of %d bytes holds control characters or is not capped: %.80q", len(got), got)
	}
	if !strings.HasPrefix(got, `x\n\x1b[2Jgraphrun: forged line`) {
		t.Errorf("reason %.80q", got)
	}
}
