package sssp

// One phase of Δ-stepping (Meyer and Sanders §2's relax(Req) of a light or
// heavy request set; §3 sends each request to its target's owner): expand
// the phase's vertices into requests, those to this rank's vertices in
// memory per owner thread and those to other ranks as bytes per
// destination, exchange the latter by one Alltoallv, and let every owner
// thread apply what concerns its vertices.

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"sync/atomic"
	"time"

	"github.com/graphrun/graphrun/spmv"
)

// RequestSize is the wire size of one relaxation request: the target's
// local id at its owner (uint32), the tentative distance's float32 bits and
// the parent's local id at the sender (uint32), little-endian.
const RequestSize = 12

// expandChunk is how many of a phase's vertices a thread takes at a time
// (rows differ in length by orders of magnitude: the threads share them
// dynamically, as gapbs's dynamic schedule does).
const expandChunk = 64

// phaseStep relaxes the light (w ≤ Δ) or heavy (w > Δ) edges of the
// vertices in list, on every rank, and applies the requests.
func (s *SSSP) phaseStep(ctx context.Context, list []uint32, light bool) error {
	t0 := time.Now()
	workers := max(1, min(s.cfg.Threads, len(list)/expandChunk))
	var next atomic.Int64
	s.team.Run(func(t int) {
		if t >= workers {
			return
		}
		remote := s.threadBufs[t]
		s.local[t] = s.local[t][:0]
		for d := range remote {
			remote[d] = remote[d][:0]
		}
		for {
			lo := int(next.Add(expandChunk)) - expandChunk
			if lo >= len(list) {
				return
			}
			part := list[lo:min(lo+expandChunk, len(list))]
			if s.r32 != nil {
				s.scanned[t] += expand(s, s.r32, part, light, &s.local[t], remote, &s.sent[t])
			} else {
				s.scanned[t] += expand(s, s.r64, part, light, &s.local[t], remote, &s.sent[t])
			}
		}
	})
	for t := range workers {
		s.stats.Scanned += s.scanned[t]
		s.scanned[t] = 0
	}
	s.gatherSends(workers)
	s.stats.Relax += time.Since(t0)
	if err := spmv.TimedAlltoallv(ctx, s.c, PhaseRelax, s.send, &s.recv, &s.stats.Communicate); err != nil {
		return fmt.Errorf("sssp: %w", err)
	}
	t1 := time.Now()
	s.phase++
	s.stats.Phases++
	s.team.Run(func(o int) { s.errs[o] = s.applyOwned(o, workers) })
	for _, err := range s.errs {
		if err != nil {
			return err
		}
	}
	s.stats.Apply += time.Since(t1)
	return nil
}

// gatherSends joins the expanding threads' requests per destination rank
// into s.send (compacted with Config.Compact) and counts the phase's
// requests.
func (s *SSSP) gatherSends(workers int) {
	for d := range s.send {
		switch {
		case d == s.rank:
			s.send[d] = nil
		case workers == 1:
			s.send[d] = s.threadBufs[0][d]
		default:
			m := s.merged[d][:0]
			for t := range workers {
				m = append(m, s.threadBufs[t][d]...)
			}
			s.merged[d], s.send[d] = m, m
		}
		if d != s.rank {
			s.stats.Requests += int64(len(s.send[d]) / RequestSize)
		}
		if s.cfg.Compact && d != s.rank {
			s.compact[d], s.keys = compactRequests(s.compact[d], s.send[d], s.keys)
			s.send[d] = s.compact[d]
		}
	}
	for t := range workers {
		s.stats.Requests += int64(len(s.local[t]))
	}
}

// applyOwned applies, as owner thread o, the requests to its vertices:
// those the expanding threads made on this rank and those other ranks
// sent.
func (s *SSSP) applyOwned(o, workers int) error {
	b := &s.bins[o]
	first := s.g.FirstGlobal
	lo := uint32(o) << s.ownerShift
	hi := uint32(min(int64(len(s.dist)), int64(o+1)<<s.ownerShift))
	for t := range workers {
		for _, q := range s.local[t] {
			if q.target >= lo && q.target < hi {
				s.offer(b, q.target, q.dist, first+int64(q.parent))
			}
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
		if err := apply(b, src, msg, lo, hi); err != nil {
			return fmt.Errorf("sssp: requests from rank %d: %w", src, err)
		}
	}
	return nil
}

// expand makes the requests of the light or heavy edges of list: to this
// rank's vertices into *local, unless they cannot lower the target's
// distance; to other ranks' into remote, per destination. It returns the
// entries scanned.
func expand[C uint32 | int64](s *SSSP, r *rows[C], list []uint32, light bool, local *[]request, remote [][]byte, sent *sentTable) (scanned int64) {
	off, cols, w, lightN, dist := r.off, r.cols, r.w, r.light, s.dist
	first, out := s.g.FirstGlobal, *local
	for _, v := range list {
		lo, hi := off[v], off[v+1]
		if mid := lo + int64(lightN[v]); light {
			hi = mid
		} else {
			lo = mid
		}
		cs, ws, d := cols[lo:hi], w[lo:hi], dist[v]
		scanned += hi - lo
		out = scanRow(cs, ws, d, v, first, dist, out)
		if s.part.P > 1 {
			expandRemote(s, cs, ws, d, v, remote, sent)
		}
	}
	*local = out
	return scanned
}

// expandRemote writes the requests of a row's entries (neighbours cs,
// weights ws, from vertex v at distance d) to other ranks' vertices into
// remote, per destination, unless the thread's table sent shows them
// useless: a second pass over the row, which is in cache, so that the scan
// of the local entries stays a register-only loop.
func expandRemote[C uint32 | int64](s *SSSP, cs []C, ws []float32, d float32, v uint32, remote [][]byte, sent *sentTable) {
	first, n := s.g.FirstGlobal, uint64(len(s.dist))
	ws = ws[:len(cs)]
	for j, c := range cs {
		if uint64(int64(c)-first) < n {
			continue
		}
		g, nd := int64(c), d+ws[j]
		if !sent.keep(g, nd) {
			continue
		}
		dst := s.part.Owner(g)
		b := binary.LittleEndian.AppendUint32(remote[dst], uint32(g-s.part.First(dst)))
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(nd))
		remote[dst] = binary.LittleEndian.AppendUint32(b, v)
	}
}

// scanRow appends to out the requests of a row's neighbours cs and
// weights ws, from vertex v at distance d, to vertices of this rank
// (global ids [first, first+len(dist))) whose distance they would lower.
// It is the hot loop: one call per row, kept apart from the rare paths (and
// not inlined into them) so that it stays in registers.
//
//go:noinline
func scanRow[C uint32 | int64](cs []C, ws []float32, d float32, v uint32, first int64, dist []float32, out []request) []request {
	ws = ws[:len(cs)]
	n := uint64(len(dist))
	for j, c := range cs {
		u := uint64(int64(c) - first)
		if u < n {
			if nd := d + ws[j]; nd < dist[u] {
				out = append(out, request{uint32(u), nd, v})
			}
		}
	}
	return out
}

// apply applies the requests rank src sent to the owned vertices in
// [lo, hi) into b, checking every request: a request lowers its target's
// distance and sets its parent; among the requests of one phase with the
// same lowest distance the larger parent wins, so the outcome does not
// depend on the order in which requests arrive.
func (s *SSSP) apply(b *buckets, src int, msg []byte, lo, hi uint32) error {
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
		if t >= lo && t < hi {
			s.offer(b, t, math.Float32frombits(bits), first+int64(pl))
		}
	}
	return nil
}

// offer applies one request to b's owner: distance nd to owned vertex t
// from parent p.
func (s *SSSP) offer(b *buckets, t uint32, nd float32, p int64) {
	switch cur := s.dist[t]; {
	case nd < cur:
		if s.updated[t] != s.phase || bucketOf(nd, s.inv) != bucketOf(cur, s.inv) {
			b.insert(t, bucketOf(nd, s.inv))
		}
		s.dist[t], s.parent[t], s.updated[t] = nd, p, s.phase
	case nd == cur && s.updated[t] == s.phase && p > s.parent[t]:
		s.parent[t] = p
	}
}
