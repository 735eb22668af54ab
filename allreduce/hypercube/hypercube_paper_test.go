package hypercube

// Tests named for the sections of the two papers this package implements:
// Zhang and Qiu's hypercube topology (§IV-B–D), its allreduces (§IV-E)
// and the failure exposure of §II; Li et al.'s shared variables (§3).
//
// References: Bingjing Zhang and Judy Qiu, "Efficient, Fault-tolerant and
// Elastic Allreduce Framework for Iterative Algorithms", Indiana University
// Bloomington, technical report (undated); Zhenyu Li, James A. Davis and
// Stephen A. Jarvis, "An Efficient Task-based All-Reduce for Machine
// Learning Applications", Machine Learning on HPC Environments workshop
// (MLHPC'17), ACM, 2017.

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/inproc"
)

// ruleLink is Zhang and Qiu's rules 1–4 for member x on dimension d,
// restated independently of the code: pair with y = x XOR 2^d if present,
// else send to y + 2^{d+1} or else y − 2^{d+1} if present, else no link,
// −2 if y or an alternative is a freed id (at most the largest id) and −1
// if they were never handed out.
func ruleLink(t *Topology, x, d int) (LinkKind, int) {
	y := x ^ 1<<d
	if t.Has(y) {
		return LinkPair, y
	}
	alts := []int{y + 1<<(d+1), y - 1<<(d+1)}
	for _, a := range alts {
		if t.Has(a) {
			return LinkSend, a
		}
	}
	for _, id := range append(alts, y) {
		if id >= 0 && id <= t.MaxID() {
			return LinkNone, NeighborLost
		}
	}
	return LinkNone, NeighborNone
}

// TestLinksFollowRules1To4_SecIVC: on every node count up to 40 (most not
// powers of two) and on memberships with freed ids, every link of a
// topology that keeps the paper's links (all dense counts do; the others
// may rebalance) is the one rules 1–4 give, every pair is mutual, and every
// node sent to lists the sender among its receiving links.
func TestLinksFollowRules1To4_SecIVC(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 1))
	var topos []*Topology
	for n := 1; n <= 40; n++ {
		topo, err := NewTopology(n)
		if err != nil {
			t.Fatal(err)
		}
		topos = append(topos, topo)
	}
	for range 300 {
		if ids := randomMembers(rng, rng.IntN(32)); len(ids) > 0 {
			topo, err := TopologyOf(ids)
			if err != nil {
				t.Fatal(err)
			}
			topos = append(topos, topo)
		}
	}
	for k, topo := range topos {
		if topo.Rebalanced() {
			if k < 40 {
				t.Fatalf("%d nodes: rebalanced", k+1)
			}
			continue
		}
		for _, x := range topo.Members() {
			for d := range topo.Dims() {
				l := topo.Link(x, d)
				if kind, peer := ruleLink(topo, x, d); l.Kind != kind || l.Peer != peer {
					t.Fatalf("members %v: node %d dimension %d is %v, the rules give kind %d peer %d", topo.Members(), x, d, l, kind, peer)
				}
				switch l.Kind {
				case LinkPair:
					if back := topo.Link(l.Peer, d); back.Kind != LinkPair || back.Peer != x {
						t.Fatalf("members %v: %d pairs with %d on dimension %d, which has %v", topo.Members(), x, l.Peer, d, back)
					}
				case LinkSend:
					if !slices.Contains(topo.Link(l.Peer, d).From, x) {
						t.Fatalf("members %v: %d sends to %d on dimension %d, which does not list it", topo.Members(), x, l.Peer, d)
					}
				}
			}
		}
	}
}

// TestDimensionsFollowTheLargestID_SecIVB: a hypercube whose largest id is
// M has ⌈log₂(M+1)⌉ dimensions (1 for a single node), freed ids below M
// included (memberships that keep the paper's links).
func TestDimensionsFollowTheLargestID_SecIVB(t *testing.T) {
	for _, tc := range []struct {
		ids  []int
		dims int
	}{
		{[]int{0}, 1}, {[]int{0, 1}, 1}, {[]int{0, 1, 2}, 2}, {[]int{0, 1, 2, 3}, 2},
		{[]int{0, 4}, 3}, {[]int{0, 1, 2, 4, 5}, 3}, {[]int{0, 16}, 5},
	} {
		topo, err := TopologyOf(tc.ids)
		if err != nil {
			t.Fatal(err)
		}
		if topo.Rebalanced() || topo.Dims() != tc.dims || topo.MaxID() != slices.Max(tc.ids) {
			t.Errorf("%v: %d dims, max id %d; want %d dims", tc.ids, topo.Dims(), topo.MaxID(), tc.dims)
		}
	}
}

// TestChunkedAllreduceEqualsTheSerialSum_SecIVE: reduce-scatter then
// allgather over the hypercube (and the unsplittable objects' exchange
// along each dimension) give every rank the serial sum, on every node
// count up to 17 and on memberships with freed ids.
func TestChunkedAllreduceEqualsTheSerialSum_SecIVE(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 2))
	var topos []*Topology
	for p := 1; p <= 17; p++ {
		topo, _ := NewTopology(p)
		topos = append(topos, topo)
	}
	for len(topos) < 30 {
		if ids := randomMembers(rng, 4+rng.IntN(16)); len(ids) > 1 {
			topo, _ := TopologyOf(ids)
			topos = append(topos, topo)
		}
	}
	for _, topo := range topos {
		p, n := topo.Len(), 1+rng.IntN(3000)
		want := serialReduce(p, n, Sum[float64], denseInput)
		for _, alg := range []Algorithm{AlgChunked, AlgHypercube} {
			got := runDense(t, p, n, alg, Options{Topology: topo}, Sum[float64], denseInput)
			checkAll(t, fmt.Sprintf("%s on %v", alg, topo.Members()), got, want)
		}
	}
}

// TestChunkedMovesTwiceTheVectorPerRank_SecIVE: on 2^k nodes the chunked
// allreduce sends each rank's halves, quarters, … once in the
// reduce-scatter and once back in the allgather: 2(p−1)/p vectors per
// rank, against the unsplittable exchange's whole vector per dimension.
func TestChunkedMovesTwiceTheVectorPerRank_SecIVE(t *testing.T) {
	const p, n = 8, 4096
	for _, tc := range []struct {
		alg  Algorithm
		want int64
	}{
		{AlgChunked, 2 * (p - 1) * 8 * n / p},
		{AlgHypercube, 3 * 8 * n},
	} {
		w, _ := inproc.NewWorld(p)
		err := onRanks(w, p, func(c comm.Comm) error {
			d, err := New[float64](context.Background(), c, tc.alg, Options{Phase: "paper"})
			if err != nil {
				return err
			}
			return d.Allreduce(context.Background(), make([]float64, n), Sum[float64])
		})
		if err != nil {
			t.Fatal(err)
		}
		for r := range p {
			st := w.Comm(r).Stats()
			var sent int64
			for _, ph := range mustPhases(t, tc.alg, p, "paper") {
				sent += st.Phase(ph).BytesSent
			}
			if sent != tc.want {
				t.Errorf("%s: rank %d sent %d bytes, want %d", tc.alg, r, sent, tc.want)
			}
		}
	}
}

func mustPhases(t *testing.T, alg Algorithm, p int, prefix string) []string {
	t.Helper()
	names, err := PhaseNames(alg, p, nil, prefix)
	if err != nil {
		t.Fatal(err)
	}
	return names
}

// TestFailureSurfacesOnEveryRank_SecII: a failure during an allreduce is
// exposed to the application: when one rank stops, every rank's call
// returns an error, none returns as if it had the result; a shared
// variable's Get returns an empty result with the error.
func TestFailureSurfacesOnEveryRank_SecII(t *testing.T) {
	const p = 4
	errs := runErrs(p, func(ctx context.Context, c comm.Comm) error {
		d, err := New[float64](ctx, c, AlgChunked, Options{})
		if err != nil {
			return err
		}
		if c.Rank() == 2 {
			cctx, cancel := context.WithCancel(ctx)
			cancel()
			ctx = cctx
		}
		return d.Allreduce(ctx, make([]float64, 10_000), Sum[float64])
	})
	for r, err := range errs {
		if err == nil {
			t.Errorf("rank %d: the allreduce returned no error after rank 2 stopped", r)
		}
	}
	results := make([][]float64, p)
	err := inproc.Run(context.Background(), p, func(ctx context.Context, c comm.Comm) error {
		m, err := NewManager(ctx, c, ManagerOptions{})
		if err != nil {
			return err
		}
		defer m.Close()
		v, err := Init(m, "x", 1, Sum[float64])
		if err != nil {
			return err
		}
		if err := v.Commit(make([]float64, 100+c.Rank()/3)); err != nil { // rank 3 disagrees on the length
			return err
		}
		// The failure is this call's result, not the job's.
		results[c.Rank()], errs[c.Rank()] = v.Get(ctx)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for r := range p {
		if !errors.Is(errs[r], ErrInvalid) || results[r] != nil {
			t.Errorf("shared variable, rank %d: result %v, error %v; want none and ErrInvalid", r, results[r], errs[r])
		}
	}
}

// TestCommitsOfAllTasksAreOneReducedVector_LiSec3: T tasks per rank (a
// different T on each rank) commit without waiting; the rank reduces them
// locally, one control check and one allreduce run across ranks, and every
// task's Get returns the same vector: the sum over every task of every
// rank.
func TestCommitsOfAllTasksAreOneReducedVector_LiSec3(t *testing.T) {
	const p, n = 3, 5000
	tasks := func(r int) int { return 1 + 2*r }
	want := sharedWant(p, n, tasks)
	err := inproc.Run(context.Background(), p, func(ctx context.Context, c comm.Comm) error {
		m, err := NewManager(ctx, c, ManagerOptions{Phase: "li"})
		if err != nil {
			return err
		}
		defer m.Close()
		v, err := Init(m, "model", tasks(c.Rank()), Sum[float64])
		if err != nil {
			return err
		}
		got := make([][]float64, tasks(c.Rank()))
		errs := make([]error, len(got))
		var wg sync.WaitGroup
		for k := range got {
			wg.Go(func() {
				if errs[k] = v.Commit(taskVec(c.Rank(), k, n)); errs[k] == nil {
					got[k], errs[k] = v.Get(ctx)
				}
			})
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			return err
		}
		for k := range got {
			if !slices.Equal(got[k], want) || &got[k][0] != &got[0][0] {
				return fmt.Errorf("rank %d task %d: not the one reduced vector", c.Rank(), k)
			}
		}
		if calls := c.Stats().Phase("li.control").Calls; calls != 1 {
			return fmt.Errorf("rank %d: %d control allreduces, want 1", c.Rank(), calls)
		}
		if calls := c.Stats().Phase("li.chunked.rs.0").Calls; calls != 1 {
			return fmt.Errorf("rank %d: %d allreduces across ranks, want 1", c.Rank(), calls)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
