package bfs

// Distributed validation of one BFS result: the five checks of the Graph500
// specification (section "Validation" of the BFS kernel), run on every rank
// without gathering the graph or the result.
//
//	(1) the parent array is a tree rooted at the root (no cycles);
//	(2) each tree edge joins vertices whose levels differ by exactly one;
//	(3) every edge of the input joins vertices whose levels differ by at most
//	    one, or two unreached vertices;
//	(4) the tree spans the root's connected component: no edge joins a reached
//	    vertex to an unreached one;
//	(5) every (vertex, parent) pair is an edge of the input.
//
// plus range checks of every parent and level, the root's own entry,
// consistency of the parent and level arrays, and a recount of nedge.
//
// The claimed levels are the certificate, checked rather than trusted: every
// reached vertex v other than the root must have level(parent(v)) =
// level(v) − 1, and only the root may have level 0. Following parents from any
// reached vertex then lowers the level by exactly one per step, so after
// level(v) steps it arrives at the only vertex of level 0, the root: the
// parents form a tree rooted at the root (1) — a cycle would need the levels
// to fall forever — whose depths are the claimed levels, so tree edges join
// consecutive levels (2). A failure is reported as check 1 when the parent
// is unreached or not above the vertex (every cycle has such a vertex), as
// check 2 when the parent is more than one level above. With the levels
// known at both ends of every edge, checks 3 and 4 are one comparison per
// edge, and check 5 is one binary search per vertex in its own row.
//
// So one search costs one exchange (the levels of the boundary vertices,
// validate_ghosts.go), one pass over the rows with threads, and two small
// allreduces; no children lists, no walk of the tree, no record per edge. A
// result without levels (level == nil) gets its depths from the tree first
// (validate_tree.go), the old way, and is then checked the same way.
//
// Edges come from kernel 1's CSR rather than from a second copy of the
// tuple list (kernel 1 is tested to hold exactly the input's edge set). Each
// undirected edge is checked once: an edge between two owned vertices in the
// row of its smaller end; an edge {v, u} between ranks in the row of the
// smaller end if v + u is odd and of the larger end if it is even, so that
// both ranks of every pair check half of their shared edges.

import (
	"context"
	"fmt"
	"strings"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/frontier"
	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/internal/parallel"
	"github.com/graphrun/graphrun/partition"
	"github.com/graphrun/graphrun/sieve"
)

// Phase names under which validation traffic is counted.
const (
	PhaseValidateReduce = "validate.reduce" // the deepest level, the sums, the samples of a failure
	PhaseValidateSetup  = "validate.setup"  // once per validator: the largest exchange of any pair
)

// maxSamplesPerRank bounds how many violation messages each rank reports.
const maxSamplesPerRank = 5

// ValidationError reports a BFS result that failed validation. Every rank
// returns the same error.
type ValidationError struct {
	Root       int64
	Violations int64 // over all ranks
	// Counts has the violations over all ranks per rule broken: "check 1"
	// … "check 5" (the Graph500 checks), "out of range", "reached and
	// unreached", "root" and "nedge"; rules not broken are absent.
	Counts  map[string]int64
	Samples []string // the first few violations of each rank
}

// violationKind is the rule a violation breaks.
type violationKind uint8

const (
	kindCheck1 violationKind = iota
	kindCheck2
	kindCheck3
	kindCheck4
	kindCheck5
	kindRange
	kindConsistency
	kindRoot
	kindNEdge
	numKinds
)

// kindNames are the keys of ValidationError.Counts.
var kindNames = [numKinds]string{"check 1", "check 2", "check 3", "check 4", "check 5",
	"out of range", "reached and unreached", "root", "nedge"}

func (e *ValidationError) Error() string {
	var by []string
	for _, name := range kindNames {
		if n := e.Counts[name]; n > 0 {
			by = append(by, fmt.Sprintf("%s: %d", name, n))
		}
	}
	return fmt.Sprintf("validation of the search from %d failed with %d violation(s) (%s):\n  %s",
		e.Root, e.Violations, strings.Join(by, ", "), strings.Join(e.Samples, "\n  "))
}

// violations collects one rank's (or one thread's) findings.
type violations struct {
	count   int64
	kinds   [numKinds]int64
	samples []string
}

func (v *violations) reset() {
	v.count = 0
	v.kinds = [numKinds]int64{}
	v.samples = v.samples[:0]
}

func (v *violations) merge(o *violations) {
	v.count += o.count
	for k, n := range o.kinds {
		v.kinds[k] += n
	}
	for _, s := range o.samples {
		if len(v.samples) < maxSamplesPerRank {
			v.samples = append(v.samples, s)
		}
	}
}

func (v *violations) addf(kind violationKind, format string, args ...any) {
	v.count++
	v.kinds[kind]++
	if len(v.samples) < maxSamplesPerRank {
		v.samples = append(v.samples, fmt.Sprintf(format, args...))
	}
}

// passResult is one thread's share of a search's pass: its findings and the
// tuple degrees of the reached vertices it saw. Padded so that threads
// updating neighbouring entries do not share a cache line.
type passResult struct {
	bad       violations
	degreeSum int64
	_         [64]byte
}

// ValidatorConfig configures a Validator.
type ValidatorConfig struct {
	// Threads is the number of goroutines of every pass (≥ 1).
	Threads int
	// Share, if not nil, is this rank's 1D engine of the same CSR: the
	// validator then reads its cross directory (ExchangeSieve and
	// ExchangePacked) and its packed sieve's directory row (ExchangePacked)
	// instead of building its own.
	Share *BFS

	// For tests: layout forces the ghost store (0 chooses), chunk the values
	// per pair and round of the ghost exchange (0 chooses).
	layout ghostLayout
	chunk  int64
}

// ghostLayout is how the validator stores the ghost levels.
type ghostLayout uint8

const (
	layoutAuto ghostLayout = iota
	layoutSparse
	layoutDense
)

// Validator is one rank's reusable validator of BFS results over a 1D
// partition. It holds, for the whole run, the cross directory column (which
// own vertices each peer references: sieve.Directory, n bits, shared with
// the BFS engine when it has one), the directory row (which vertices of
// other ranks this rank's rows reference, n bits, shared with the packed
// sieve when the engine has one), the ghost levels of those vertices (1 byte
// each in any search shallower than 255 levels), the owned vertices' levels
// in the same width, and bounded exchange buffers: nothing in proportion to
// the edges, and nothing allocated per search. Release drops it all.
//
// The ghosts are stored one of two ways. Sparse: one value per vertex of the
// row, found through the row's rank index (sieve.RowIndex, 3n/64 bytes
// more). Dense: one value per vertex of the other ranks, found by id alone,
// the received values scattered along the row; a lookup costs one load
// instead of four. Dense is chosen when it takes at most twice the memory of
// sparse, so the ghosts stay within twice the boundary either way: on 2
// ranks of a Kronecker graph (the row covers about half of the other rank's
// vertices, the rest being mostly isolated) dense is 1.6× sparse, on 4 ranks
// and more sparse wins.
type Validator struct {
	c       comm.Comm
	g       *graph.CSR
	part    partition.Block1D
	rank    int
	threads int
	spans   []int // row ranges of the threads, of equal work (workSpans)

	dir     *sieve.Directory
	ownDir  bool            // dir was built for the validator
	row     frontier.Bitmap // the directory row
	ownRow  bool            // row was built for the validator
	rows    *sieve.RowIndex // sparse ghosts: the row's rank index; nil when dense
	dense   bool            // ghosts are stored densely
	plan    ghostPlan
	ghosts  ghostStore // the levels + 1 of the vertices rows indexes
	own     ghostStore // the levels + 1 of the owned vertices, compact for the lookups
	results []passResult
	bad     violations
	derived []int32 // depths of a result without levels, allocated on first use
	vals    []int64
}

// NewValidator prepares the validation of BFS results over this rank's rows
// g. Every rank must call it: on more than one rank it builds, once, the
// directory column and row it does not take from cfg.Share, and agrees with
// the other ranks on the size of the exchange (one small allreduce).
func NewValidator(ctx context.Context, c comm.Comm, g *graph.CSR, part partition.Block1D, cfg ValidatorConfig) (*Validator, error) {
	rank, size := c.Rank(), c.Size()
	if cfg.Threads < 1 {
		return nil, fmt.Errorf("validate: threads %d < 1", cfg.Threads)
	}
	if part.P != size || g.NumLocal != part.Count(rank) || g.FirstGlobal != part.First(rank) || g.NumGlobal != part.N ||
		len(g.Offsets) != g.NumLocal+1 || len(g.TupleDegree) != g.NumLocal {
		return nil, fmt.Errorf("validate: CSR of rank %d (first %d, %d vertices of %d) does not match the partition", rank, g.FirstGlobal, g.NumLocal, g.NumGlobal)
	}
	v := &Validator{c: c, g: g, part: part, rank: rank, threads: cfg.Threads,
		spans:   workSpans(g, cfg.Threads),
		own:     ghostStore{n: int64(g.NumLocal)},
		results: make([]passResult, cfg.Threads),
		vals:    make([]int64, 1+numKinds),
	}
	if size == 1 {
		return v, nil
	}
	var err error
	if cfg.Share != nil {
		if cfg.Share.g != g {
			return nil, fmt.Errorf("validate: the shared BFS engine searches another graph")
		}
		v.dir = cfg.Share.pub.dir
		if cfg.Share.pub.packer != nil {
			v.row = cfg.Share.pub.packer.Row()
		}
	}
	if v.dir == nil {
		if v.dir, err = sieve.Build(g, part, rank, cfg.Threads); err != nil {
			return nil, fmt.Errorf("validate: %w", err)
		}
		v.ownDir = true
	}
	if v.row == nil {
		if v.row, err = sieve.BuildRow(g, part, rank, cfg.Threads); err != nil {
			return nil, fmt.Errorf("validate: %w", err)
		}
		v.ownRow = true
	}
	gp := &v.plan
	*gp = ghostPlan{c: c, me: rank,
		out: make([]frontier.Bitmap, size), outOnes: make([]int64, size),
		inFirst: make([]int64, size), inCount: make([]int64, size),
		send: make([][]byte, size), recv: make([][]byte, size),
		cursors: make([]ghostCursor, size), errs: make([]error, cfg.Threads),
	}
	var ghosts int64
	for k := range size {
		if k == rank {
			continue
		}
		if v.dir.Kind(k) != sieve.Empty {
			gp.out[k], gp.outOnes[k] = v.dir.Column(k), v.dir.Ones(k)
		}
		gp.inCount[k] = v.ownerRange(k).Count()
		ghosts += gp.inCount[k]
		gp.maxPair = max(gp.maxPair, gp.outOnes[k])
	}
	others := part.N - int64(g.NumLocal)
	switch cfg.layout {
	case layoutAuto:
		v.dense = others <= 2*(ghosts+3*part.N/64)
	case layoutDense:
		v.dense = true
	}
	gp.chunk = cfg.chunk
	if v.dense {
		gp.inPos, gp.inLen, gp.inCursors = make([]frontier.Bitmap, size), make([]int64, size), make([]ghostCursor, size)
		for k := range size {
			if k != rank {
				gp.inFirst[k], gp.inLen[k], gp.inPos[k] = v.denseIndex(part.First(k)), int64(part.Count(k)), v.ownerRange(k)
			}
		}
		v.ghosts.n = others
	} else {
		if v.rows, err = sieve.NewRowIndex(v.row, part, rank); err != nil {
			return nil, fmt.Errorf("validate: %w", err)
		}
		for k := range size {
			gp.inFirst[k] = v.rows.First(k)
		}
		v.ghosts.n = v.rows.Len()
	}
	pair := []int64{gp.maxPair}
	if err := c.AllreduceInt64(ctx, PhaseValidateSetup, pair, comm.Max); err != nil {
		return nil, fmt.Errorf("validate: %w", err)
	}
	gp.maxPair = pair[0]
	return v, nil
}

// ownerRange is the directory row over owner's vertices.
func (v *Validator) ownerRange(owner int) frontier.Bitmap {
	w0 := int(v.part.First(owner) >> 6)
	return v.row[w0 : w0+v.part.Words(owner)]
}

// denseIndex is where a dense store keeps the value of u, a vertex of
// another rank: the ids without this rank's own.
func (v *Validator) denseIndex(u int64) int64 {
	if u >= v.g.FirstGlobal {
		return u - int64(v.g.NumLocal)
	}
	return u
}

// workChunk is the number of rows whose work workSpans adds up together.
const workChunk = 4096

// workSpans cuts the rows into `parts` ranges of about equal work for the
// row pass (fewer when there are few rows) and returns their boundaries. The
// pass does not cost the same per stored entry everywhere: an edge between
// two owned vertices is looked up in the row of its smaller end only, so
// rows of low ids do most of those, while neighbours on other ranks are all
// read and half of them looked up. Equal entries per thread would leave the
// thread of the high ids idle for half the pass.
func workSpans(g *graph.CSR, parts int) []int {
	n := g.NumLocal
	parts = max(1, min(parts, n/64))
	chunks := (n + workChunk - 1) / workChunk
	work := make([]int64, chunks)
	parallel.For(parts, func(t int) {
		lo, hi := parallel.Span(chunks, t, parts)
		for k := lo; k < hi; k++ {
			switch {
			case g.Packed != nil:
				work[k] = packedRowWork(g, k*workChunk, min(n, (k+1)*workChunk))
			case g.Cols64 != nil:
				work[k] = rowWork(g, g.Cols64, k*workChunk, min(n, (k+1)*workChunk))
			default:
				work[k] = rowWork(g, g.Cols32, k*workChunk, min(n, (k+1)*workChunk))
			}
		}
	})
	var total int64
	for _, w := range work {
		total += w
	}
	spans := make([]int, 1, parts+1)
	var acc int64
	for k, w := range work {
		acc += w
		if len(spans) < parts && acc*int64(parts) >= total*int64(len(spans)) {
			spans = append(spans, min(n, (k+1)*workChunk))
		}
	}
	for len(spans) <= parts {
		spans = append(spans, n)
	}
	return spans
}

// rowWork estimates the row pass's work on rows [lo, hi): a unit per row,
// two per lookup of an owned neighbour above the row's vertex, three per
// neighbour on another rank (read, and looked up half the time through the
// row index).
func rowWork[C uint32 | int64](g *graph.CSR, cols []C, lo, hi int) int64 {
	first, last := g.FirstGlobal, g.FirstGlobal+int64(g.NumLocal)
	var w int64
	for l := lo; l < hi; l++ {
		w += rowWorkOf(cols[g.Offsets[l]:g.Offsets[l+1]], first+int64(l), first, last)
	}
	return w
}

// packedRowWork is rowWork over packed rows: it decodes them one at a time.
func packedRowWork(g *graph.CSR, lo, hi int) int64 {
	first, last := g.FirstGlobal, g.FirstGlobal+int64(g.NumLocal)
	var w int64
	var row []int64
	for l := lo; l < hi; l++ {
		row = g.Row(uint32(l), row)
		w += rowWorkOf(row, first+int64(l), first, last)
	}
	return w
}

// rowWorkOf is rowWork's estimate for the row of vertex gv, the owned
// vertices being [first, last).
func rowWorkOf[C uint32 | int64](row []C, gv, first, last int64) int64 {
	high := sieve.SkipAbove(row, 0, last)
	above := sieve.SkipAbove(row, high, gv+1)
	low := len(row) - sieve.SkipAbove(row, above, first)
	return 1 + 2*int64(above-high) + 3*int64(high+low)
}

// Bytes is the memory the validator holds: what it built of the directory,
// the row index, the ghost levels and the exchange buffers (not the CSR, nor
// what it shares with a BFS engine).
func (v *Validator) Bytes() int64 {
	var b int64
	if v.ownDir {
		b += v.dir.Bytes()
	}
	if v.rows != nil {
		b += v.rows.Bytes()
	}
	if v.ownRow {
		b += int64(len(v.row)) * 8
	}
	b += v.ghosts.bytes() + v.own.bytes() + 4*int64(cap(v.derived))
	for k := range v.plan.send {
		b += int64(cap(v.plan.send[k]) + cap(v.plan.recv[k]))
	}
	return b
}

// Release drops everything the validator holds; it must not be used after.
func (v *Validator) Release() { *v = Validator{} }

// Validate checks this rank's share of a BFS result from root (parent and,
// when not nil, level, indexed by owned vertex) and returns the number of
// input tuples in the searched component as Graph500 counts them
// (self-loops excluded, duplicates included). If claimedNEdge ≥ 0 it must
// equal that recount. All ranks must call Validate together; a failed check
// returns a *ValidationError on every rank, a transport failure or a
// malformed message another error.
func (v *Validator) Validate(ctx context.Context, root int64, parent []int64, level []int32, claimedNEdge int64) (int64, error) {
	n := v.g.NumLocal
	if v.c == nil {
		return 0, fmt.Errorf("validate: validator used after Release")
	}
	if len(parent) != n || (level != nil && len(level) != n) {
		return 0, fmt.Errorf("validate: rank %d has %d parents and %d levels for %d owned vertices", v.rank, len(parent), len(level), n)
	}
	if root < 0 || root >= v.part.N {
		return 0, fmt.Errorf("validate: root %d out of range [0, %d)", root, v.part.N)
	}
	derived := level == nil
	if derived {
		if cap(v.derived) < n {
			v.derived = make([]int32, n)
		}
		level = v.derived[:n]
		if err := treeDepths(ctx, v.c, v.part, root, parent, level); err != nil {
			return 0, err
		}
	}
	maxLevel, err := deepestLevel(ctx, v.c, level, v.threads)
	if err != nil {
		return 0, err
	}
	rc := &rowCheck{root: root, first: v.g.FirstGlobal, last: v.g.FirstGlobal + int64(n), n: v.part.N,
		parent: parent, level: level, tupleDegree: v.g.TupleDegree, offsets: v.g.Offsets,
		remote: v.part.P > 1, rows: v.rows, derived: derived}
	switch valueWidth(maxLevel) {
	case 1:
		err = validateRows[uint8](ctx, v, rc, maxLevel)
	case 2:
		err = validateRows[uint16](ctx, v, rc, maxLevel)
	default:
		err = validateRows[uint32](ctx, v, rc, maxLevel)
	}
	if err != nil {
		return 0, err
	}
	degreeSum := mergeResults(&v.bad, v.results)
	if v.part.Owner(root) == v.rank {
		checkRoot(&v.bad, root, parent[v.part.Local(root)], level[v.part.Local(root)])
	}
	return finishValidation(ctx, v.c, root, &v.bad, degreeSum, claimedNEdge, v.vals)
}

// mergeResults gathers the threads' findings into bad (reset first) and
// returns the sum of their tuple degrees.
func mergeResults(bad *violations, results []passResult) (degreeSum int64) {
	bad.reset()
	for t := range results {
		bad.merge(&results[t].bad)
		degreeSum += results[t].degreeSum
	}
	return degreeSum
}

// validateRows exchanges the ghost levels in the width of G and runs the row
// pass on the validator's threads.
func validateRows[G ghostValue](ctx context.Context, v *Validator, rc *rowCheck, maxLevel int32) error {
	var ghosts []G
	if rc.remote {
		ghosts = ghostsOf[G](&v.ghosts)
		if err := exchangeGhosts(ctx, &v.plan, PhaseValidateGhosts, rc.level, maxLevel, ghosts, v.threads); err != nil {
			return err
		}
	}
	own := ghostsOf[G](&v.own)
	parts := len(v.spans) - 1
	parallel.For(parts, func(t int) {
		lo, hi := v.spans[t], v.spans[t+1]
		for l, x := range rc.level[lo:hi] {
			own[lo+l] = G(levelValue(x, maxLevel))
		}
	})
	parallel.For(parts, func(t int) {
		res := &v.results[t]
		res.bad.reset()
		switch {
		case v.g.Packed != nil && v.g.NumGlobal <= 1<<32:
			res.degreeSum = checkPackedRows[uint32](rc, v.g, own, ghosts, v.spans[t], v.spans[t+1], &res.bad)
		case v.g.Packed != nil:
			res.degreeSum = checkPackedRows[int64](rc, v.g, own, ghosts, v.spans[t], v.spans[t+1], &res.bad)
		case v.g.Cols64 != nil:
			res.degreeSum = checkRows(rc, v.g.Cols64, own, ghosts, v.spans[t], v.spans[t+1], &res.bad)
		default:
			res.degreeSum = checkRows(rc, v.g.Cols32, own, ghosts, v.spans[t], v.spans[t+1], &res.bad)
		}
	})
	for t := parts; t < len(v.results); t++ {
		v.results[t].bad.reset()
		v.results[t].degreeSum = 0
	}
	return nil
}

// deepestLevel returns the largest claimed level over all ranks.
func deepestLevel(ctx context.Context, c comm.Comm, level []int32, threads int) (int32, error) {
	parts := max(1, min(threads, len(level)/(1<<16)))
	tops := make([]int32, parts)
	parallel.For(parts, func(t int) {
		lo, hi := parallel.Span(len(level), t, parts)
		top := int32(-1)
		for _, l := range level[lo:hi] {
			top = max(top, l)
		}
		tops[t] = top
	})
	top := []int64{int64(-1)}
	for _, x := range tops {
		top[0] = max(top[0], int64(x))
	}
	if err := c.AllreduceInt64(ctx, PhaseValidateReduce, top, comm.Max); err != nil {
		return 0, fmt.Errorf("validate: %w", err)
	}
	return int32(top[0]), nil
}

// checkRoot checks the root's own entry.
func checkRoot(bad *violations, root, parent int64, level int32) {
	if parent != root {
		bad.addf(kindRoot, "root %d has parent %d, want itself", root, parent)
	}
	if level != 0 {
		bad.addf(kindRoot, "root %d has level %d, want 0", root, level)
	}
}

// finishValidation adds up the tuple degrees of the reached vertices and the
// violations over all ranks, checks nedge against claimed (when ≥ 0), and
// returns nedge, or a *ValidationError with every rank's samples. vals has
// room for 1 + numKinds values.
func finishValidation(ctx context.Context, c comm.Comm, root int64, bad *violations, degreeSum, claimed int64, vals []int64) (int64, error) {
	sums := append(append(vals[:0], degreeSum), bad.kinds[:]...)
	if err := c.AllreduceInt64(ctx, PhaseValidateReduce, sums, comm.Sum); err != nil {
		return 0, fmt.Errorf("validate: %w", err)
	}
	nedge, kinds := sums[0]/2, sums[1:]
	rank := c.Rank()
	if sums[0]%2 != 0 {
		// Only possible when an edge joins the component to the outside,
		// which check 4 already reports; counted once, described by rank 0.
		if rank == 0 {
			bad.addf(kindNEdge, "nedge: the component's tuple endpoints add up to the odd number %d", sums[0])
		}
		kinds[kindNEdge]++
	}
	if claimed >= 0 && claimed != nedge {
		if rank == 0 {
			bad.addf(kindNEdge, "nedge: the search claims %d tuples in the component, the recount finds %d", claimed, nedge)
		}
		kinds[kindNEdge]++
	}
	var total int64
	for _, n := range kinds {
		total += n
	}
	if total == 0 {
		return nedge, nil
	}
	all, err := c.Allgatherv(ctx, PhaseValidateReduce, []byte(strings.Join(bad.samples, "\n")), nil)
	if err != nil {
		return 0, fmt.Errorf("validate: %w", err)
	}
	verr := &ValidationError{Root: root, Violations: total, Counts: map[string]int64{}}
	for k, n := range kinds {
		if n > 0 {
			verr.Counts[kindNames[k]] = n
		}
	}
	for r, msg := range all {
		if len(msg) == 0 {
			continue
		}
		for _, s := range strings.Split(string(msg), "\n") {
			verr.Samples = append(verr.Samples, fmt.Sprintf("rank %d: %s", r, s))
		}
	}
	return nedge, verr
}

// Validate checks one BFS result with a validator made for this call (see
// Validator.Validate; threads goroutines). A run that validates many
// searches keeps one Validator instead.
func Validate(ctx context.Context, c comm.Comm, g *graph.CSR, part partition.Block1D, root int64,
	parent []int64, level []int32, claimedNEdge int64, threads int) (int64, error) {
	v, err := NewValidator(ctx, c, g, part, ValidatorConfig{Threads: threads})
	if err != nil {
		return 0, err
	}
	return v.Validate(ctx, root, parent, level, claimedNEdge)
}
