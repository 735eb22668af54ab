package tcp

// What an authenticated peer may send on its data connection: the reader
// must bound every message by what its collective carries or by the bytes
// that actually arrive, and fail the job naming the peer, whatever the
// frames announce.

import (
	"bufio"
	"context"
	"errors"
	"net"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/wire"
)

// hugeTotal is the message length the forged frames announce: 1 TiB.
const hugeTotal = 1 << 40

// allocLimit bounds the bytes a forged frame may make the process allocate.
const allocLimit = 64 << 20

// totalAlloc is the bytes the process has allocated so far.
func totalAlloc() uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.TotalAlloc
}

// nextCall makes the collective of kind "next" on c.
func nextCall(ctx context.Context, c *Comm, kind comm.Collective) error {
	switch kind {
	case comm.CollectiveAlltoallv:
		_, err := c.Alltoallv(ctx, "next", make([][]byte, c.Size()), nil)
		return err
	case comm.CollectiveAllreduceInt64:
		return c.AllreduceInt64(ctx, "next", []int64{1}, comm.Sum)
	case comm.CollectiveBcast:
		_, err := c.Bcast(ctx, "next", 0, nil)
		return err
	}
	return c.Barrier(ctx, "next")
}

// TestHugeAnnouncedMessage: a data frame of an authenticated peer that
// announces a message of 2^40 bytes allocates nothing of the kind, and the
// receiver's call fails with an error naming the peer.
func TestHugeAnnouncedMessage(t *testing.T) {
	for _, tc := range []struct {
		name string
		kind comm.Collective
		arg  uint64
		last bool
		want string
	}{
		{"alltoallv, then the peer's genuine frame", comm.CollectiveAlltoallv, 0, false, "frame announcing a message of 0 bytes inside one of 1099511627776 bytes"},
		{"alltoallv, last frame", comm.CollectiveAlltoallv, 0, true, "has 7 bytes, announced 1099511627776"},
		{"barrier", comm.CollectiveBarrier, 0, true, "Barrier message announced as 1099511627776 bytes, more than the 0 bytes"},
		{"allreduce", comm.CollectiveAllreduceInt64, wire.AllreduceArg(1, comm.Sum), false, "more than the 8 bytes it carries"},
		{"broadcast from a rank that is not the root", comm.CollectiveBcast, 0, false, "more than the 0 bytes it carries"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var allocated uint64
			rank0 := sendForged(func(c *Comm) []byte {
				f := Frame{Type: FrameData, Kind: uint8(tc.kind), Job: c.job, Seq: c.seq + 1,
					Phase: wire.PhaseHash("next"), Arg: tc.arg, Src: 1, Total: hugeTotal}
				if tc.last {
					f.Flags = FlagLast
				}
				return AppendFrame(nil, f, []byte("payload"))
			}, func(ctx context.Context, c *Comm) error {
				if c.Rank() == 1 {
					return nextCall(ctx, c, tc.kind)
				}
				before := totalAlloc()
				err := nextCall(ctx, c, tc.kind)
				allocated = totalAlloc() - before
				return err
			})
			t.Logf("rank 0 allocated %d KiB: %v", allocated>>10, rank0)
			if allocated > allocLimit {
				t.Errorf("the process allocated %d MiB after a frame announcing %d bytes", allocated>>20, hugeTotal)
			}
			if err := checkBlamed(rank0, 1); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(rank0.Error(), tc.want) {
				t.Fatalf("rank 0: %v, want %q", rank0, tc.want)
			}
		})
	}
}

// FuzzPeerStream feeds rank 0 of a two-rank Comm, in the middle of a call,
// frames that pass the checksum but carry any header fields and payloads,
// as an authenticated peer could send them: nothing may panic or hang,
// allocations stay within a bound of the bytes sent, and a failed call
// blames the peer.
func FuzzPeerStream(f *testing.F) {
	barrier := wire.NewCall(comm.CollectiveBarrier, "fuzz", 0)
	gather := wire.NewCall(comm.CollectiveAllgatherv, "fuzz", 0)
	reduce := wire.NewCall(comm.CollectiveAllreduceInt64, "fuzz", wire.AllreduceArg(2, comm.Sum))
	// Seeds: kind, flags of the first frame, seq, phase, arg, total, two payloads.
	f.Add(uint8(comm.CollectiveBarrier), uint8(FlagLast), uint64(1), barrier.Hash, uint64(0), uint64(0), []byte{}, []byte{})
	f.Add(uint8(comm.CollectiveAllgatherv), uint8(0), uint64(1), gather.Hash, uint64(0), uint64(10), []byte("hello"), []byte("world"))
	f.Add(uint8(comm.CollectiveAllgatherv), uint8(0), uint64(1), gather.Hash, uint64(0), uint64(hugeTotal), []byte("payload"), []byte("more"))
	f.Add(uint8(comm.CollectiveAllreduceInt64), uint8(0), uint64(1), reduce.Hash, reduce.Arg, uint64(16), make([]byte, 8), make([]byte, 8))
	f.Add(uint8(comm.CollectiveAllreduceInt64), uint8(FlagLast), uint64(1), reduce.Hash, reduce.Arg, uint64(hugeTotal), make([]byte, 8), []byte{})
	f.Add(uint8(comm.CollectiveAlltoallv), uint8(0), uint64(2), uint64(0), uint64(0), uint64(1)<<62, []byte{1}, []byte{2})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		f.Fatal(err)
	}
	defer ln.Close()
	f.Fuzz(func(t *testing.T, kind, flags uint8, seq, phase, arg, total uint64, p1, p2 []byte) {
		mine, theirs := loopbackPair(t, ln)
		cfg, err := Config{Rank: 0, Size: 2, Coordinator: "fuzz", Token: []byte("fuzz"), PeerTimeout: 2 * time.Second, MaxFrame: 1 << 20}.withDefaults()
		if err != nil {
			t.Fatal(err)
		}
		job := jobHash("fuzz")
		c := newComm(cfg, job, []*peerConn{nil, {rank: 1, conn: mine, br: bufio.NewReaderSize(mine, readBufferSize), maxFrame: 1 << 20}})
		defer c.Close()
		// The peer's frames: two frames of one message, whatever they say.
		first := Frame{Type: FrameData, Kind: kind, Flags: flags & FlagLast, Job: job, Seq: seq, Phase: phase, Arg: arg, Src: 1, Total: total}
		second := first
		second.Flags = FlagLast
		stream := AppendFrame(nil, first, p1)
		stream = AppendFrame(stream, second, p2)
		sent := make(chan error, 1)
		go func() {
			_, err := theirs.Write(stream)
			_ = theirs.(*net.TCPConn).CloseWrite()
			sent <- err
		}()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		before := totalAlloc()
		var callErr error
		switch comm.Collective(kind) {
		case comm.CollectiveAllgatherv:
			_, callErr = c.Allgatherv(ctx, "fuzz", []byte("x"), nil)
		case comm.CollectiveAllreduceInt64:
			callErr = c.AllreduceInt64(ctx, "fuzz", []int64{1, 2}, comm.Sum)
		default:
			callErr = c.Barrier(ctx, "fuzz")
		}
		allocated := totalAlloc() - before
		if limit := uint64(16<<20 + 4*len(stream)); allocated > limit {
			t.Fatalf("frames of %d bytes announcing %d made the call allocate %d bytes", len(stream), total, allocated)
		}
		if callErr != nil {
			if ctx.Err() != nil {
				t.Fatalf("the call did not end with the stream: %v", callErr)
			}
			// A protocol error blames the peer; a well-formed message of
			// another call (or of a later one: the peer skipped this one)
			// is a collective mismatch that names it.
			var pe *PeerError
			if !(errors.As(callErr, &pe) && pe.Rank == 1) && !strings.Contains(callErr.Error(), "rank 1 called") &&
				!strings.Contains(callErr.Error(), "rank 1 skipped it") {
				t.Fatalf("the call failed without naming rank 1: %v", callErr)
			}
		}
		_ = theirs.Close()
		<-sent
	})
}

// loopbackPair returns both ends of a fresh TCP connection through ln.
func loopbackPair(t *testing.T, ln net.Listener) (net.Conn, net.Conn) {
	t.Helper()
	accepted := make(chan net.Conn, 1)
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			accepted <- nil
			return
		}
		accepted <- conn
	}()
	dialed, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	mine := <-accepted
	if mine == nil {
		t.Fatal("accept failed")
	}
	t.Cleanup(func() { mine.Close(); dialed.Close() })
	return mine, dialed
}
