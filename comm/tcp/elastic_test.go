package tcp

// The elastic topology changes of a TCP job (Zhang and Qiu §V): Shrink, elastic
// recovery's topology update (§II, §V): survivors of a lost rank build a
// Comm over themselves; losing the coordinator or two ranks fails in
// bounded time with an error naming the problem. Grow, ramp-up (§V-C):
// processes that join a running job between iterations through rank 0's
// lobby; refused joiners; a joiner that vanishes mid-growth fails the
// growth in bounded time, naming it, and leaves the old Comm usable. And
// a shrink followed by a growth.

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/graphrun/graphrun/comm"
)

// crash cuts c's connections without a goodbye, as a killed process would.
func crash(c *Comm) {
	for _, p := range c.peers {
		if p != nil {
			_ = p.conn.Close()
		}
	}
	_ = c.Close()
}

// runShrinkJob connects p ranks over loopback; the ranks in victims crash
// before round 3 of a loop of allreduces, and the survivors Shrink and sum
// their old ranks on the new Comm. It returns each rank's error and sum.
func runShrinkJob(t *testing.T, p int, victims ...int) ([]error, []int64) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	token := make([]byte, 32)
	_, _ = rand.Read(token)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	errs := make([]error, p)
	sums := make([]int64, p)
	var wg sync.WaitGroup
	for r := range p {
		var cl net.Listener
		if r == 0 {
			cl = ln
		}
		cfg := Config{Rank: r, Size: p, Coordinator: addr, Token: token, JobID: "shrink-test", PeerTimeout: time.Second}
		wg.Go(func() {
			sums[r], errs[r] = shrinkRank(ctx, cfg, cl, victims)
		})
	}
	wg.Wait()
	return errs, sums
}

// wrapped is a comm.Wrapper over a Comm, standing for the wrappers
// (network models, counters) kernels may be handed.
type wrapped struct{ comm.Comm }

func (w wrapped) Unwrap() comm.Comm { return w.Comm }

func shrinkRank(ctx context.Context, cfg Config, cl net.Listener, victims []int) (int64, error) {
	c, err := connect(ctx, cfg, cl)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	for round := range 6 {
		if round == 3 {
			for _, v := range victims {
				if v == c.Rank() {
					crash(c)
					return -1, nil
				}
			}
		}
		vals := []int64{1}
		if err = c.AllreduceInt64(ctx, "test", vals, comm.Sum); err != nil {
			break
		}
	}
	if err != nil && slices.Contains(victims, c.Rank()) {
		// A victim that saw another victim's crash first (its last
		// message may be lost in the reset) is lost all the same.
		crash(c)
		return -1, nil
	}
	if err == nil {
		return 0, errors.New("no failure seen")
	}
	old := c.Rank()
	// Through comm.Elastic, as kernels see it, under a wrapper.
	e, ok := comm.AsElastic(wrapped{c})
	if !ok || e != comm.Elastic(c) {
		return 0, fmt.Errorf("comm.AsElastic of a wrapped *tcp.Comm: %v, %v", e, ok)
	}
	nc, err := e.Shrink(ctx, err, 1)
	if err != nil {
		return 0, err
	}
	defer nc.Close()
	vals := []int64{int64(old)}
	if err := nc.AllreduceInt64(ctx, "after", vals, comm.Sum); err != nil {
		return 0, fmt.Errorf("on the shrunk Comm: %w", err)
	}
	if nc.Size() != cfg.Size-1 {
		return 0, fmt.Errorf("shrunk Comm of %d ranks, want %d", nc.Size(), cfg.Size-1)
	}
	return vals[0], nil
}

func TestShrinkAfterLosingOneRank(t *testing.T) {
	errs, sums := runShrinkJob(t, 4, 2)
	for r, err := range errs {
		if err != nil {
			t.Errorf("rank %d: %v", r, err)
		} else if r != 2 && sums[r] != 0+1+3 {
			t.Errorf("rank %d: sum of the survivors' old ranks %d, want 4", r, sums[r])
		}
	}
}

func TestShrinkLosingRankZeroFails(t *testing.T) {
	start := time.Now()
	errs, _ := runShrinkJob(t, 3, 0)
	for r := 1; r < 3; r++ {
		if !errors.Is(errs[r], ErrNotElastic) || !strings.Contains(errs[r].Error(), "rank 0, the coordinator") {
			t.Errorf("rank %d: %v, want ErrNotElastic naming rank 0", r, errs[r])
		}
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %v", d)
	}
}

func TestShrinkLosingTwoRanksFails(t *testing.T) {
	start := time.Now()
	errs, _ := runShrinkJob(t, 4, 2, 3)
	for r := range 2 {
		if errs[r] == nil || !strings.Contains(errs[r].Error(), "recovering from the loss of rank") {
			t.Errorf("rank %d: %v, want a failed recovery", r, errs[r])
		}
	}
	if !strings.Contains(errs[0].Error(), "missing rank") {
		t.Errorf("rank 0: %v, want the coordinator to name the missing rank", errs[0])
	}
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("took %v", d)
	}
}

const growTag = "grow-test tag"

// growJob is a loopback job whose rank 0 opens a lobby.
type growJob struct {
	t     *testing.T
	ln    net.Listener // rank 0's coordinator listener
	addr  string
	token []byte
	ctx   context.Context

	mu   sync.Mutex
	logs []string
}

func newGrowJob(t *testing.T) *growJob {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	token := make([]byte, 32)
	_, _ = rand.Read(token)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return &growJob{t: t, ln: ln, addr: ln.Addr().String(), token: token, ctx: ctx}
}

func (j *growJob) logf(format string, args ...any) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.logs = append(j.logs, fmt.Sprintf(format, args...))
}

func (j *growJob) config(rank, size int) Config {
	return Config{Rank: rank, Size: size, Coordinator: j.addr, Token: j.token, JobID: "grow-test",
		PeerTimeout: 2 * time.Second, Logf: j.logf}
}

// connectRanks connects the p ranks of the job; rank 0 opens its lobby.
func (j *growJob) connectRanks(p int) []*Comm {
	j.t.Helper()
	comms := j.connectAll(p)
	if err := comms[0].AcceptJoins(growTag); err != nil {
		j.t.Fatal(err)
	}
	return comms
}

// connectAll connects the p ranks of the job, which are closed when the
// test ends.
func (j *growJob) connectAll(p int) []*Comm {
	j.t.Helper()
	comms := make([]*Comm, p)
	errs := make([]error, p)
	var wg sync.WaitGroup
	for r := range p {
		var cl net.Listener
		if r == 0 {
			cl = j.ln
		}
		wg.Go(func() { comms[r], errs[r] = connect(j.ctx, j.config(r, p), cl) })
	}
	wg.Wait()
	for r, err := range errs {
		if err != nil {
			j.t.Fatalf("rank %d: %v", r, err)
		}
	}
	j.t.Cleanup(func() {
		for _, c := range comms {
			_ = c.Close()
		}
	})
	return comms
}

// waitPending waits (bounded) until rank 0's lobby holds want processes.
func waitPending(t *testing.T, c *Comm, want int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for c.PendingJoins() != want {
		if time.Now().After(deadline) {
			t.Fatalf("%d processes wait to join, want %d", c.PendingJoins(), want)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// joined is a joiner's view after the growth.
type joined struct {
	rank, size, epoch int
	sum               int64
	err               error
}

// startJoiners starts k joiners presenting tag; each contributes 100 to a
// sum over the grown job.
func (j *growJob) startJoiners(k int, cfg Config, tag string) chan joined {
	out := make(chan joined, k)
	for range k {
		go func() {
			nc, err := Join(j.ctx, cfg, tag)
			if err != nil {
				out <- joined{err: err}
				return
			}
			defer nc.Close()
			vals := []int64{100}
			err = nc.AllreduceInt64(j.ctx, "after", vals, comm.Sum)
			out <- joined{rank: nc.Rank(), size: nc.Size(), epoch: nc.Epoch(), sum: vals[0], err: err}
		}()
	}
	return out
}

// growAll makes every rank share rank 0's pending count (an allreduce)
// and grow by it; each then contributes its old rank to a sum over the new
// Comm. It returns the new Comms (nil where Grow failed), the sums and the
// errors.
func growAll(ctx context.Context, comms []*Comm, epoch int) ([]*Comm, []int64, []error) {
	p := len(comms)
	ncs := make([]*Comm, p)
	sums := make([]int64, p)
	errs := make([]error, p)
	var wg sync.WaitGroup
	for r, c := range comms {
		wg.Go(func() {
			k := []int64{int64(c.PendingJoins())}
			if r != 0 {
				k[0] = 0
			}
			if errs[r] = c.AllreduceInt64(ctx, "count", k, comm.Sum); errs[r] != nil {
				return
			}
			if ncs[r], errs[r] = c.grow(ctx, int(k[0]), epoch); errs[r] != nil {
				return
			}
			vals := []int64{int64(r)}
			errs[r] = ncs[r].AllreduceInt64(ctx, "after", vals, comm.Sum)
			sums[r] = vals[0]
		})
	}
	wg.Wait()
	return ncs, sums, errs
}

// growByOne grows comms by the one process waiting in the lobby, at epoch,
// and checks that every rank of the grown job (closed when the test ends)
// keeps its rank and sums to want, as does the joiner from out, which gets
// the last rank.
func growByOne(t *testing.T, ctx context.Context, comms []*Comm, epoch int, out chan joined, want int64) {
	t.Helper()
	ncs, sums, errs := growAll(ctx, comms, epoch)
	p := len(comms) + 1
	for r, err := range errs {
		if err != nil {
			t.Fatalf("rank %d: %v", r, err)
		}
		t.Cleanup(func() { ncs[r].Close() })
		if ncs[r].Size() != p || ncs[r].Rank() != r || ncs[r].Epoch() != epoch || sums[r] != want {
			t.Errorf("rank %d: rank %d of %d, epoch %d, sum %d; want rank %d of %d, epoch %d, sum %d",
				r, ncs[r].Rank(), ncs[r].Size(), ncs[r].Epoch(), sums[r], r, p, epoch, want)
		}
	}
	if o := <-out; o.err != nil || o.rank != p-1 || o.sum != want {
		t.Errorf("joiner: rank %d, sum %d, %v; want rank %d, sum %d", o.rank, o.sum, o.err, p-1, want)
	}
}

func testGrow(t *testing.T, p, k int) {
	j := newGrowJob(t)
	comms := j.connectRanks(p)
	out := j.startJoiners(k, j.config(0, 1), growTag)
	waitPending(t, comms[0], k)
	ncs, sums, errs := growAll(j.ctx, comms, 1)
	want := int64(p*(p-1)/2 + 100*k)
	for r, err := range errs {
		if err != nil {
			t.Fatalf("rank %d: %v", r, err)
		}
		defer ncs[r].Close()
		if ncs[r].Size() != p+k || ncs[r].Rank() != r || ncs[r].Epoch() != 1 {
			t.Errorf("rank %d: now rank %d of %d at epoch %d, want rank %d of %d at epoch 1", r, ncs[r].Rank(), ncs[r].Size(), ncs[r].Epoch(), r, p+k)
		}
		if sums[r] != want {
			t.Errorf("rank %d: sum %d over the grown job, want %d", r, sums[r], want)
		}
	}
	var ranks []int
	for range k {
		o := <-out
		if o.err != nil {
			t.Fatalf("joiner: %v", o.err)
		}
		if o.size != p+k || o.epoch != 1 || o.sum != want {
			t.Errorf("joiner: rank %d of %d at epoch %d, sum %d; want size %d, epoch 1, sum %d", o.rank, o.size, o.epoch, o.sum, p+k, want)
		}
		ranks = append(ranks, o.rank)
	}
	slices.Sort(ranks)
	for i, r := range ranks {
		if r != p+i {
			t.Errorf("joiners got ranks %v, want %d..%d", ranks, p, p+k-1)
			break
		}
	}
	if n := ncs[0].PendingJoins(); n != 0 {
		t.Errorf("%d processes still wait after the growth", n)
	}
	// The old Comms are closed; the lobby moved to the new rank 0.
	if err := comms[p-1].Barrier(j.ctx, "old"); !errors.Is(err, ErrClosed) {
		t.Errorf("old Comm after the growth: %v, want ErrClosed", err)
	}
	if comms[0].PendingJoins() != 0 || ncs[0].lobby == nil {
		t.Errorf("the lobby did not move to the grown Comm")
	}
}

func TestGrowOneJoiner(t *testing.T)   { testGrow(t, 3, 1) }
func TestGrowTwoJoiners(t *testing.T)  { testGrow(t, 3, 2) }
func TestGrowFromOneRank(t *testing.T) { testGrow(t, 1, 1) }

func TestJoinRefused(t *testing.T) {
	j := newGrowJob(t)
	comms := j.connectRanks(2)
	otherToken := make([]byte, 32)
	_, _ = rand.Read(otherToken)
	for _, tc := range []struct {
		name string
		cfg  func(Config) Config
		tag  string
		want string
	}{
		{"wrong token", func(c Config) Config { c.Token = otherToken; return c }, growTag, "invalid proof of the job token"},
		{"another job", func(c Config) Config { c.JobID = "another-job"; return c }, growTag, "answers for another job (the job ids differ)"},
		{"another configuration", func(c Config) Config { return c }, "another tag", "configuration differs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			nc, err := Join(j.ctx, tc.cfg(j.config(0, 1)), tc.tag)
			if err == nil {
				nc.Close()
				t.Fatal("joined")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%v, want an error containing %q", err, tc.want)
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("refused after %v", d)
			}
			if n := comms[0].PendingJoins(); n != 0 {
				t.Errorf("%d processes wait after a refusal", n)
			}
		})
	}
	// The job is unharmed.
	var wg sync.WaitGroup
	for _, c := range comms {
		wg.Go(func() {
			if err := c.Barrier(j.ctx, "after"); err != nil {
				t.Errorf("rank %d: %v", c.Rank(), err)
			}
		})
	}
	wg.Wait()
}

// TestGrowJoinerVanishes: a joiner admitted to a growth dies before it
// connects. Every rank's Grow fails within the growth's bound, naming the
// joiner's rank, and the ranks go on over the old Comm.
func TestGrowJoinerVanishes(t *testing.T) {
	j := newGrowJob(t)
	comms := j.connectRanks(3)
	admitted := make(chan error, 1)
	go func() {
		cfg, _ := j.config(0, 1).withDefaults()
		h := newHandshaker(cfg)
		a, err := h.requestJoin(j.ctx, []byte(growTag))
		if err == nil && a.rank != 3 {
			err = fmt.Errorf("admitted as rank %d, want 3", a.rank)
		}
		admitted <- err // and never connects: a process that died
	}()
	waitPending(t, comms[0], 1)
	start := time.Now()
	ncs, _, errs := growAll(j.ctx, comms, 1)
	took := time.Since(start)
	if err := <-admitted; err != nil {
		t.Fatalf("the vanishing joiner: %v", err)
	}
	for r, err := range errs {
		if err == nil {
			ncs[r].Close()
			t.Fatalf("rank %d grew without the joiner", r)
		}
		if !strings.Contains(err.Error(), "growing to 4 ranks (epoch 1)") || !strings.Contains(err.Error(), "rank 3") {
			t.Errorf("rank %d: %v, want a failed growth naming rank 3", r, err)
		}
	}
	t.Logf("rank 0: %v\nrank 2: %v", errs[0], errs[2])
	if !strings.Contains(errs[0].Error(), "joiners: rank 3 from 127.0.0.1:") {
		t.Errorf("rank 0: %v, want the joiner's address", errs[0])
	}
	// The growth's own bound, and room for a loaded machine, whose timers
	// fire late: what this tells apart is a bounded failure and a hang.
	if bound := growRankTimeout(comms[0].cfg) + 30*time.Second; took > bound {
		t.Errorf("the growth failed after %v, want within %v", took, bound)
	}
	// The old Comm still works.
	sums := make([]int64, 3)
	var wg sync.WaitGroup
	for r, c := range comms {
		wg.Go(func() {
			vals := []int64{int64(r)}
			if err := c.AllreduceInt64(j.ctx, "after", vals, comm.Sum); err != nil {
				t.Errorf("rank %d on the old Comm: %v", r, err)
			}
			sums[r] = vals[0]
		})
	}
	wg.Wait()
	for r, s := range sums {
		if s != 3 {
			t.Errorf("rank %d: sum %d on the old Comm, want 3", r, s)
		}
	}
}

// TestJoinerLeavesLobby: a process that stops waiting leaves the queue.
func TestJoinerLeavesLobby(t *testing.T) {
	j := newGrowJob(t)
	comms := j.connectRanks(2)
	cfg, _ := j.config(0, 1).withDefaults()
	s, _, err := newHandshaker(cfg).knock(j.ctx, []byte(growTag))
	if err != nil {
		t.Fatal(err)
	}
	waitPending(t, comms[0], 1)
	_ = s.conn.Close()
	waitPending(t, comms[0], 0)
}

// TestJoinAfterTheJobEnded: the processes still waiting when the job ends
// learn it (ErrJobEnded), or that it failed.
func TestJoinAfterTheJobEnded(t *testing.T) {
	for _, failed := range []bool{false, true} {
		t.Run(fmt.Sprintf("failed=%v", failed), func(t *testing.T) {
			j := newGrowJob(t)
			comms := j.connectRanks(2)
			out := j.startJoiners(1, j.config(0, 1), growTag)
			waitPending(t, comms[0], 1)
			if failed {
				comms[0].Abort(errors.New("injected failure"))
			}
			for _, c := range comms {
				_ = c.Close()
			}
			o := <-out
			switch {
			case !failed && !errors.Is(o.err, ErrJobEnded):
				t.Errorf("joiner: %v, want ErrJobEnded", o.err)
			case failed && (o.err == nil || !strings.Contains(o.err.Error(), "the job failed before it took this process in: injected failure")):
				t.Errorf("joiner: %v, want the job's failure", o.err)
			}
		})
	}
}

// TestShrinkThenGrow: the lobby survives a Shrink (its listener serves the
// survivors' rendezvous), and a process then joins the shrunk job.
func TestShrinkThenGrow(t *testing.T) {
	j := newGrowJob(t)
	comms := j.connectRanks(4)
	crash(comms[2])
	survivors := []*Comm{comms[0], comms[1], comms[3]}
	shrunk := make([]*Comm, 3)
	var wg sync.WaitGroup
	for i, c := range survivors {
		wg.Go(func() {
			err := c.Barrier(j.ctx, "fails")
			if err == nil {
				t.Errorf("rank %d: no failure seen", c.Rank())
				return
			}
			if shrunk[i], err = c.shrink(j.ctx, err, 1); err != nil {
				t.Errorf("rank %d: %v", c.Rank(), err)
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	if shrunk[0].lobby == nil {
		t.Fatal("the lobby did not move to the shrunk Comm")
	}
	out := j.startJoiners(1, j.config(0, 1), growTag)
	waitPending(t, shrunk[0], 1)
	growByOne(t, j.ctx, shrunk, 2, out, 0+1+2+100)
}
