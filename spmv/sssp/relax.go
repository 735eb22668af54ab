package sssp

// One phase of Δ-stepping (Meyer and Sanders §2's relax(Req) of a light or
// heavy request set; §3 sends each request to its target's owner): expand
// the phase's vertices into requests per destination, exchange them by one
// Alltoallv, apply what arrives.

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"time"

	"github.com/graphrun/graphrun/internal/parallel"
	"github.com/graphrun/graphrun/spmv"
)

// RequestSize is the wire size of one relaxation request: the target's
// local id at its owner (uint32), the tentative distance's float32 bits and
// the parent's local id at the sender (uint32), little-endian.
const RequestSize = 12

// phaseStep relaxes the light (w ≤ Δ) or heavy (w > Δ) edges of the
// vertices in list, on every rank, and applies the requests.
func (s *SSSP) phaseStep(ctx context.Context, list []uint32, light bool) error {
	t0 := time.Now()
	threads := max(1, min(s.cfg.Threads, len(list)/64))
	parallel.For(threads, func(t int) {
		lo, hi := parallel.Span(len(list), t, threads)
		if s.r32 != nil {
			expand(s, s.r32, list[lo:hi], light, s.threadBufs[t])
		} else {
			expand(s, s.r64, list[lo:hi], light, s.threadBufs[t])
		}
	})
	// The requests to this rank's own vertices stay in the thread buffers
	// and are applied from there: the outcome does not depend on the order
	// in which requests are applied.
	for d := range s.send {
		switch {
		case d == s.rank:
			s.send[d] = nil
		case threads == 1:
			s.send[d] = s.threadBufs[0][d]
		default:
			m := s.merged[d][:0]
			for t := range threads {
				m = append(m, s.threadBufs[t][d]...)
			}
			s.merged[d], s.send[d] = m, m
		}
		if s.cfg.Compact && d != s.rank {
			s.compact[d], s.keys = compactRequests(s.compact[d], s.send[d], s.keys)
			s.send[d] = s.compact[d]
		}
	}
	for t := range threads {
		for _, b := range s.threadBufs[t] {
			s.stats.Requests += int64(len(b) / RequestSize)
		}
	}
	s.stats.Relax += time.Since(t0)
	if err := spmv.TimedAlltoallv(ctx, s.c, PhaseRelax, s.send, &s.recv, &s.stats.Communicate); err != nil {
		return fmt.Errorf("sssp: %w", err)
	}
	t1 := time.Now()
	s.phase++
	s.stats.Phases++
	for t := range threads {
		if err := s.apply(s.rank, s.threadBufs[t][s.rank]); err != nil {
			return fmt.Errorf("sssp: own requests: %w", err)
		}
	}
	for src, msg := range s.recv {
		if src == s.rank {
			continue
		}
		apply := s.apply
		if s.cfg.Compact {
			apply = s.applyCompact
		}
		if err := apply(src, msg); err != nil {
			return fmt.Errorf("sssp: requests from rank %d: %w", src, err)
		}
	}
	s.stats.Apply += time.Since(t1)
	return nil
}

// expand writes the requests of the light or heavy edges of list into
// bufs, one per destination rank. A request to a vertex of this rank that
// cannot lower its distance is not made.
func expand[C uint32 | int64](s *SSSP, r *rows[C], list []uint32, light bool, bufs [][]byte) {
	for d := range bufs {
		bufs[d] = bufs[d][:0]
	}
	off, cols, w, dist := r.off, r.cols, r.w, s.dist
	block, rank := s.part.Block, s.rank
	for _, v := range list {
		d := dist[v]
		lo, hi := off[v], off[v+1]
		if mid := lo + int64(r.light[v]); light {
			hi = mid
		} else {
			lo = mid
		}
		for i := lo; i < hi; i++ {
			nd := d + w[i]
			u := int64(cols[i])
			dst := int(u / block)
			lu := uint32(u - int64(dst)*block)
			if dst == rank && !(nd < dist[lu]) {
				continue
			}
			b := binary.LittleEndian.AppendUint32(bufs[dst], lu)
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(nd))
			bufs[dst] = binary.LittleEndian.AppendUint32(b, v)
		}
	}
}

// apply applies the requests rank src sent: a request lowers its target's
// distance and sets its parent; among the requests of one phase with the
// same lowest distance the larger parent wins, so the outcome does not
// depend on the order in which requests arrive.
func (s *SSSP) apply(src int, msg []byte) error {
	if len(msg)%RequestSize != 0 {
		return fmt.Errorf("%d bytes, not a multiple of %d", len(msg), RequestSize)
	}
	n, senders := uint32(len(s.dist)), uint32(s.part.Count(src))
	first := s.part.First(src)
	inf := math.Float32bits(float32(math.Inf(1)))
	for i := 0; i < len(msg); i += RequestSize {
		t := binary.LittleEndian.Uint32(msg[i:])
		bits := binary.LittleEndian.Uint32(msg[i+4:])
		pl := binary.LittleEndian.Uint32(msg[i+8:])
		if t >= n || pl >= senders || bits >= inf {
			return fmt.Errorf("request (%d, %#x, %d) out of range [0, %d) × [0, ∞) × [0, %d)", t, bits, pl, n, senders)
		}
		s.offer(t, math.Float32frombits(bits), first+int64(pl))
	}
	return nil
}

// offer applies one request: distance nd to owned vertex t from parent p.
func (s *SSSP) offer(t uint32, nd float32, p int64) {
	switch cur := s.dist[t]; {
	case nd < cur:
		if s.updated[t] != s.phase || s.bucketOf(nd) != s.bucketOf(cur) {
			s.bins.insert(t, s.bucketOf(nd))
		}
		s.dist[t], s.parent[t], s.updated[t] = nd, p, s.phase
	case nd == cur && s.updated[t] == s.phase && p > s.parent[t]:
		s.parent[t] = p
	}
}
