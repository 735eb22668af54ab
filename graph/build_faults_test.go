// Kernel 1 under faults: bad ids and partitions, cancellation, corrupt
// messages, a source that changes between its two readings, an aborted peer
// and a graph too big for 32-bit columns; each is an error, never a panic
// or a wrong CSR.

package graph

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/inproc"
	"github.com/graphrun/graphrun/partition"
)

func TestBuildUndirectedBadIDs(t *testing.T) {
	n := int64(200)
	part := block1D(t, n, 3)
	for _, bad := range []Edge{{-1, 4}, {4, -1}, {n, 0}, {0, n}, {1 << 62, 1}, {-1 << 63, -1 << 63}} {
		for _, threads := range []int{1, 4} {
			perRank := [][]Edge{{{1, 2}}, make([]Edge, 9), {{5, 6}}}
			perRank[1][7] = bad
			_, err := runBuild(part, perRank, threads, false)
			if err == nil || !strings.Contains(err.Error(), "tuple 7") {
				t.Fatalf("tuple %v with threads=%d: error %v, want one naming tuple 7", bad, threads, err)
			}
		}
	}
}

func TestBuildUndirectedBadPartition(t *testing.T) {
	part := block1D(t, 100, 2)
	err := inproc.Run(context.Background(), 3, func(ctx context.Context, c comm.Comm) error {
		_, err := BuildUndirected(ctx, c, part, nil, 1)
		return err
	})
	if err == nil {
		t.Fatal("partition over 2 ranks accepted by a 3-rank job")
	}
	for _, p := range []partition.Block1D{
		{N: 0, P: 1, Block: 64},
		{N: 100, P: 1, Block: 0},
		{N: 100, P: 1, Block: 100},
		{N: 100, P: 2, Block: 50},
		{N: 1000, P: 2, Block: 64},
		{N: 1 << 40, P: 1, Block: 1 << 40},
	} {
		if err := checkPartition(p, p.P); err == nil {
			t.Errorf("checkPartition(%+v) accepted", p)
		}
	}
}

func TestBuildUndirectedCancelled(t *testing.T) {
	part := block1D(t, 100, 2)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := inproc.Run(ctx, 2, func(ctx context.Context, c comm.Comm) error {
		_, err := BuildUndirected(ctx, c, part, []Edge{{1, 2}}, 1)
		return err
	})
	if err == nil {
		t.Fatal("cancelled build succeeded")
	}
}

// corruptingComm changes kernel 1's messages on their way in, as a faulty
// network or peer would.
type corruptingComm struct {
	comm.Comm
	phase  string
	mangle func(msg []byte) []byte
}

func (cc corruptingComm) Alltoallv(ctx context.Context, phase string, send, recv [][]byte) ([][]byte, error) {
	out, err := cc.Comm.Alltoallv(ctx, phase, send, recv)
	if err == nil && phase == cc.phase && cc.Rank() == 1 && len(out[0]) > 0 {
		out[0] = cc.mangle(out[0])
	}
	return out, err
}

// TestBuildCorruptMessages feeds rank 1 corrupt kernel 1 messages from rank
// 0: every corruption is an error naming rank 0, never a panic or a CSR.
func TestBuildCorruptMessages(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	n := int64(512)
	edges := randomGraph(rng, n, 4000)
	part := block1D(t, n, 2)
	perRank := splitEdges(rng, edges, 2)
	// Structural damage only: a flipped neighbour bit that stays in range
	// is a valid message of another graph (the TCP transport's CRC32C
	// catches those on the wire).
	mangles := map[string]func([]byte) []byte{
		"truncate":   func(m []byte) []byte { return m[:len(m)-1] },
		"extend":     func(m []byte) []byte { return append(m, 0) },
		"padding":    func(m []byte) []byte { m[len(m)-1] |= 0x80; return m },
		"zero tail":  func(m []byte) []byte { clear(m[len(m)/2:]); return m },
		"all zeros":  func(m []byte) []byte { clear(m); return m },
		"loops fill": func(m []byte) []byte { return append([]byte{1}, m[1:]...) },
	}
	for _, phase := range []string{RoutePhaseCount, RoutePhaseFill} {
		for name, mangle := range mangles {
			err := inproc.Run(context.Background(), 2, func(ctx context.Context, c comm.Comm) error {
				cc := corruptingComm{Comm: c, phase: phase, mangle: mangle}
				_, _, err := buildUndirected(ctx, cc, part, EdgeSlice(perRank[c.Rank()]), 2, false, 0)
				return err
			})
			if name == "loops fill" && phase == RoutePhaseCount {
				continue // a changed self-loop count is a valid message
			}
			if err == nil || (!strings.Contains(err.Error(), "rank 0") && !errors.Is(err, comm.ErrAborted)) {
				t.Errorf("%s, %s: %v", phase, name, err)
			}
		}
	}
	// Random damage: an error or another graph, never a panic.
	for trial := range 200 {
		phase := []string{RoutePhaseCount, RoutePhaseFill}[trial%2]
		mrng := rand.New(rand.NewPCG(uint64(trial), 77))
		_ = inproc.Run(context.Background(), 2, func(ctx context.Context, c comm.Comm) error {
			cc := corruptingComm{Comm: c, phase: phase, mangle: func(m []byte) []byte {
				for range 1 + mrng.IntN(4) {
					m[mrng.IntN(len(m))] ^= byte(1 + mrng.IntN(255))
				}
				return m
			}}
			_, _, err := buildUndirected(ctx, cc, part, EdgeSlice(perRank[c.Rank()]), 2, trial%3 == 0, 0)
			return err
		})
	}
}

// unstableSource gives other tuples on its second reading than on its first.
type unstableSource struct {
	EdgeSlice
	reads int
}

func (s *unstableSource) Read(ctx context.Context, first int64, out []Edge) error {
	s.reads++
	if err := s.EdgeSlice.Read(ctx, first, out); err != nil {
		return err
	}
	if s.reads > 1 {
		for i := range out {
			out[i].V = (out[i].V + 1) % 100
		}
	}
	return nil
}

func TestBuildUnstableSource(t *testing.T) {
	part := block1D(t, 100, 1)
	err := inproc.Run(context.Background(), 1, func(ctx context.Context, c comm.Comm) error {
		src := &unstableSource{EdgeSlice: EdgeSlice{{1, 2}, {3, 4}, {5, 6}, {7, 8}, {9, 9}}}
		_, _, err := BuildUndirectedFrom(ctx, c, part, src, 1)
		return err
	})
	if err == nil {
		t.Fatal("a source that changed between its readings gave a CSR")
	}
}

// cancellingSource cancels its context during its k-th read.
type cancellingSource struct {
	EdgeSlice
	cancel func()
	k      int
}

func (s *cancellingSource) Read(ctx context.Context, first int64, out []Edge) error {
	if s.k--; s.k == 0 {
		s.cancel()
	}
	return s.EdgeSlice.Read(ctx, first, out)
}

func TestBuildCancelledBetweenRounds(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 9))
	edges := randomGraph(rng, 300, 3000)
	part := block1D(t, 300, 1)
	for _, k := range []int{1, 3, 12} { // in the count pass, at its end, in the fill pass
		ctx, cancel := context.WithCancel(context.Background())
		err := inproc.Run(ctx, 1, func(ctx context.Context, c comm.Comm) error {
			_, _, err := buildUndirected(ctx, c, part, &cancellingSource{EdgeSlice: edges, cancel: cancel, k: k}, 1, false, 300)
			return err
		})
		cancel()
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled in read %d: %v", k, err)
		}
	}
}

func TestBuildUndirectedAbortedPeer(t *testing.T) {
	part := block1D(t, 100, 2)
	boom := errors.New("peer failed")
	err := inproc.Run(context.Background(), 2, func(ctx context.Context, c comm.Comm) error {
		if c.Rank() == 1 {
			return boom
		}
		_, err := BuildUndirected(ctx, c, part, []Edge{{1, 2}}, 2)
		if err != nil && !errors.Is(err, comm.ErrAborted) {
			return fmt.Errorf("rank 0: %w is not comm.ErrAborted", err)
		}
		return err
	})
	if err == nil {
		t.Fatal("job with a failed rank succeeded")
	}
}

func TestBuildNarrowTooBig(t *testing.T) {
	part := block1D(t, 1<<33, 4)
	err := inproc.Run(context.Background(), 4, func(ctx context.Context, c comm.Comm) error {
		_, _, err := buildUndirected(ctx, c, part, EdgeSlice(nil), 1, false, 0)
		return err
	})
	if err == nil || !strings.Contains(err.Error(), "32-bit") {
		t.Fatalf("2^33 vertices in 32-bit columns: %v", err)
	}
}
