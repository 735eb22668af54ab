// Package netemu is the part of graphrun's emulated cluster
// (.ci/emulated-cluster.sh) that the kernel of the machine it was built on
// cannot do: a one-way latency on every link. The script gives each
// process a network namespace, a veth link shaped by tc tbf and a CPU
// quota; where the kernel has no sch_netem (Firecracker guest kernels ship
// only tbf, htb and pfifo), the ports of the switch namespace are not
// joined by a kernel bridge but by this Switch, which learns MAC addresses
// like a bridge and forwards every frame Delay after it arrived. The
// frames are the real TCP traffic of the ranks; only the wait is added.
//
// The setting is that of Kylix §VII-A and Fig. 6: many nodes, each with
// its own link, where the number of messages and their latency, not only
// the bytes, decide which allreduce network (direct, binary or
// heterogeneous butterfly) wins.
//
// Source: Huasha Zhao and John Canny, "Kylix: A Sparse Allreduce for
// Commodity Clusters", 43rd International Conference on Parallel
// Processing (ICPP), IEEE, 2014.
package netemu

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// Port is one port of the switch: Read returns the next frame that
// arrived on it (its length in buf), Write sends a frame out of it. A
// frame may start with a header of the port's own (Header bytes, the same
// for every port of a switch) that the switch passes on untouched.
// Read returns ErrTimeout when no frame arrived for a while, so that the
// switch can notice its context ending.
type Port interface {
	Read(buf []byte) (int, error)
	Write(frame []byte) error
}

// ErrTimeout is what a Port's Read returns when nothing arrived in its
// poll interval.
var ErrTimeout = errors.New("netemu: read timed out")

// MaxFrame is the largest frame the switch forwards, with its header: an
// offloaded TCP segment of up to 64 KiB is one frame.
const MaxFrame = 128 << 10

// queueLen is the frames waiting per output port; a frame arriving at a
// full queue is dropped, as by a switch whose buffer is full (TCP resends
// it).
const queueLen = 8192

// Stats is what the switch did, for the emulator's read-back.
type Stats struct {
	Frames   int64         // frames forwarded (a flooded frame counts once per port)
	Dropped  int64         // frames dropped at a full queue
	MinHold  time.Duration // the shortest time a forwarded frame was held
	MeanHold time.Duration // the mean
	MaxHold  time.Duration // the longest
}

// Switch forwards frames between its ports after Delay, learning which
// port each source MAC address is behind and flooding frames to unknown,
// broadcast and multicast destinations.
type Switch struct {
	delay  time.Duration
	header int // bytes before the Ethernet header of every frame
	ports  []Port

	mu    sync.Mutex
	where map[[6]byte]int // source MAC -> port

	frames, dropped           atomic.Int64
	minHold, maxHold, sumHold atomic.Int64 // nanoseconds; minHold starts at MaxInt64
}

// New returns a switch joining ports with a one-way latency of delay;
// header is the bytes the ports' frames carry before the Ethernet header.
func New(delay time.Duration, header int, ports []Port) (*Switch, error) {
	if delay < 0 {
		return nil, fmt.Errorf("netemu: delay %v is negative", delay)
	}
	if header < 0 || header > 64 {
		return nil, fmt.Errorf("netemu: frame header of %d bytes is outside 0..64", header)
	}
	if len(ports) < 2 {
		return nil, fmt.Errorf("netemu: a switch needs at least 2 ports, got %d", len(ports))
	}
	s := &Switch{delay: delay, header: header, ports: ports, where: make(map[[6]byte]int)}
	s.minHold.Store(int64(^uint64(0) >> 1))
	return s, nil
}

// frame is one frame on its way to an output port.
type frame struct {
	data []byte
	due  time.Time
}

// Run forwards frames until ctx ends or a port fails; it returns nil when
// ctx ended.
func (s *Switch) Run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	queues := make([]chan frame, len(s.ports))
	for i := range queues {
		queues[i] = make(chan frame, queueLen)
	}
	var wg sync.WaitGroup
	errs := make([]error, 2*len(s.ports))
	for i := range s.ports {
		wg.Add(2)
		go func() {
			defer wg.Done()
			if errs[2*i] = s.receive(ctx, i, queues); errs[2*i] != nil {
				cancel()
			}
		}()
		go func() {
			defer wg.Done()
			if errs[2*i+1] = s.send(ctx, i, queues[i]); errs[2*i+1] != nil {
				cancel()
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// receive reads port i's frames and queues each for its output port(s).
func (s *Switch) receive(ctx context.Context, i int, queues []chan frame) error {
	buf := make([]byte, MaxFrame)
	for ctx.Err() == nil {
		n, err := s.ports[i].Read(buf)
		if errors.Is(err, ErrTimeout) {
			continue
		}
		if err != nil {
			return fmt.Errorf("netemu: port %d: %w", i, err)
		}
		if n < s.header+14 {
			continue // not an Ethernet frame
		}
		due := time.Now().Add(s.delay)
		var dst, src [6]byte
		copy(dst[:], buf[s.header:s.header+6])
		copy(src[:], buf[s.header+6:s.header+12])
		s.mu.Lock()
		s.where[src] = i
		out, known := s.where[dst]
		s.mu.Unlock()
		data := append([]byte(nil), buf[:n]...)
		if known && dst[0]&1 == 0 {
			if out != i {
				s.enqueue(queues[out], frame{data, due})
			}
			continue
		}
		for o := range queues {
			if o != i {
				s.enqueue(queues[o], frame{data, due})
			}
		}
	}
	return nil
}

func (s *Switch) enqueue(q chan frame, f frame) {
	select {
	case q <- f:
	default:
		s.dropped.Add(1)
	}
}

// send writes the frames of q out of port i, each at its due time. The
// delay is the same for every frame, so the queue is in due order.
func (s *Switch) send(ctx context.Context, i int, q chan frame) error {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		var f frame
		select {
		case f = <-q:
		case <-ctx.Done():
			return nil
		}
		if wait := time.Until(f.due); wait > 0 {
			timer.Reset(wait)
			select {
			case <-timer.C:
			case <-ctx.Done():
				return nil
			}
		}
		if err := s.ports[i].Write(f.data); err != nil {
			return fmt.Errorf("netemu: port %d: %w", i, err)
		}
		s.frames.Add(1)
		hold := int64(time.Since(f.due) + s.delay)
		s.sumHold.Add(hold)
		for old := s.minHold.Load(); hold < old && !s.minHold.CompareAndSwap(old, hold); old = s.minHold.Load() {
		}
		for old := s.maxHold.Load(); hold > old && !s.maxHold.CompareAndSwap(old, hold); old = s.maxHold.Load() {
		}
	}
}

// Stats returns what the switch has done so far.
func (s *Switch) Stats() Stats {
	st := Stats{Frames: s.frames.Load(), Dropped: s.dropped.Load(), MaxHold: time.Duration(s.maxHold.Load())}
	if st.Frames > 0 {
		st.MinHold = time.Duration(s.minHold.Load())
		st.MeanHold = time.Duration(s.sumHold.Load() / st.Frames)
	}
	return st
}
