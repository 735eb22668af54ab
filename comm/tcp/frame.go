package tcp

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"slices"

	"github.com/graphrun/graphrun/internal/enum"
)

// Frame layout (see the package documentation for the meaning of the fields).
const (
	// HeaderSize is the size in bytes of a frame header.
	HeaderSize = 56
	// TrailerSize is the size in bytes of the CRC32C trailer that ends a frame.
	TrailerSize = 4

	frameMagic   = "GRTC"
	frameVersion = 1

	// growStep is the first allocation made for a payload that does not fit
	// the caller's buffer. Later allocations at most double what has been
	// received, so a header that announces more bytes than the stream holds
	// never makes ReadFrame allocate much more than the stream's length.
	growStep = 64 << 10
)

// FrameType says what a frame carries.
type FrameType uint8

// Frame types. Data, Abort and Bye frames travel on established peer
// connections; the others only during the rendezvous.
const (
	FrameData      FrameType = iota + 1 // a piece of one collective's message
	FrameAbort                          // the sender's job failed; payload: blamed rank (u32) and reason
	FrameBye                            // the sender closed its Comm; empty payload
	FrameChallenge                      // acceptor → dialer: a fresh nonce
	FrameHello                          // dialer → peer acceptor: nonce, proof, target rank, max frame
	FrameWelcome                        // peer acceptor → dialer: proof, max frame
	FrameRegister                       // rank → coordinator: nonce, proof, size, listen address
	FrameTable                          // coordinator → rank: proof and the address table
	FrameJoin                           // joining process → rank 0's lobby: nonce, proof, tag
	FrameQueued                         // lobby → joining process: proof; it waits for a growth
	FrameAdmit                          // lobby → joining process: proof, epoch, rank, size, timeouts, job id
)

// frameTypeNames are the FrameTypes' names (enum.Name).
var frameTypeNames = [...]string{
	FrameData:      "data",
	FrameAbort:     "abort",
	FrameBye:       "bye",
	FrameChallenge: "challenge",
	FrameHello:     "hello",
	FrameWelcome:   "welcome",
	FrameRegister:  "register",
	FrameTable:     "table",
	FrameJoin:      "join",
	FrameQueued:    "queued",
	FrameAdmit:     "admit",
}

func (t FrameType) String() string { return enum.Name(frameTypeNames[:], "frame-type", t) }

// FlagLast marks the last frame of a message.
const FlagLast = 1

// Frame is a decoded frame header.
type Frame struct {
	Type  FrameType
	Kind  uint8  // collective operation of a data frame (0 otherwise)
	Flags uint8  // FlagLast
	Job   uint64 // job id hash
	Seq   uint64 // collective sequence number of a data frame, from 1
	Phase uint64 // FNV-1a hash of the phase name of a data frame
	Arg   uint64 // operation argument of a data frame (Allreduce length and operator, Bcast root); lobbyMarker in a lobby's challenge
	Src   uint32 // sender's rank
	Len   uint32 // payload bytes in this frame
	Total uint64 // payload bytes of the whole message (≥ Len)
}

// Errors of the frame decoder.
var (
	ErrBadMagic      = errors.New("tcp: not a graphrun frame (bad magic)")
	ErrBadVersion    = errors.New("tcp: unsupported frame version")
	ErrMalformed     = errors.New("tcp: malformed frame header")
	ErrFrameTooLarge = errors.New("tcp: frame exceeds the maximum frame size")
	ErrChecksum      = errors.New("tcp: frame checksum mismatch")
)

// castagnoli is the CRC32C table; hash/crc32 uses the CPU's CRC32
// instruction for it. It is never written after initialisation.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// ReadFrame reads one frame from r and returns its header and its payload.
// The payload is stored in buf[:0] when buf has the capacity and in a new
// buffer otherwise. Frames whose payload exceeds maxFrame bytes are rejected
// before anything is allocated, and a payload that does not fit buf is
// allocated as it arrives, so a header announcing more bytes than the stream
// holds never costs more than about twice what was actually read.
//
// At a clean end of stream (no byte of a new frame) ReadFrame returns io.EOF;
// a frame cut short returns an error wrapping io.ErrUnexpectedEOF; a corrupt
// frame returns an error wrapping ErrBadMagic, ErrBadVersion, ErrMalformed,
// ErrFrameTooLarge or ErrChecksum.
func ReadFrame(r io.Reader, buf []byte, maxFrame int) (Frame, []byte, error) {
	var hdr [HeaderSize]byte
	f, err := readHeader(r, hdr[:], maxFrame)
	if err != nil {
		return Frame{}, nil, err
	}
	payload, err := readPayload(r, buf[:0], int(f.Len))
	if err != nil {
		return Frame{}, nil, err
	}
	if err := readTrailer(r, hdr[:], payload); err != nil {
		return Frame{}, nil, err
	}
	return f, payload, nil
}

// AppendFrame appends the encoding of one frame with header f and payload to
// dst and returns the extended buffer. It sets f.Len to len(payload), and
// f.Total too when it is smaller. It panics if payload is 4 GiB or longer.
func AppendFrame(dst []byte, f Frame, payload []byte) []byte {
	if uint64(len(payload)) > math.MaxUint32 {
		panic(fmt.Sprintf("tcp: frame payload of %d bytes", len(payload)))
	}
	f.Len = uint32(len(payload))
	f.Total = max(f.Total, uint64(f.Len))
	start := len(dst)
	dst = slices.Grow(dst, HeaderSize+len(payload)+TrailerSize)
	dst = dst[:start+HeaderSize]
	putHeader(dst[start:], f)
	dst = append(dst, payload...)
	return binary.LittleEndian.AppendUint32(dst, frameCRC(dst[start:], payload))
}

// frameCRC is the CRC32C trailer of the frame with header hdr[:HeaderSize]
// and payload payload.
func frameCRC(hdr, payload []byte) uint32 {
	return crc32.Update(crc32.Checksum(hdr[:HeaderSize], castagnoli), castagnoli, payload)
}

// putHeader encodes f into h[:HeaderSize].
func putHeader(h []byte, f Frame) {
	_ = h[HeaderSize-1]
	copy(h[0:4], frameMagic)
	h[4] = frameVersion
	h[5] = byte(f.Type)
	h[6] = f.Kind
	h[7] = f.Flags
	binary.LittleEndian.PutUint64(h[8:], f.Job)
	binary.LittleEndian.PutUint64(h[16:], f.Seq)
	binary.LittleEndian.PutUint64(h[24:], f.Phase)
	binary.LittleEndian.PutUint64(h[32:], f.Arg)
	binary.LittleEndian.PutUint32(h[40:], f.Src)
	binary.LittleEndian.PutUint32(h[44:], f.Len)
	binary.LittleEndian.PutUint64(h[48:], f.Total)
}

// readHeader reads and checks a frame header into hdr[:HeaderSize].
func readHeader(r io.Reader, hdr []byte, maxFrame int) (Frame, error) {
	hdr = hdr[:HeaderSize]
	if _, err := io.ReadFull(r, hdr); err != nil {
		if err == io.EOF {
			return Frame{}, io.EOF
		}
		return Frame{}, fmt.Errorf("tcp: reading frame header: %w", err)
	}
	return parseHeader(hdr, maxFrame)
}

// parseHeader decodes and checks a frame header.
func parseHeader(h []byte, maxFrame int) (Frame, error) {
	if string(h[0:4]) != frameMagic {
		return Frame{}, ErrBadMagic
	}
	if h[4] != frameVersion {
		return Frame{}, fmt.Errorf("%w %d (want %d)", ErrBadVersion, h[4], frameVersion)
	}
	f := Frame{
		Type:  FrameType(h[5]),
		Kind:  h[6],
		Flags: h[7],
		Job:   binary.LittleEndian.Uint64(h[8:]),
		Seq:   binary.LittleEndian.Uint64(h[16:]),
		Phase: binary.LittleEndian.Uint64(h[24:]),
		Arg:   binary.LittleEndian.Uint64(h[32:]),
		Src:   binary.LittleEndian.Uint32(h[40:]),
		Len:   binary.LittleEndian.Uint32(h[44:]),
		Total: binary.LittleEndian.Uint64(h[48:]),
	}
	switch {
	case f.Type < FrameData || f.Type > FrameAdmit:
		return Frame{}, fmt.Errorf("%w: unknown frame type %d", ErrMalformed, h[5])
	case f.Flags&^FlagLast != 0:
		return Frame{}, fmt.Errorf("%w: unknown flags %#x", ErrMalformed, f.Flags)
	case int64(f.Len) > int64(max(maxFrame, 0)):
		return Frame{}, fmt.Errorf("%w: %d payload bytes, limit %d", ErrFrameTooLarge, f.Len, max(maxFrame, 0))
	case uint64(f.Len) > f.Total:
		return Frame{}, fmt.Errorf("%w: frame of %d bytes in a message of %d", ErrMalformed, f.Len, f.Total)
	}
	return f, nil
}

// readPayload reads n bytes from r and appends them to dst. If dst lacks the
// capacity, the buffer grows with the data received (see growStep).
func readPayload(r io.Reader, dst []byte, n int) ([]byte, error) {
	start := len(dst)
	if cap(dst)-start >= n {
		dst = dst[:start+n]
		if _, err := io.ReadFull(r, dst[start:]); err != nil {
			return dst[:start], payloadError(err)
		}
		return dst, nil
	}
	for got := 0; got < n; {
		step := min(n-got, max(growStep, got))
		dst = slices.Grow(dst, step)
		end := len(dst) + step
		if _, err := io.ReadFull(r, dst[len(dst):end]); err != nil {
			return dst, payloadError(err)
		}
		dst = dst[:end]
		got += step
	}
	return dst, nil
}

func payloadError(err error) error {
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("tcp: reading frame payload: %w", err)
}

// readTrailer reads the CRC32C trailer of the frame whose header is hdr and
// whose payload is payload, and checks it.
func readTrailer(r io.Reader, hdr, payload []byte) error {
	var t [TrailerSize]byte
	if _, err := io.ReadFull(r, t[:]); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return fmt.Errorf("tcp: reading frame trailer: %w", err)
	}
	want := binary.LittleEndian.Uint32(t[:])
	got := frameCRC(hdr, payload)
	if got != want {
		return fmt.Errorf("%w: computed %#08x, frame says %#08x", ErrChecksum, got, want)
	}
	return nil
}
