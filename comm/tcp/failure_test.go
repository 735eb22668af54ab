package tcp

// A TCP job that loses a rank, or receives a corrupt frame, or is closed
// in the middle of a call: every rank fails promptly, blaming the rank at
// fault.

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/commtest"
	"github.com/graphrun/graphrun/comm/wire"
)

// checkBlamed checks that err wraps comm.ErrAborted and blames rank.
func checkBlamed(err error, rank int) error {
	var pe *PeerError
	switch {
	case err == nil:
		return errors.New("the call succeeded")
	case !errors.Is(err, comm.ErrAborted):
		return fmt.Errorf("error %q does not wrap comm.ErrAborted", err)
	case !errors.As(err, &pe) || pe.Rank != rank:
		return fmt.Errorf("error %q does not blame rank %d", err, rank)
	case !strings.Contains(err.Error(), fmt.Sprintf("rank %d", rank)):
		return fmt.Errorf("error %q does not name rank %d", err, rank)
	}
	return nil
}

// TestLostRank makes rank 2 of 3 leave mid-run in several ways; the other
// ranks' pending call and every later one must fail promptly, naming rank 2.
func TestLostRank(t *testing.T) {
	const peerTimeout = 300 * time.Millisecond
	for _, tc := range []struct {
		name  string
		leave func(ctx context.Context, c *Comm)
		bound time.Duration
		cause string
	}{
		{"Close", func(_ context.Context, c *Comm) { c.Close() }, time.Second, "closed its Comm"},
		{"crash", func(_ context.Context, c *Comm) {
			// What the kernel does when the process dies: close every
			// socket, without a goodbye.
			for _, p := range c.peers {
				if p != nil {
					p.conn.(*net.TCPConn).SetLinger(0)
					p.conn.Close()
				}
			}
		}, time.Second, "connection"},
		{"hang", func(ctx context.Context, c *Comm) {
			select {
			case <-ctx.Done():
			case <-time.After(guardTimeout):
			}
		}, peerTimeout + time.Second, "no progress"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), guardTimeout)
			defer cancel()
			var problems commtest.Problems
			report := problems.Addf
			err := launch(ctx, 3, func(ctx context.Context, cc comm.Comm) error {
				c := cc.(*Comm)
				for i := range 3 {
					if _, err := c.Allgatherv(ctx, "warmup", []byte{byte(i)}, nil); err != nil {
						return err
					}
				}
				if c.Rank() == 2 {
					tc.leave(ctx, c)
					return nil
				}
				start := time.Now()
				_, err := c.Allgatherv(ctx, "pending", []byte{1, 2, 3}, nil)
				if elapsed := time.Since(start); elapsed > tc.bound {
					report("rank %d: the pending call failed after %v, want less than %v", c.Rank(), elapsed, tc.bound)
				}
				if e := checkBlamed(err, 2); e != nil {
					report("rank %d: pending call: %v", c.Rank(), e)
				} else if !strings.Contains(err.Error(), tc.cause) {
					report("rank %d: pending call: error %q does not say %q", c.Rank(), err, tc.cause)
				}
				later := c.Barrier(ctx, "later")
				if e := checkBlamed(later, 2); e != nil {
					report("rank %d: later call: %v", c.Rank(), e)
				}
				return err
			}, launchOptions{peerTimeout: peerTimeout})
			problems.Report(t)
			if err == nil || !strings.Contains(err.Error(), "rank 2") {
				t.Errorf("launch returned %v, want an error naming rank 2", err)
			}
		})
	}
}

// TestCorruptFrame sends a frame with a bad checksum, then one larger than
// the receiver's limit: the receiver's next call fails, blaming the sender.
func TestCorruptFrame(t *testing.T) {
	for _, tc := range []struct {
		name string
		want error
		edit func(frame []byte)
	}{
		{"checksum", ErrChecksum, func(frame []byte) { frame[HeaderSize] ^= 1 }},
		{"too large", ErrFrameTooLarge, func(frame []byte) {
			frame[44], frame[45], frame[46], frame[47] = 0, 0, 0, 0x40 // Len = 1 GiB
			frame[55] = 0x40                                           // Total ≥ Len
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rank0 := sendForged(func(c *Comm) []byte {
				// An Alltoallv frame: a Barrier's would be refused for its
				// length alone.
				f := Frame{Type: FrameData, Kind: uint8(comm.CollectiveAlltoallv), Flags: FlagLast, Job: c.job, Seq: c.seq + 1, Phase: wire.PhaseHash("next"), Src: 1}
				frame := AppendFrame(nil, f, []byte("payload"))
				tc.edit(frame)
				return frame
			}, func(ctx context.Context, c *Comm) error { return c.Barrier(ctx, "next") })
			if err := checkBlamed(rank0, 1); err != nil {
				t.Fatal(err)
			}
			if !errors.Is(rank0, tc.want) {
				t.Fatalf("rank 0: %v, want an error wrapping %v", rank0, tc.want)
			}
		})
	}
}

// sendForged runs a two-rank job (frames of at most 1 MiB) in which rank 1,
// after a warm-up Barrier, writes forge's bytes to rank 0 as the first
// frame of the next call; then both ranks make that call, next. It returns
// rank 0's error.
func sendForged(forge func(c *Comm) []byte, next func(ctx context.Context, c *Comm) error) error {
	ctx, cancel := context.WithTimeout(context.Background(), guardTimeout)
	defer cancel()
	var rank0 error
	_ = launch(ctx, 2, func(ctx context.Context, cc comm.Comm) error {
		c := cc.(*Comm)
		if err := c.Barrier(ctx, "warmup"); err != nil {
			return err
		}
		if c.Rank() == 1 {
			p := c.peers[0]
			p.wmu.Lock()
			_, err := p.conn.Write(forge(c))
			p.wmu.Unlock()
			if err != nil {
				return err
			}
			return next(ctx, c)
		}
		rank0 = next(ctx, c)
		return rank0
	}, launchOptions{maxFrame: 1 << 20})
	return rank0
}

// TestCloseDuringCall closes a Comm from another goroutine while a call
// waits for a peer: the call fails at once with ErrClosed.
func TestCloseDuringCall(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), guardTimeout)
	defer cancel()
	var got error
	_ = launch(ctx, 2, func(ctx context.Context, cc comm.Comm) error {
		c := cc.(*Comm)
		if c.Rank() == 1 {
			<-ctx.Done()
			return nil
		}
		timer := time.AfterFunc(50*time.Millisecond, func() { c.Close() })
		defer timer.Stop()
		got = c.Barrier(ctx, "blocked")
		return got
	}, launchOptions{})
	if !errors.Is(got, comm.ErrAborted) || !errors.Is(got, ErrClosed) {
		t.Fatalf("Barrier interrupted by Close: %v, want an error wrapping comm.ErrAborted and ErrClosed", got)
	}
}

// TestCloseRacesFailedReturn closes a Comm from another goroutine just as
// the rank's function returns its error, so that Close's goodbyes and the
// launcher's Abort and wait run at once. Under -race it catches (in about one
// of 2000 launches, hence the loop) Close adding to the WaitGroup the launcher
// waits on, which once failed CI in TestCloseDuringCall.
func TestCloseRacesFailedReturn(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), guardTimeout)
	defer cancel()
	for range 50 {
		err := launch(ctx, 2, func(ctx context.Context, cc comm.Comm) error {
			c := cc.(*Comm)
			// Both ranks connected first: else rank 1 may still be
			// registering when rank 0's failure cancels the job, and its
			// own error may come first.
			if err := c.Barrier(ctx, "connected"); err != nil {
				return err
			}
			if c.Rank() == 1 {
				<-ctx.Done()
				return nil
			}
			go c.Close()
			return c.Barrier(ctx, "closing")
		}, launchOptions{})
		if !errors.Is(err, ErrClosed) {
			t.Fatalf("launch: %v, want rank 0's ErrClosed", err)
		}
	}
}
