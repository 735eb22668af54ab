package commtest

// The data tests: every collective delivers what the package doc of comm
// promises, with copy semantics, recv-buffer reuse and deterministic
// floating-point reduction, alone and in mixed sequences.

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/graphrun/graphrun/comm"
)

func testRankAndSize(t *testing.T, launch Launcher, p int) {
	mustLaunch(t, launch, p, func(ctx context.Context, c comm.Comm) error {
		if c.Size() != p {
			return fmt.Errorf("Size() = %d, want %d", c.Size(), p)
		}
		if c.Rank() < 0 || c.Rank() >= p {
			return fmt.Errorf("Rank() = %d, want one in [0, %d)", c.Rank(), p)
		}
		out, err := c.Allgatherv(ctx, "commtest.rank", binary.AppendUvarint(nil, uint64(c.Rank())), nil)
		if err != nil {
			return err
		}
		if len(out) != p {
			return fmt.Errorf("Allgatherv returned %d contributions, want %d", len(out), p)
		}
		for s, b := range out {
			rank, n := binary.Uvarint(b)
			if n != len(b) || rank != uint64(s) {
				return fmt.Errorf("contribution %d comes from a rank that calls itself %d: ranks are not distinct", s, rank)
			}
		}
		return nil
	})
}

func testAlltoallvVaried(t *testing.T, launch Launcher, p int) {
	pt := newPattern(maxVariedLen)
	mustLaunch(t, launch, p, func(ctx context.Context, c comm.Comm) error {
		r := c.Rank()
		for round := range 6 {
			send := make([][]byte, p)
			for d := range send {
				send[d] = pt.window(variedLen(r, d, round), messageSeed(r, d, round))
			}
			recv, err := c.Alltoallv(ctx, "commtest.alltoallv.varied", send, nil)
			if err != nil {
				return err
			}
			if err := checkEach(fmt.Sprintf("round %d: ", round), "message", recv, p, func(s int) []byte {
				return pt.window(variedLen(s, r, round), messageSeed(s, r, round))
			}); err != nil {
				return err
			}
		}
		return nil
	})
}

func testAlltoallvLarge(t *testing.T, launch Launcher, p int) {
	largeLen := func(src, dst int) int { return 1<<20 + 7*src + dst }
	pt := newPattern(largeLen(p, p))
	mustLaunch(t, launch, p, func(ctx context.Context, c comm.Comm) error {
		r := c.Rank()
		send := make([][]byte, p)
		for d := range send {
			send[d] = pt.window(largeLen(r, d), messageSeed(r, d, 0))
		}
		recv, err := c.Alltoallv(ctx, "commtest.alltoallv.large", send, nil)
		if err != nil {
			return err
		}
		return checkEach("", "message", recv, p, func(s int) []byte { return pt.window(largeLen(s, r), messageSeed(s, r, 0)) })
	})
}

func testAlltoallvRecvReuse(t *testing.T, launch Launcher, p int) {
	// Rounds shrink, empty, regrow within capacity, then outgrow it.
	roundLen := []int{3000, 100, 0, 2999, 6000, 6000, 10}
	reuseLen := func(src, dst, round int) int {
		if roundLen[round] == 0 {
			return 0
		}
		return roundLen[round] - (src+dst)%3
	}
	pt := newPattern(6000)
	mustLaunch(t, launch, p, func(ctx context.Context, c comm.Comm) error {
		r := c.Rank()
		recv := make([][]byte, p)
		for s := range recv {
			recv[s] = make([]byte, 0, 4000)
		}
		for round := range roundLen {
			send := make([][]byte, p)
			for d := range send {
				send[d] = pt.window(reuseLen(r, d, round), messageSeed(r, d, round))
			}
			before := snapshotRecv(recv)
			out, err := c.Alltoallv(ctx, "commtest.alltoallv.reuse", send, recv)
			if err != nil {
				return err
			}
			if err := checkEach(fmt.Sprintf("round %d: ", round), "message", out, p, func(s int) []byte {
				return pt.window(reuseLen(s, r, round), messageSeed(s, r, round))
			}); err != nil {
				return err
			}
			if err := before.checkReused(fmt.Sprintf("round %d", round), out); err != nil {
				return err
			}
			recv = out
		}
		return nil
	})
}

func testAllgathervVaried(t *testing.T, launch Launcher, p int) {
	gatherLen := func(rank, round int) int {
		if round == 3 || (rank+round)%3 == 0 {
			return 0 // round 3: every contribution is empty
		}
		return 50*rank + 10*round + 1
	}
	pt := newPattern(gatherLen(p, 4))
	mustLaunch(t, launch, p, func(ctx context.Context, c comm.Comm) error {
		r := c.Rank()
		var recv [][]byte
		for round := range 5 {
			mine := pt.window(gatherLen(r, round), messageSeed(r, r, round))
			before := snapshotRecv(recv)
			out, err := c.Allgatherv(ctx, "commtest.allgatherv", mine, recv)
			if err != nil {
				return err
			}
			if err := checkEach(fmt.Sprintf("round %d: ", round), "contribution", out, p, func(s int) []byte {
				return pt.window(gatherLen(s, round), messageSeed(s, s, round))
			}); err != nil {
				return err
			}
			if len(mine) > 0 && arrayStart(out[r]) == arrayStart(mine) {
				return fmt.Errorf("round %d: out[Rank()] is mine itself, want a copy", round)
			}
			if err := before.checkReused(fmt.Sprintf("round %d", round), out); err != nil {
				return err
			}
			recv = out
		}
		return nil
	})
}

var reductionOps = []comm.Op{comm.Sum, comm.Max, comm.Min}

// intContribution is element i of rank s's AllreduceInt64 contribution.
func intContribution(s, i int) int64 {
	v := int64((s+1)*(i+3)*7919) + int64(i%4)<<40
	if (s+i)%2 == 1 {
		v = -v
	}
	return v
}

// reduce is op applied to a and b, the suite's own reference (the builtin
// max and min treat NaN and signed zeros as math.Max and math.Min do).
func reduce[T int64 | float64](a, b T, op comm.Op) T {
	switch op {
	case comm.Max:
		return max(a, b)
	case comm.Min:
		return min(a, b)
	}
	return a + b
}

func testAllreduceInt64(t *testing.T, launch Launcher, p int) {
	mustLaunch(t, launch, p, func(ctx context.Context, c comm.Comm) error {
		for _, op := range reductionOps {
			for _, n := range []int{1, 5, 0, 1000} {
				vals := make([]int64, n)
				for i := range vals {
					vals[i] = intContribution(c.Rank(), i)
				}
				if err := c.AllreduceInt64(ctx, "commtest.allreduce.int64."+op.String(), vals, op); err != nil {
					return err
				}
				for i, got := range vals {
					want := intContribution(0, i)
					for s := 1; s < p; s++ {
						want = reduce(want, intContribution(s, i), op)
					}
					if got != want {
						return fmt.Errorf("%s of %d values: element %d = %d, want %d", op, n, i, got, want)
					}
				}
			}
		}
		return nil
	})
}

// floatContribution is element i of rank s's AllreduceFloat64 contribution:
// magnitudes spread over 2^±20 so that the rounding of a sum depends on the
// order in which the ranks are combined.
func floatContribution(s, i int) float64 {
	v := math.Ldexp(float64(1+(s*7+i*3)%13), (s*11+i*5)%41-20) + 0.1*float64(s)
	if (s+i)%3 == 1 {
		v = -v
	}
	return v
}

func testAllreduceFloat64(t *testing.T, launch Launcher, p int) {
	mustLaunch(t, launch, p, func(ctx context.Context, c comm.Comm) error {
		for _, op := range reductionOps {
			const n = 300
			vals := make([]float64, n)
			for i := range vals {
				vals[i] = floatContribution(c.Rank(), i)
			}
			if err := c.AllreduceFloat64(ctx, "commtest.allreduce.float64."+op.String(), vals, op); err != nil {
				return err
			}
			bits := make([]byte, 0, 8*n)
			for i, got := range vals {
				want := floatContribution(0, i)
				for s := 1; s < p; s++ {
					want = reduce(want, floatContribution(s, i), op)
				}
				if math.Float64bits(got) != math.Float64bits(want) {
					return fmt.Errorf("%s: element %d = %v, want %v (ranks combined in rank order)", op, i, got, want)
				}
				bits = binary.LittleEndian.AppendUint64(bits, math.Float64bits(got))
			}
			all, err := c.Allgatherv(ctx, "commtest.allreduce.float64.compare", bits, nil)
			if err != nil {
				return err
			}
			for s := range all {
				if !bytes.Equal(all[s], bits) {
					return fmt.Errorf("%s: the result on rank %d differs from this rank's", op, s)
				}
			}
		}
		return nil
	})
}

func bcastLen(root int) int {
	if root == 1 {
		return 0
	}
	return 1000*root + 17
}

func testBcastEveryRoot(t *testing.T, launch Launcher, p int) {
	pt := newPattern(bcastLen(p))
	mustLaunch(t, launch, p, func(ctx context.Context, c comm.Comm) error {
		for root := range p {
			want := pt.window(bcastLen(root), messageSeed(root, root, 7))
			data := []byte("ignored on every rank but the root")
			if c.Rank() == root {
				data = want
			}
			got, err := c.Bcast(ctx, "commtest.bcast", root, data)
			if err != nil {
				return err
			}
			if err := checkBytes(fmt.Sprintf("Bcast from root %d", root), got, want); err != nil {
				return err
			}
		}
		return nil
	})
}

func testBarrier(t *testing.T, launch Launcher, p int) {
	mustLaunch(t, launch, p, func(ctx context.Context, c comm.Comm) error {
		for i := range 100 {
			if err := c.Barrier(ctx, "commtest.barrier"); err != nil {
				return fmt.Errorf("barrier %d: %w", i, err)
			}
		}
		return nil
	})
}

// testCopySemantics overwrites every send buffer as soon as its call returns
// and checks, after a barrier, that no receiver's data changed.
func testCopySemantics(t *testing.T, launch Launcher, p int) {
	pt := newPattern(maxVariedLen)
	scribble := func(b []byte) {
		for i := range b {
			b[i] = 0xEE
		}
	}
	mustLaunch(t, launch, p, func(ctx context.Context, c comm.Comm) error {
		r := c.Rank()
		send := make([][]byte, p)
		for d := range send {
			send[d] = pt.ownedWindow(variedLen(r, d, 2), messageSeed(r, d, 2))
		}
		recv, err := c.Alltoallv(ctx, "commtest.copy.alltoallv", send, nil)
		if err != nil {
			return err
		}
		for _, b := range send {
			scribble(b)
		}

		mine := pt.ownedWindow(100+r, messageSeed(r, r, 3))
		gathered, err := c.Allgatherv(ctx, "commtest.copy.allgatherv", mine, nil)
		if err != nil {
			return err
		}
		scribble(mine)

		var data []byte
		if r == 0 {
			data = pt.ownedWindow(500, messageSeed(0, 0, 4))
		}
		broadcast, err := c.Bcast(ctx, "commtest.copy.bcast", 0, data)
		if err != nil {
			return err
		}
		scribble(data) // on the root, broadcast may be data itself

		if err := c.Barrier(ctx, "commtest.copy.barrier"); err != nil {
			return err
		}
		for s := range recv {
			if err := checkBytes(fmt.Sprintf("Alltoallv message from rank %d after its sender reused the buffer", s), recv[s], pt.window(variedLen(s, r, 2), messageSeed(s, r, 2))); err != nil {
				return err
			}
		}
		for s := range gathered {
			if err := checkBytes(fmt.Sprintf("Allgatherv contribution of rank %d after its sender reused the buffer", s), gathered[s], pt.window(100+s, messageSeed(s, s, 3))); err != nil {
				return err
			}
		}
		if r != 0 {
			if err := checkBytes("Bcast data after the root reused its buffer", broadcast, pt.window(500, messageSeed(0, 0, 4))); err != nil {
				return err
			}
		}
		return nil
	})
}

// testMixedSequence runs many back-to-back collectives of every kind in a
// pseudo-random order that every rank derives from the same seed.
func testMixedSequence(t *testing.T, launch Launcher, p int) {
	const steps = 240
	mixedLen := func(src, dst, step int) int { return (src*5 + dst*3 + step*7) % 23 }
	pt := newPattern(64)
	phases := []string{
		"commtest.mixed.alltoallv", "commtest.mixed.allgatherv", "commtest.mixed.allreduce.int64",
		"commtest.mixed.allreduce.float64", "commtest.mixed.bcast", "commtest.mixed.barrier",
	}
	mustLaunch(t, launch, p, func(ctx context.Context, c comm.Comm) error {
		r := c.Rank()
		rng := rand.New(rand.NewPCG(42, uint64(p)))
		before := c.Stats().Snapshot()
		calls := make(map[string]int64)
		var alltoallvRecv, allgathervRecv [][]byte
		for step := range steps {
			kind, root, op := rng.IntN(len(phases)), rng.IntN(p), reductionOps[rng.IntN(len(reductionOps))]
			phase := phases[kind]
			calls[phase]++
			var err error
			switch kind {
			case 0:
				send := make([][]byte, p)
				for d := range send {
					send[d] = pt.window(mixedLen(r, d, step), messageSeed(r, d, step))
				}
				alltoallvRecv, err = c.Alltoallv(ctx, phase, send, alltoallvRecv)
				for s := 0; err == nil && s < p; s++ {
					err = checkBytes(fmt.Sprintf("message from rank %d", s), alltoallvRecv[s], pt.window(mixedLen(s, r, step), messageSeed(s, r, step)))
				}
			case 1:
				allgathervRecv, err = c.Allgatherv(ctx, phase, pt.window(mixedLen(r, r, step), messageSeed(r, r, step)), allgathervRecv)
				for s := 0; err == nil && s < p; s++ {
					err = checkBytes(fmt.Sprintf("contribution of rank %d", s), allgathervRecv[s], pt.window(mixedLen(s, s, step), messageSeed(s, s, step)))
				}
			case 2:
				vals := []int64{intContribution(r, step), intContribution(r, step+1)}
				err = c.AllreduceInt64(ctx, phase, vals, op)
				for i := 0; err == nil && i < len(vals); i++ {
					want := intContribution(0, step+i)
					for s := 1; s < p; s++ {
						want = reduce(want, intContribution(s, step+i), op)
					}
					if vals[i] != want {
						err = fmt.Errorf("%s element %d = %d, want %d", op, i, vals[i], want)
					}
				}
			case 3:
				vals := []float64{floatContribution(r, step)}
				err = c.AllreduceFloat64(ctx, phase, vals, op)
				want := floatContribution(0, step)
				for s := 1; s < p; s++ {
					want = reduce(want, floatContribution(s, step), op)
				}
				if err == nil && math.Float64bits(vals[0]) != math.Float64bits(want) {
					err = fmt.Errorf("%s = %v, want %v", op, vals[0], want)
				}
			case 4:
				want := pt.window(mixedLen(root, 0, step), messageSeed(root, 0, step))
				var data []byte
				if r == root {
					data = want
				}
				var got []byte
				got, err = c.Bcast(ctx, phase, root, data)
				if err == nil {
					err = checkBytes(fmt.Sprintf("Bcast from root %d", root), got, want)
				}
			case 5:
				err = c.Barrier(ctx, phase)
			}
			if err != nil {
				return fmt.Errorf("step %d (%s): %w", step, phase, err)
			}
		}
		for _, phase := range phases {
			got := c.Stats().Phase(phase).Sub(before[phase]).Calls
			if got != calls[phase] {
				return fmt.Errorf("phase %s counted %d calls, made %d", phase, got, calls[phase])
			}
		}
		return nil
	})
}
