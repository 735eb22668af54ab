package sssp

// The engine: configuration, state and the bucket loop of Δ-stepping
// (Meyer and Sanders §2, Fig. 1; §3 for the distributed phases).

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/internal/fielderr"
	"github.com/graphrun/graphrun/internal/parallel"
	"github.com/graphrun/graphrun/partition"
)

// Phase names under which SSSP traffic is counted.
const (
	PhaseRelax  = "sssp.relax"  // Alltoallv of relaxation requests
	PhaseReduce = "sssp.reduce" // allreduce of the next bucket
)

// Config configures an SSSP engine.
type Config struct {
	// Delta is the bucket width Δ; 0 chooses DefaultDelta from the graph.
	Delta   float64
	Threads int // goroutines for the relaxations (≥ 1)
	// Compact sorts and combines each phase's requests per destination
	// and sends them varint-coded (compact.go): fewer bytes for the cost
	// of a sort, for ranks on a network. The results are the same.
	Compact bool
}

func (cfg Config) check() error {
	if cfg.Threads < 1 {
		return fielderr.New("Threads", "%d < 1", cfg.Threads)
	}
	if !(cfg.Delta >= 0) || math.IsInf(cfg.Delta, 1) {
		return fielderr.New("Delta", "%v is not a finite number ≥ 0", cfg.Delta)
	}
	if cfg.Delta != 0 && cfg.Delta < minDelta {
		return fielderr.New("Delta", "%v is below %v", cfg.Delta, minDelta)
	}
	return nil
}

// deltaDegrees is DefaultDelta's factor: Δ = deltaDegrees · (heaviest
// weight) / (average degree). On Kronecker graphs with uniform weights, 2
// against 1 relaxes 7% more entries (rows emptied again within a bucket)
// but makes 20% fewer requests and 40% fewer phases (scale 18: 110 against
// 191, each an exchange and an allreduce), for 5% fewer instructions on 1
// rank; 4 makes as many instructions as 1 and 8 more (callgrind, scale 16).
const deltaDegrees = 2

// minDelta bounds Δ from below, so that bucket numbers stay far from
// overflow for any distance a float32 holds.
const minDelta = 1e-9

// Stats describes one search on this rank.
type Stats struct {
	Buckets     int           // buckets emptied (the same on every rank)
	Phases      int           // light and heavy phases (the same on every rank)
	Requests    int64         // relaxation requests this rank sent (itself included)
	Scanned     int64         // adjacency entries this rank relaxed, rows scanned again included
	BytesSent   int64         // bytes this rank sent to other ranks
	Messages    int64         // messages this rank sent to other ranks
	Relax       time.Duration // expanding rows into requests
	Communicate time.Duration // the requests' exchanges
	Apply       time.Duration // applying received requests
	Reduce      time.Duration // the next-bucket allreduces
}

// Result is one search's output on this rank. Its slices belong to the
// engine and are overwritten by the next Run.
type Result struct {
	Root   int64
	Dist   []float32 // per owned vertex: distance from Root, +Inf unreached
	Parent []int64   // per owned vertex: parent's global id, Root for the root, -1 unreached
	Stats  Stats
}

// SSSP is one rank's reusable Δ-stepping engine over its CSR rows and
// their weights.
//
// Within a rank nothing is serialised: the Config.Threads threads expand a
// phase's vertices into requests held in memory, one list per expanding
// thread, and after the exchange every owner thread (thread o owns the
// vertices whose local id shifted right by ownerShift is o, and their
// buckets) reads the lists and applies the requests to its vertices
// without atomics. Only the
// requests to other ranks are written as bytes.
type SSSP struct {
	c     comm.Comm
	cfg   Config
	g     *graph.CSR
	r32   *rows[uint32] // the weight-ordered rows, when g has Cols32
	r64   *rows[int64]  // and when it has Cols64
	part  partition.Block1D
	rank  int
	delta float32
	inv   float64 // 1/Δ

	dist      []float32
	parent    []int64
	lightDone []float32 // distance at which the light edges were last relaxed
	updated   []uint32  // phase of the last update (ties within a phase)
	inSettled []uint32  // bucket epoch in which the vertex joined settled
	phase     uint32    // phases applied in this search, from 1
	epoch     uint32    // settled sets started in this search, from 1
	prepared  bool      // Prepare ran since the last search
	// step relaxes one phase's light or heavy edges and applies the
	// requests: phaseStep, or the 2D engine's (sssp2d.go).
	step func(ctx context.Context, list []uint32, light bool) error

	ownerShift uint      // local id >> ownerShift is the owning thread
	bins       []buckets // per owner thread
	frontier   []uint32  // the vertices of the phase
	settled    []uint32  // the current bucket's vertices, for the heavy phase
	lows       []int64   // per owner thread, its lowest bucket
	next       []int64   // the allreduce's buffer

	local      [][]request    // per expanding thread, its requests to this rank
	threadBufs [][][]byte     // per expanding thread, per destination rank
	sent       []sentTable    // per expanding thread, its filter of remote requests (sent.go)
	scanned    []int64        // per expanding thread, its entries scanned in the phase
	team       *parallel.Team // the threads of the current Run
	merged     [][]byte       // per destination, the threads' requests together
	compact    [][]byte       // per destination, the compact requests (Config.Compact)
	keys       []uint64       // scratch of compactRequests
	send, recv [][]byte
	errs       []error // per owner thread, its apply's error
	stats      Stats
}

// request is a relaxation request to a vertex of this rank: target and
// parent are local ids.
type request struct {
	target uint32
	dist   float32
	parent uint32
}

// New prepares an SSSP engine for this rank's CSR g and its weights w
// (graph.BuildWeights). Every rank of c calls it with the same part and
// cfg: when cfg.Delta is 0 it agrees on DefaultDelta by two allreduces.
//
// New reorders each row of g, and w with it, by ascending weight, in
// place: the graph is held once, but g's rows are no longer in kernel 1's
// descending order, so that g serves SSSP and its Validator only (not a
// BFS, nor EntryIndex).
func New(ctx context.Context, c comm.Comm, g *graph.CSR, w []float32, part partition.Block1D, cfg Config) (*SSSP, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	r := c.Rank()
	if part.P != c.Size() || g.NumLocal != part.Count(r) || g.FirstGlobal != part.First(r) || g.NumGlobal != part.N {
		return nil, fmt.Errorf("sssp: CSR of rank %d (first %d, %d vertices of %d) does not match the partition", r, g.FirstGlobal, g.NumLocal, g.NumGlobal)
	}
	if int64(len(w)) != g.NumEdges() {
		return nil, fmt.Errorf("sssp: %d weights for %d adjacency entries", len(w), g.NumEdges())
	}
	delta := cfg.Delta
	if delta == 0 {
		var err error
		if delta, err = DefaultDelta(ctx, c, g, w); err != nil {
			return nil, err
		}
	}
	threads := cfg.Threads
	s := newState(c, cfg, part, g.NumLocal, delta)
	s.g, s.step = g, s.phaseStep
	s.local, s.threadBufs = make([][]request, threads), make([][][]byte, threads)
	s.merged, s.compact, s.send = make([][]byte, part.P), make([][]byte, part.P), make([][]byte, part.P)
	for t := range threads {
		s.threadBufs[t] = make([][]byte, part.P)
		if part.P > 1 {
			s.sent[t] = newSentTable(part.N, int64(g.NumLocal))
		}
	}
	if g.Cols32 != nil {
		s.r32 = newRows(g, g.Cols32, w, s.delta, threads)
	} else {
		s.r64 = newRows(g, g.Cols64, w, s.delta, threads)
	}
	s.Prepare()
	return s, nil
}

// newState is the owners' side of an engine over n owned vertices of part
// (distances, parents, stamps and the owner threads' buckets), which the
// 1D and 2D engines share; the caller sets the graph and the phase step.
func newState(c comm.Comm, cfg Config, part partition.Block1D, n int, delta float64) *SSSP {
	threads := cfg.Threads
	s := &SSSP{c: c, cfg: cfg, part: part, rank: c.Rank(),
		delta: float32(delta), inv: 1 / float64(float32(delta)),
		dist: make([]float32, n), parent: make([]int64, n), lightDone: make([]float32, n),
		updated: make([]uint32, n), inSettled: make([]uint32, n),
		bins: make([]buckets, threads), lows: make([]int64, threads), next: make([]int64, 1), errs: make([]error, threads),
		sent:    make([]sentTable, threads), // empty: the 1D engine fills them on more than one rank
		scanned: make([]int64, threads),
	}
	// The fewest bits that leave at most threads owners.
	for (n-1)>>s.ownerShift >= threads {
		s.ownerShift++
	}
	for t := range threads {
		s.bins[t].init()
	}
	return s
}

// DefaultDelta is the bucket width chosen from the graph: twice the
// heaviest weight over the average degree of the vertices with at least
// one edge (1 for a graph without edges, and never below the smallest Δ
// New takes).
// Every rank of c calls it; all get the same value.
func DefaultDelta(ctx context.Context, c comm.Comm, g *graph.CSR, w []float32) (float64, error) {
	var heaviest float64
	for _, x := range w {
		heaviest = max(heaviest, float64(x))
	}
	var withEdges int64
	for l := range g.NumLocal {
		if g.Offsets[l+1] > g.Offsets[l] {
			withEdges++
		}
	}
	return agreeDelta(ctx, c, heaviest, g.NumEdges(), withEdges)
}

// agreeDelta is DefaultDelta from every rank's heaviest weight, adjacency
// entries and owned vertices with an edge.
func agreeDelta(ctx context.Context, c comm.Comm, heaviest float64, entries, withEdges int64) (float64, error) {
	counts := []int64{entries, withEdges}
	if err := c.AllreduceInt64(ctx, PhaseReduce, counts, comm.Sum); err != nil {
		return 0, fmt.Errorf("sssp: %w", err)
	}
	hw := []float64{heaviest}
	if err := c.AllreduceFloat64(ctx, PhaseReduce, hw, comm.Max); err != nil {
		return 0, fmt.Errorf("sssp: %w", err)
	}
	if counts[0] == 0 || hw[0] == 0 {
		return 1, nil
	}
	return max(minDelta, deltaDegrees*hw[0]*float64(counts[1])/float64(counts[0])), nil
}

// Bytes is the memory the engine holds beyond the CSR and the weights it
// was made from: 36 bytes per owned vertex (distance, parent, relaxed
// distance, stamps and the light edges' count) and, on more than one
// rank, each thread's filter of remote requests (at most 16 bytes per
// owned vertex and 8 MiB).
func (s *SSSP) Bytes() int64 {
	b := 36 * int64(s.g.NumLocal)
	for t := range s.sent {
		b += s.sent[t].bytes()
	}
	return b
}

// Delta returns the bucket width the engine uses.
func (s *SSSP) Delta() float64 { return float64(s.delta) }

// Prepare clears the previous search now, so that the next Run does not.
// The Graph500 driver calls it before starting the clock, as it does for
// BFS.
func (s *SSSP) Prepare() {
	s.prepared = true
	inf := float32(math.Inf(1))
	for i := range s.dist {
		s.dist[i], s.lightDone[i], s.parent[i] = inf, inf, -1
		s.updated[i], s.inSettled[i] = 0, 0
	}
	s.phase, s.epoch = 0, 1
	for o := range s.bins {
		s.bins[o].reset()
	}
	parallel.For(len(s.sent), func(t int) { s.sent[t].reset() })
	s.settled = s.settled[:0]
	s.stats = Stats{}
}

// owner is the thread that owns local vertex l.
func (s *SSSP) owner(l uint32) int { return int(l >> s.ownerShift) }

// noBucket is the next bucket when no rank has one: the search is over.
const noBucket = math.MaxInt64

// Run searches from root (a global id) and returns this rank's share of
// the result. Every rank must call Run with the same root, after Prepare
// (the driver calls it outside the timed region).
func (s *SSSP) Run(ctx context.Context, root int64) (*Result, error) {
	if root < 0 || root >= s.part.N {
		return nil, fmt.Errorf("sssp: root %d out of range [0, %d)", root, s.part.N)
	}
	if !s.prepared {
		s.Prepare()
	}
	s.prepared = false
	// The threads' calls come a few per phase, hundreds per search: a team
	// whose workers wait spinning between them, not new goroutines that
	// each wait for an idle core to wake.
	s.team = parallel.NewTeam(s.cfg.Threads)
	defer s.team.Close()
	before := s.c.Stats().Total()
	if s.part.Owner(root) == s.rank {
		l := s.part.Local(root)
		s.dist[l], s.parent[l] = 0, root
		s.bins[s.owner(l)].insert(l, 0)
	}
	heavyPending := false
	for {
		t0 := time.Now()
		next, err := s.lowest(ctx)
		if err != nil {
			return nil, err
		}
		s.stats.Reduce += time.Since(t0)
		cur := s.bins[0].cur
		if heavyPending && next != cur {
			// The bucket is empty everywhere: relax its heavy edges.
			if err := s.step(ctx, s.settled, false); err != nil {
				return nil, err
			}
			heavyPending = false
			s.settled = s.settled[:0]
			s.epoch++
			continue
		}
		if next == noBucket {
			break
		}
		if next != cur || s.stats.Buckets == 0 {
			s.team.Run(func(o int) { s.bins[o].advance(next, s.dist, s.lightDone, s.inv) })
			s.stats.Buckets++
		}
		s.takeFrontier()
		if err := s.step(ctx, s.frontier, true); err != nil {
			return nil, err
		}
		heavyPending = true
	}
	d := s.c.Stats().Total().Sub(before)
	s.stats.BytesSent, s.stats.Messages = d.BytesSent, d.Messages
	return &Result{Root: root, Dist: s.dist, Parent: s.parent, Stats: s.stats}, nil
}

// lowest is the lowest bucket with a live entry on any rank (noBucket if
// none): each owner thread finds its own, and one allreduce the ranks'.
func (s *SSSP) lowest(ctx context.Context) (int64, error) {
	s.team.Run(func(o int) { s.lows[o] = s.bins[o].lowest(s.dist, s.lightDone, s.inv) })
	s.next[0] = slices.Min(s.lows)
	if err := s.c.AllreduceInt64(ctx, PhaseReduce, s.next, comm.Min); err != nil {
		return 0, fmt.Errorf("sssp: %w", err)
	}
	return s.next[0], nil
}

// takeFrontier empties the current bucket of every owner into s.frontier:
// its live vertices (not yet relaxed at their distance), each marked
// relaxed and added to the bucket's settled set once.
func (s *SSSP) takeFrontier() {
	s.frontier = s.frontier[:0]
	for o := range s.bins {
		for _, v := range s.bins[o].take() {
			if d := s.dist[v]; d < s.lightDone[v] {
				s.lightDone[v] = d
				s.frontier = append(s.frontier, v)
				if s.inSettled[v] != s.epoch {
					s.inSettled[v] = s.epoch
					s.settled = append(s.settled, v)
				}
			}
		}
	}
}
