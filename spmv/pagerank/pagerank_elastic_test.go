package pagerank

// Elastic PageRank (Zhang and Qiu §II, §V) over loopback TCP: a rank lost
// mid-run is recovered from and the result matches the fault-free run's
// within the tolerance; losing rank 0 or two ranks fails in bounded time.

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"math"
	mrand "math/rand/v2"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/tcp"
	"github.com/graphrun/graphrun/graph"
)

// dyingComm is a rank that dies (closes its Comm) at its die-th collective.
type dyingComm struct {
	*tcp.Comm
	calls, die int
}

var errInjected = errors.New("injected loss of this rank")

func (d *dyingComm) tick() error {
	d.calls++
	if d.die > 0 && d.calls == d.die {
		_ = d.Comm.Close()
		return errInjected
	}
	return nil
}

func (d *dyingComm) Alltoallv(ctx context.Context, phase string, send, recv [][]byte) ([][]byte, error) {
	if err := d.tick(); err != nil {
		return nil, err
	}
	return d.Comm.Alltoallv(ctx, phase, send, recv)
}

func (d *dyingComm) Allgatherv(ctx context.Context, phase string, mine []byte, recv [][]byte) ([][]byte, error) {
	if err := d.tick(); err != nil {
		return nil, err
	}
	return d.Comm.Allgatherv(ctx, phase, mine, recv)
}

func (d *dyingComm) AllreduceInt64(ctx context.Context, phase string, vals []int64, op comm.Op) error {
	if err := d.tick(); err != nil {
		return err
	}
	return d.Comm.AllreduceInt64(ctx, phase, vals, op)
}

func (d *dyingComm) AllreduceFloat64(ctx context.Context, phase string, vals []float64, op comm.Op) error {
	if err := d.tick(); err != nil {
		return err
	}
	return d.Comm.AllreduceFloat64(ctx, phase, vals, op)
}

// loopbackJob returns a free loopback address for a job's coordinator and
// a fresh token.
func loopbackJob(t *testing.T) (addr string, token []byte) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr = ln.Addr().String()
	_ = ln.Close()
	token = make([]byte, 32)
	_, _ = rand.Read(token)
	return addr, token
}

// elasticJob runs elastic PageRank on p loopback TCP ranks; rank r dies at
// its die[r]-th collective (0: never). It returns rank 0's scores by
// original id and top k, and every rank's error.
func elasticJob(t *testing.T, p int, edges []graph.Edge, cfg Config, k int, die map[int]int) (map[int64]float64, []VertexScore, []error, []Recovery) {
	t.Helper()
	addr, token := loopbackJob(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var (
		mu     sync.Mutex
		scores = map[int64]float64{}
		top    []VertexScore
		recs   []Recovery
		loads  atomic.Int64
	)
	errs := make([]error, p)
	var wg sync.WaitGroup
	for r := range p {
		wg.Go(func() {
			errs[r] = func() error {
				tc, err := tcp.Connect(ctx, tcp.Config{Rank: r, Size: p, Coordinator: addr, Token: token, JobID: "elastic-test", PeerTimeout: 2 * time.Second})
				if err != nil {
					return err
				}
				defer tc.Close()
				var c comm.Comm = &dyingComm{Comm: tc, die: die[r]}
				el := Elastic{
					Load: func(_ context.Context, rank, size int) (graph.EdgeShare, error) {
						loads.Add(1)
						return graph.EdgeChunks{edges[len(edges)*rank/size : len(edges)*(rank+1)/size]}, nil
					},
					Shrink: shrinkSurvivor,
				}
				res, err := RunElastic(ctx, c, cfg, el)
				if err != nil {
					return err
				}
				if res.Comm != c {
					defer closeElastic(res.Comm)
				}
				tk, err := rankScores(ctx, res.Comm, res.Result, k, &mu, scores)
				if err != nil {
					return err
				}
				if res.Comm.Rank() == 0 && r == 0 {
					top, recs = tk, res.Recoveries
				}
				return nil
			}()
		})
	}
	wg.Wait()
	return scores, top, errs, recs
}

func elasticTestGraph() []graph.Edge {
	rng := mrand.New(mrand.NewPCG(6, 2))
	const n, m = 3000, 40000
	edges := make([]graph.Edge, m)
	for i := range edges {
		u := int64(rng.IntN(n))
		v := int64(float64(n) * math.Pow(rng.Float64(), 3)) // skewed in-degrees
		edges[i] = graph.Edge{U: u, V: v}
	}
	return edges
}

// TestPageRankElasticLosesOneRank: a rank lost inside the iterations, the
// survivors end at the fault-free scores, plain and personalized (the
// teleport and dangling distributions re-homed with the new network).
func TestPageRankElasticLosesOneRank(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Tol = 1e-16 // n·Tol: an L1 change of 3e-13 on the 3000 vertices
	t.Run("plain", func(t *testing.T) { elasticLosesOneRank(t, cfg) })
	cfg.Personalization = UniformVector([]int64{0, 1, 2, 3, 5, 8, 13, 21})
	cfg.Dangling = &Vector{IDs: []int64{7, 70, 700}, Weights: []float64{1, 2, 3}}
	t.Run("personalized", func(t *testing.T) { elasticLosesOneRank(t, cfg) })
}

func elasticLosesOneRank(t *testing.T, cfg Config) {
	edges := elasticTestGraph()
	const k = 20
	_, want, wantTop := runPageRank(t, 4, edges, cfg, k)
	// Rank 2 dies at its 40th collective: well inside the iterations.
	got, top, errs, recs := elasticJob(t, 4, edges, cfg, k, map[int]int{2: 40})
	for r, err := range errs {
		if r == 2 {
			if err == nil {
				t.Errorf("the lost rank finished")
			}
			continue
		}
		if err != nil {
			t.Fatalf("rank %d: %v", r, err)
		}
	}
	if len(recs) != 1 || recs[0].Ranks != 3 || recs[0].Iteration < 1 {
		t.Fatalf("recoveries %+v, want one to 3 ranks inside the iterations", recs)
	}
	t.Logf("recovered at iteration %d in %v", recs[0].Iteration, recs[0].Took)
	checkAgainstFaultFree(t, got, top, want, wantTop, 1e-12)
}

func TestPageRankElasticUnrecoverable(t *testing.T) {
	edges := elasticTestGraph()
	cfg := DefaultConfig()
	for _, tc := range []struct {
		name string
		die  map[int]int
		want string
	}{
		{"rank 0", map[int]int{0: 40}, "rank 0, the coordinator, was lost"},
		{"two ranks", map[int]int{2: 40, 3: 40}, "recovering from the loss of rank"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			_, _, errs, _ := elasticJob(t, 4, edges, cfg, 5, tc.die)
			for r, err := range errs {
				if tc.die[r] > 0 {
					continue
				}
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("rank %d: %v, want an error containing %q", r, err, tc.want)
				}
			}
			if d := time.Since(start); d > 20*time.Second {
				t.Errorf("the survivors took %v to fail", d)
			}
		})
	}
}

// shrinkSurvivor is the tests' Elastic.Shrink: a rank that died refuses,
// the survivors shrink their transport.
func shrinkSurvivor(ctx context.Context, c comm.Comm, cause error, epoch int) (comm.Comm, error) {
	if d, ok := c.(*dyingComm); ok && d.die > 0 && d.calls >= d.die {
		return nil, fmt.Errorf("rank %d is the lost one: %w", c.Rank(), cause)
	}
	return comm.Shrink(ctx, c, cause, epoch)
}

// closeElastic closes the Comm a Shrink or Grow returned.
func closeElastic(c comm.Comm) {
	if e, ok := comm.AsElastic(c); ok {
		_ = e.Close()
	}
}

// joinOpts shape joinJob's run.
type joinOpts struct {
	growAt       int    // rank 0 reports the waiting processes from its growAt-th iteration on
	joinerListen string // the joiner's listen address ("": the default)
	joinerDie    int    // the joiner dies at its joinerDie-th collective (0: never)
}

// joinOutcome is what joinJob saw.
type joinOutcome struct {
	scores    map[int64]float64 // by original id, from the final Comm's ranks
	top       []VertexScore     // rank 0's top k
	errs      []error           // the p ranks'
	joinerErr error
	joins     []Join     // rank 0's
	recs      []Recovery // rank 0's
	joiner    []Join     // the joiner's
}

// joinJob runs elastic PageRank with ramp-up on p loopback TCP ranks, and
// one process that joins: it is queued in rank 0's lobby before the
// iterations begin (every rank's first Load waits for that), and rank 0
// reports it from its opts.growAt-th iteration on, so that it joins after
// exactly that iteration.
func joinJob(t *testing.T, p int, edges []graph.Edge, cfg Config, k int, opts joinOpts) joinOutcome {
	t.Helper()
	addr, token := loopbackJob(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	j := &joinRun{
		ctx: ctx, addr: addr, token: token, p: p, edges: edges, cfg: cfg, k: k, opts: opts,
		out:    joinOutcome{scores: map[int64]float64{}, errs: make([]error, p)},
		lobby:  make(chan *tcp.Comm, 1),
		queued: make(chan struct{}),
	}
	queueOK := make(chan error, 1)
	go func() { queueOK <- j.watchLobby() }()
	var wg sync.WaitGroup
	for r := range p {
		wg.Go(func() { j.out.errs[r] = j.rank(r) })
	}
	wg.Go(func() { j.out.joinerErr = j.joiner() })
	wg.Wait()
	if err := <-queueOK; err != nil {
		t.Fatalf("the joiner never waited in the lobby: %v", err)
	}
	return j.out
}

// joinTag is the tag of joinJob's job.
const joinTag = "pagerank join test"

// joinRun is one joinJob: the job's ranks and its joiner share it.
type joinRun struct {
	ctx   context.Context
	addr  string
	token []byte
	p     int
	edges []graph.Edge
	cfg   Config
	k     int
	opts  joinOpts

	mu     sync.Mutex
	out    joinOutcome
	lobby  chan *tcp.Comm // rank 0's Comm, once its lobby is open
	queued chan struct{}  // the joiner waits in the lobby
}

// watchLobby waits until the joiner waits in rank 0's lobby, then closes
// j.queued.
func (j *joinRun) watchLobby() error {
	var c0 *tcp.Comm
	select {
	case c0 = <-j.lobby:
	case <-j.ctx.Done():
		return j.ctx.Err()
	}
	for c0.PendingJoins() == 0 {
		if j.ctx.Err() != nil {
			return j.ctx.Err()
		}
		time.Sleep(2 * time.Millisecond)
	}
	close(j.queued)
	return nil
}

// hooks is a process's Elastic: with waitQueued its first Load waits for
// the joiner to be queued, and rank 0 reports the waiting processes from
// its opts.growAt-th iteration on.
func (j *joinRun) hooks(waitQueued bool) Elastic {
	pending := 0
	edges := j.edges
	return Elastic{
		Load: func(ctx context.Context, r, size int) (graph.EdgeShare, error) {
			if waitQueued {
				waitQueued = false
				select {
				case <-j.queued:
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}
			return graph.EdgeChunks{edges[len(edges)*r/size : len(edges)*(r+1)/size]}, nil
		},
		Shrink: shrinkSurvivor,
		Grow:   comm.Grow,
		Pending: func(c comm.Comm) int {
			if pending++; pending < j.opts.growAt {
				return 0
			}
			return comm.PendingJoins(c)
		},
	}
}

// collect adds a finished process's scores, and on rank 0 the top k and
// the events, to the outcome.
func (j *joinRun) collect(res *ElasticResult) error {
	tk, err := rankScores(j.ctx, res.Comm, res.Result, j.k, &j.mu, j.out.scores)
	if err != nil {
		return err
	}
	if res.Comm.Rank() == 0 {
		j.out.top, j.out.joins, j.out.recs = tk, res.Joins, res.Recoveries
	}
	return nil
}

// rank runs rank r of the job; rank 0 opens the lobby.
func (j *joinRun) rank(r int) error {
	tc, err := tcp.Connect(j.ctx, tcp.Config{Rank: r, Size: j.p, Coordinator: j.addr, Token: j.token, JobID: "join-test", PeerTimeout: 4 * time.Second})
	if err != nil {
		return err
	}
	defer tc.Close()
	if r == 0 {
		if err := tc.AcceptJoins(joinTag); err != nil {
			return err
		}
		j.lobby <- tc
	}
	dc := &dyingComm{Comm: tc}
	res, err := RunElastic(j.ctx, dc, j.cfg, j.hooks(true))
	if err != nil {
		return err
	}
	if res.Comm != comm.Comm(dc) {
		defer closeElastic(res.Comm)
	}
	return j.collect(res)
}

// joiner runs the process that joins the job.
func (j *joinRun) joiner() error {
	tc, err := tcp.Join(j.ctx, tcp.Config{Coordinator: j.addr, Token: j.token, JobID: "join-test", Listen: j.opts.joinerListen}, joinTag)
	if err != nil {
		return err
	}
	defer tc.Close()
	dc := &dyingComm{Comm: tc, die: j.opts.joinerDie}
	res, err := RunElasticJoin(j.ctx, dc, j.cfg, j.hooks(false))
	if err != nil {
		return err
	}
	if res.Comm != comm.Comm(dc) {
		defer closeElastic(res.Comm)
	}
	j.mu.Lock()
	j.out.joiner = res.Joins
	j.mu.Unlock()
	return j.collect(res)
}

// checkAgainstFaultFree compares an elastic run with the fault-free run:
// L1 distance within 100·tol and the same top k.
func checkAgainstFaultFree(t *testing.T, got map[int64]float64, top []VertexScore, want map[int64]float64, wantTop []VertexScore, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d scores, want %d", len(got), len(want))
	}
	var l1 float64
	for v, w := range want {
		l1 += math.Abs(got[v] - w)
	}
	if l1 > 100*tol {
		t.Errorf("L1 distance to the fault-free vector %g, want ≤ %g", l1, 100*tol)
	}
	if len(top) != len(wantTop) {
		t.Fatalf("top %d, want %d", len(top), len(wantTop))
	}
	for i := range wantTop {
		if top[i].ID != wantTop[i].ID || math.Abs(top[i].Score-wantTop[i].Score) > 1e-9*wantTop[i].Score {
			t.Errorf("top %d: %+v, want %+v", i+1, top[i], wantTop[i])
		}
	}
}

// TestPageRankElasticJoin: a process joins a 3-rank run after its 10th
// iteration; the run goes on with 4 ranks to the fault-free result.
func TestPageRankElasticJoin(t *testing.T) {
	runJoinTest(t, joinOpts{growAt: 10}, func(o joinOutcome) {
		if o.joinerErr != nil {
			t.Fatalf("joiner: %v", o.joinerErr)
		}
		if len(o.joins) != 1 || o.joins[0].Err != nil || o.joins[0].Ranks != 4 || o.joins[0].Joiners != 1 || o.joins[0].Iteration != 10 || o.joins[0].Epoch != 1 {
			t.Fatalf("rank 0's joins %+v, want one of 1 process to 4 ranks after iteration 10 at epoch 1", o.joins)
		}
		if len(o.joiner) != 1 || o.joiner[0].Iteration != 10 || o.joiner[0].Ranks != 4 || o.joiner[0].Epoch != 1 || o.joiner[0].Joiners != 1 {
			t.Errorf("the joiner's joins %+v, want its arrival after iteration 10", o.joiner)
		}
		t.Logf("joined after iteration %d; the growth took %v on rank 0, %v on the joiner", o.joins[0].Iteration, o.joins[0].Took, o.joiner[0].Took)
	})
}

// TestPageRankElasticJoinerLost: the process that joined is lost later on;
// the others recover from its loss (epoch 2) and still reach the
// fault-free result.
func TestPageRankElasticJoinerLost(t *testing.T) {
	// Its 60th collective is well inside the iterations after the growth.
	runJoinTest(t, joinOpts{growAt: 5, joinerDie: 60}, func(o joinOutcome) {
		if o.joinerErr == nil {
			t.Errorf("the lost joiner finished")
		}
		if len(o.joins) != 1 || o.joins[0].Ranks != 4 || len(o.recs) != 1 || o.recs[0].Epoch != 2 || o.recs[0].Ranks != 3 {
			t.Fatalf("joins %+v, recoveries %+v; want a growth to 4 ranks, then a recovery to 3 at epoch 2", o.joins, o.recs)
		}
	})
}

// TestPageRankElasticJoinFails: the process admitted cannot connect (its
// listen address is not this machine's); the growth fails on every rank
// in bounded time and the run goes on with its 3 ranks.
func TestPageRankElasticJoinFails(t *testing.T) {
	// 192.0.2.1 is in TEST-NET-1: never local.
	runJoinTest(t, joinOpts{growAt: 5, joinerListen: "192.0.2.1:0"}, func(o joinOutcome) {
		if o.joinerErr == nil {
			t.Errorf("the joiner that cannot listen joined")
		}
		if len(o.joins) != 1 || o.joins[0].Err == nil || o.joins[0].Ranks != 3 || !strings.Contains(o.joins[0].Err.Error(), "rank 3") {
			t.Fatalf("joins %+v, want one failed growth naming rank 3", o.joins)
		}
		if d := o.joins[0].Took; d > 10*time.Second {
			t.Errorf("the failed growth took %v", d)
		}
		t.Logf("failed growth after %v: %v", o.joins[0].Took, o.joins[0].Err)
	})
}

// runJoinTest runs joinJob on 3 ranks of the elastic test graph, fails the
// test if one of the 3 failed, lets check judge the outcome, and compares
// the result with the fault-free run's.
func runJoinTest(t *testing.T, opts joinOpts, check func(o joinOutcome)) {
	t.Helper()
	edges := elasticTestGraph()
	cfg := DefaultConfig()
	cfg.Tol = 1e-16 // n·Tol: an L1 change of 3e-13 on the 3000 vertices
	const k = 20
	_, want, wantTop := runPageRank(t, 3, edges, cfg, k)
	o := joinJob(t, 3, edges, cfg, k, opts)
	for r, err := range o.errs {
		if err != nil {
			t.Fatalf("rank %d: %v", r, err)
		}
	}
	check(o)
	checkAgainstFaultFree(t, o.scores, o.top, want, wantTop, 1e-12)
}
