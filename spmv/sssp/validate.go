package sssp

// The Graph500 spec's validation of an SSSP result (kernel 3), distributed
// as the BFS validator is: the distances of the remote ends of a rank's
// edges arrive by one boundary exchange planned once per run; then one
// threaded pass over the rows checks every edge, and pointer jumping checks
// that the parents form a tree rooted at the root.

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/internal/parallel"
	"github.com/graphrun/graphrun/partition"
)

// Phases of the validation.
const (
	PhaseValidatePlan  = "sssp.validate.plan"  // once per run: who needs which distances
	PhaseValidateDist  = "sssp.validate.dist"  // the boundary distances of a result
	PhaseValidateJump  = "sssp.validate.jump"  // pointer jumping up the tree
	PhaseValidateCount = "sssp.validate.count" // the verdict
)

// Tolerance is the relative rounding a tree edge may show: d(v) must equal
// d(parent) + w to within Tolerance·(d(parent) + w), and an edge may be
// shorter than |d(u) − d(v)| by as much. The engine computes d(v) as the
// float32 sum itself, so its results meet the check exactly; the slack is
// for results summed in another order or precision.
const Tolerance = 1e-5

// Kinds of violation, in the order the error lists their counts.
const (
	violRoot  = iota // the root's distance is not 0 or its parent not itself
	violReach        // a vertex has a distance but no parent, or the reverse
	violTree         // a parent is not a neighbour, or d(v) ≠ d(parent) + w
	violEdge         // an edge with |d(u) − d(v)| > w
	violSpan         // an edge joins a reached and an unreached vertex
	violCycle        // a parent chain does not end at the root
	violKinds
)

var violNames = [violKinds]string{"root", "distance without parent", "tree edge", "edge", "span", "cycle"}

// ValidationError is an invalid result: how many violations of each kind
// the ranks found, and the first one of the lowest rank that found any.
type ValidationError struct {
	Root   int64
	Counts [violKinds]int64
	First  string
}

func (e *ValidationError) Error() string {
	var parts []string
	for k, n := range e.Counts {
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, violNames[k]))
		}
	}
	return fmt.Sprintf("sssp from %d is invalid (%s): %s", e.Root, strings.Join(parts, ", "), e.First)
}

// Validator validates the results of searches on one rank's CSR; made
// once per run.
type Validator struct {
	c       comm.Comm
	g       *graph.CSR
	w       []float32
	part    partition.Block1D
	rank    int
	threads int

	need  [][]uint32 // per owner: local ids (ascending) of its vertices my rows name
	give  [][]uint32 // per peer: my local ids it needs
	start []int      // per owner: its first ghost in ghost
	ghost []float32  // distances of the needed vertices
	send  [][]byte
	recv  [][]byte
}

// NewValidator plans the boundary exchange of rank c.Rank()'s rows: every
// rank calls it with its CSR and weights.
func NewValidator(ctx context.Context, c comm.Comm, g *graph.CSR, w []float32, part partition.Block1D, threads int) (*Validator, error) {
	if int64(len(w)) != g.NumEdges() {
		return nil, fmt.Errorf("sssp: validate: %d weights for %d adjacency entries", len(w), g.NumEdges())
	}
	v := &Validator{c: c, g: g, w: w, part: part, rank: c.Rank(), threads: max(1, threads),
		need: make([][]uint32, part.P), start: make([]int, part.P+1),
		send: make([][]byte, part.P)}
	for i := range g.NumEdges() {
		u := g.Neighbor(i)
		if d := part.Owner(u); d != v.rank {
			v.need[d] = append(v.need[d], part.Local(u))
		}
	}
	for d := range v.need {
		slices.Sort(v.need[d])
		v.need[d] = slices.Compact(v.need[d])
		v.start[d+1] = v.start[d] + len(v.need[d])
		for _, l := range v.need[d] {
			v.send[d] = binary.LittleEndian.AppendUint32(v.send[d], l)
		}
	}
	v.ghost = make([]float32, v.start[part.P])
	recv, err := c.Alltoallv(ctx, PhaseValidatePlan, v.send, nil)
	if err != nil {
		return nil, fmt.Errorf("sssp: validate: %w", err)
	}
	v.give = make([][]uint32, part.P)
	n := uint32(g.NumLocal)
	for s, msg := range recv {
		if len(msg)%4 != 0 {
			return nil, fmt.Errorf("sssp: validate: plan from rank %d has %d bytes", s, len(msg))
		}
		for i := 0; i < len(msg); i += 4 {
			l := binary.LittleEndian.Uint32(msg[i:])
			if l >= n {
				return nil, fmt.Errorf("sssp: validate: plan from rank %d names vertex %d of %d", s, l, n)
			}
			v.give[s] = append(v.give[s], l)
		}
	}
	return v, nil
}

// distOf is the distance of global vertex u: own, or a ghost.
func (v *Validator) distOf(u int64, dist []float32) float32 {
	d := v.part.Owner(u)
	l := v.part.Local(u)
	if d == v.rank {
		return dist[l]
	}
	i, _ := slices.BinarySearch(v.need[d], l)
	return v.ghost[v.start[d]+i]
}

// Validate checks this rank's share of a result from root (dist and
// parent per owned vertex, as Result holds them) with every other rank.
// An invalid result is a *ValidationError on every rank; any other error
// is the job's failure.
func (v *Validator) Validate(ctx context.Context, root int64, dist []float32, parent []int64) error {
	if len(dist) != v.g.NumLocal || len(parent) != v.g.NumLocal {
		return fmt.Errorf("sssp: validate: %d distances and %d parents for %d vertices", len(dist), len(parent), v.g.NumLocal)
	}
	if err := v.exchangeDistances(ctx, dist); err != nil {
		return err
	}
	found := make([]violations, v.threads)
	parallel.For(v.threads, func(t int) {
		lo, hi := parallel.Span(v.g.NumLocal, t, v.threads)
		v.checkRows(root, dist, parent, lo, hi, &found[t])
	})
	var all violations
	for i := range found {
		all.merge(&found[i])
	}
	if err := v.checkTree(ctx, root, parent, &all); err != nil {
		return err
	}
	return v.verdict(ctx, root, &all)
}

// exchangeDistances fills the ghosts with the owners' distances.
func (v *Validator) exchangeDistances(ctx context.Context, dist []float32) error {
	for d, ls := range v.give {
		b := v.send[d][:0]
		for _, l := range ls {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(dist[l]))
		}
		v.send[d] = b
	}
	recv, err := v.c.Alltoallv(ctx, PhaseValidateDist, v.send, v.recv)
	if err != nil {
		return fmt.Errorf("sssp: validate: %w", err)
	}
	v.recv = recv
	for s, msg := range recv {
		if s == v.rank {
			continue
		}
		if len(msg) != 4*len(v.need[s]) {
			return fmt.Errorf("sssp: validate: %d bytes of distances from rank %d, want %d", len(msg), s, 4*len(v.need[s]))
		}
		for i := range v.need[s] {
			v.ghost[v.start[s]+i] = math.Float32frombits(binary.LittleEndian.Uint32(msg[4*i:]))
		}
	}
	return nil
}

// violations counts what one thread or rank found, keeping the first.
type violations struct {
	counts [violKinds]int64
	first  string
}

func (x *violations) addf(kind int, format string, args ...any) {
	if x.counts[kind] == 0 && x.first == "" {
		x.first = fmt.Sprintf(format, args...)
	}
	x.counts[kind]++
}

func (x *violations) merge(o *violations) {
	if x.first == "" {
		x.first = o.first
	}
	for k, n := range o.counts {
		x.counts[k] += n
	}
}

// reached reports whether a distance is finite.
func reached(d float32) bool { return d < float32(math.Inf(1)) }

// checkRows checks owned vertices lo … hi−1 and their edges. A row is in
// any order (the engine's are by weight): the tree edge is found while the
// row's edges are checked.
func (v *Validator) checkRows(root int64, dist []float32, parent []int64, lo, hi int, bad *violations) {
	g := v.g
	for l := lo; l < hi; l++ {
		x := g.FirstGlobal + int64(l)
		dx, px := dist[l], parent[l]
		edges, tree := checkVertex(x, root, dx, px, v.part.N, bad) // tree: the tree edge to check
		if !edges {
			continue
		}
		for i := g.Offsets[l]; i < g.Offsets[l+1]; i++ {
			u := g.Neighbor(i)
			du, w := v.distOf(u, dist), v.w[i]
			switch {
			case reached(dx) != reached(du):
				bad.addf(violSpan, "edge (%d, %d) joins a reached and an unreached vertex", x, u)
			case reached(dx) && float64(dx)-float64(du) > float64(w)+Tolerance*float64(dx):
				bad.addf(violEdge, "edge (%d, %d) of weight %v: distances %v and %v", x, u, w, dx, du)
			}
			if tree && u == px {
				checkTreeEdge(x, px, dx, du, w, bad)
				tree = false
			}
		}
		if tree {
			bad.addf(violTree, "vertex %d has parent %d, which is not a neighbour", x, px)
		}
	}
}

// checkVertex checks vertex x's distance dx and parent px in a result from
// root on n vertices: the root's, and that x has both or neither. It
// reports whether x's edges are to be checked and whether its tree edge
// is.
func checkVertex(x, root int64, dx float32, px, n int64, bad *violations) (edges, tree bool) {
	switch {
	case x == root:
		if dx != 0 || px != root {
			bad.addf(violRoot, "root %d has distance %v and parent %d", x, dx, px)
		}
		return true, false
	case reached(dx) != (px >= 0) || !(dx >= 0):
		bad.addf(violReach, "vertex %d has distance %v and parent %d", x, dx, px)
		return false, false
	case px >= n:
		bad.addf(violTree, "vertex %d has parent %d, not a vertex", x, px)
		return true, false
	}
	return true, px >= 0
}

// checkTreeEdge checks that the distance dx of vertex x is its parent p's
// dp plus the weight w of their edge, within the tolerance.
func checkTreeEdge(x, p int64, dx, dp, w float32, bad *violations) {
	if !reached(dp) {
		bad.addf(violTree, "vertex %d has parent %d, which is not reached", x, p)
		return
	}
	sum := float64(dp) + float64(w)
	if math.Abs(sum-float64(dx)) > Tolerance*sum {
		bad.addf(violTree, "vertex %d has distance %v, its parent %d %v plus the edge's weight %v", x, dx, p, dp, w)
	}
}

// verdict sums the ranks' violations; the first one named is the lowest
// rank's.
func (v *Validator) verdict(ctx context.Context, root int64, bad *violations) error {
	counts := bad.counts[:]
	if err := v.c.AllreduceInt64(ctx, PhaseValidateCount, counts, comm.Sum); err != nil {
		return fmt.Errorf("sssp: validate: %w", err)
	}
	total := int64(0)
	for _, n := range counts {
		total += n
	}
	if total == 0 {
		return nil
	}
	firsts, err := v.c.Allgatherv(ctx, PhaseValidateCount, []byte(bad.first), nil)
	if err != nil {
		return fmt.Errorf("sssp: validate: %w", err)
	}
	e := &ValidationError{Root: root}
	copy(e.Counts[:], counts)
	for _, f := range firsts {
		if len(f) > 0 {
			e.First = string(f)
			break
		}
	}
	return e
}

// IsInvalid reports whether err says that a result is invalid (rather
// than that the job failed).
func IsInvalid(err error) bool {
	var ve *ValidationError
	return errors.As(err, &ve)
}
