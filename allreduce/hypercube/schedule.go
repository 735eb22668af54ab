// This file compiles each dense allreduce algorithm into a schedule: the
// rounds of messages one rank sends and receives, computed from the rank
// count (or the topology) alone, before any data moves. The executor in
// dense.go runs any schedule, so the four algorithms share one encoder,
// decoder, worker pool and pipeline.
//
//   - tree: binomial-tree reduce to rank 0 in ⌈log₂ p⌉ rounds, then a
//     binomial-tree broadcast of the whole vector in as many rounds: the
//     reduce + broadcast of Li et al. §2.2–2.3 (Fig. 1a, eqs. 1–2) and the
//     "broadcast + reduce with tree topology" baseline of Zhang and Qiu §VI-B.
//   - butterfly: recursive doubling, every rank exchanging the whole vector
//     with the rank at distance 1, 2, 4, … (Li et al. Fig. 1b, eq. 3). For p
//     not a power of two, with q the largest power of two below p, ranks
//     q … p−1 first fold their vector into rank r−q and get the result back
//     from it at the end.
//   - hypercube-unsplittable: Zhang and Qiu §IV-E, whole objects along each
//     dimension of a Topology: pairs exchange, sending links deliver.
//   - hypercube-chunked: Zhang and Qiu §IV-E, reduce-scatter along dimensions
//     0, 1, … then allgather back down. The vector is cut into 2^dims
//     near-equal chunk classes; on dimension d a node hands its peer the
//     classes whose bit d is the peer's (the paper's chunk-to-neighbour rule
//     generalised to nodes that hold extra classes because a partner is
//     missing), the allgather sends every reduce-scatter message back with
//     the finished values.

package hypercube

import (
	"cmp"
	"fmt"
	"math/bits"
	"slices"
	"strconv"

	"github.com/graphrun/graphrun/internal/enum"
)

// Algorithm names a dense allreduce algorithm. The zero Algorithm is none
// (ManagerOptions reads it as AlgChunked).
type Algorithm int

// The dense allreduce algorithms.
const (
	AlgTree      Algorithm = iota + 1 // binomial reduce + broadcast (Li et al. Fig. 1a)
	AlgButterfly                      // recursive doubling (Li et al. Fig. 1b)
	AlgHypercube                      // whole objects along the topology (Zhang and Qiu §IV-E)
	AlgChunked                        // reduce-scatter + allgather (Zhang and Qiu §IV-E)
)

// algorithmNames are the names ParseAlgorithm accepts (besides its two
// short forms) and String prints.
var algorithmNames = [...]string{AlgTree: "tree", AlgButterfly: "butterfly", AlgHypercube: "hypercube-unsplittable", AlgChunked: "hypercube-chunked"}

func (a Algorithm) String() string { return enum.Name(algorithmNames[:], "algorithm", a) }

// Algorithms lists the dense algorithms, slowest first.
func Algorithms() []Algorithm {
	return []Algorithm{AlgTree, AlgButterfly, AlgHypercube, AlgChunked}
}

// ParseAlgorithm returns the algorithm named s; "unsplittable" and
// "chunked" are accepted for the two hypercube algorithms.
func ParseAlgorithm(s string) (Algorithm, error) {
	switch s {
	case "unsplittable":
		return AlgHypercube, nil
	case "chunked":
		return AlgChunked, nil
	}
	a, err := enum.Parse[Algorithm](algorithmNames[:], "dense allreduce algorithm",
		"tree, butterfly, hypercube-unsplittable, hypercube-chunked", s)
	if err != nil {
		return 0, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	return a, nil
}

// classRange is the chunk slots lo … hi−1 (see schedule.classes).
type classRange struct{ lo, hi int }

// transfer is one message of a round: to (sends) or from (receives) peer,
// the values of ranges of chunk slots, in order.
type transfer struct {
	peer   int
	ranges []classRange
}

// round is one collective call of a schedule.
type round struct {
	phase string
	// copy: received values overwrite the vector (allgather, broadcast);
	// otherwise they are reduced into it.
	copy  bool
	sends []transfer // by increasing peer
	recvs []transfer // by increasing peer, the order they are applied in
}

// schedule is one rank's part of an algorithm.
type schedule struct {
	// classes: the vector is cut into this many near-equal slots of
	// consecutive elements, slot s being elements s·n/classes … (s+1)·n/classes − 1.
	// Chunk class c of the chunked algorithm lives in slot c with its dims
	// bits reversed, so that what a node hands over on a dimension — the
	// classes whose bit d is the peer's — is one run of consecutive
	// elements on a dense power-of-two hypercube (and the message can be
	// sent straight from the vector).
	classes int
	rounds  []round
}

// whole is the transfer of the entire vector (one class).
func whole(peer int) transfer { return transfer{peer: peer, ranges: []classRange{{0, 1}}} }

// compileSchedule returns rank me's schedule of alg on p ranks; topo is the
// topology of the hypercube algorithms (p members).
func compileSchedule(alg Algorithm, p, me int, topo *Topology, prefix string) (schedule, error) {
	switch alg {
	case AlgTree:
		return treeSchedule(p, me, prefix), nil
	case AlgButterfly:
		return butterflySchedule(p, me, prefix), nil
	case AlgHypercube:
		return unsplittableSchedule(topo, me, prefix), nil
	case AlgChunked:
		return chunkedSchedule(topo, me, prefix), nil
	}
	return schedule{}, fmt.Errorf("%w: unknown dense allreduce algorithm %q", ErrInvalid, alg)
}

// treeSchedule: round k of the reduce sends from every rank whose k lowest
// bits are 0 and bit k is 1 to the rank 2^k below it; the broadcast runs the
// same edges the other way, top round first.
func treeSchedule(p, me int, prefix string) schedule {
	s := schedule{classes: 1}
	levels := bits.Len(uint(p - 1))
	for k := range levels {
		step := 1 << k
		r := round{phase: prefix + ".tree.reduce." + strconv.Itoa(k)}
		switch me % (2 * step) {
		case step:
			r.sends = []transfer{whole(me - step)}
		case 0:
			if me+step < p {
				r.recvs = []transfer{whole(me + step)}
			}
		}
		s.rounds = append(s.rounds, r)
	}
	for k := levels - 1; k >= 0; k-- {
		step := 1 << k
		r := round{phase: prefix + ".tree.bcast." + strconv.Itoa(k), copy: true}
		switch me % (2 * step) {
		case 0:
			if me+step < p {
				r.sends = []transfer{whole(me + step)}
			}
		case step:
			r.recvs = []transfer{whole(me - step)}
		}
		s.rounds = append(s.rounds, r)
	}
	return s
}

// butterflySchedule: fold the ranks above the largest power of two q, run
// log₂ q pairwise exchanges, unfold.
func butterflySchedule(p, me int, prefix string) schedule {
	s := schedule{classes: 1}
	q := 1 << (bits.Len(uint(p)) - 1)
	extra := p - q
	if extra > 0 {
		r := round{phase: prefix + ".butterfly.fold"}
		if me >= q {
			r.sends = []transfer{whole(me - q)}
		} else if me < extra {
			r.recvs = []transfer{whole(me + q)}
		}
		s.rounds = append(s.rounds, r)
	}
	for k := 0; 1<<k < q; k++ {
		r := round{phase: prefix + ".butterfly." + strconv.Itoa(k)}
		if me < q {
			r.sends = []transfer{whole(me ^ 1<<k)}
			r.recvs = []transfer{whole(me ^ 1<<k)}
		}
		s.rounds = append(s.rounds, r)
	}
	if extra > 0 {
		r := round{phase: prefix + ".butterfly.unfold", copy: true}
		if me < extra {
			r.sends = []transfer{whole(me + q)}
		} else if me >= q {
			r.recvs = []transfer{whole(me - q)}
		}
		s.rounds = append(s.rounds, r)
	}
	return s
}

// activeDims lists the dimensions on which some node has a pairing or
// sending link (the others move nothing and get no round).
func activeDims(t *Topology) []int {
	var out []int
	for d := range t.Dims() {
		for _, id := range t.members {
			if t.links[id][d].Kind != LinkNone {
				out = append(out, d)
				break
			}
		}
	}
	return out
}

// unsplittableSchedule: on each dimension a node sends its whole current
// value over its pairing or sending link and reduces what its partner and
// the nodes sending to it deliver.
func unsplittableSchedule(t *Topology, me int, prefix string) schedule {
	s := schedule{classes: 1}
	id := t.members[me]
	for _, d := range activeDims(t) {
		r := round{phase: prefix + ".hypercube." + strconv.Itoa(d)}
		l := t.links[id][d]
		if l.Kind != LinkNone {
			r.sends = []transfer{whole(t.Rank(l.Peer))}
		}
		var from []int
		if l.Kind == LinkPair {
			from = append(from, t.Rank(l.Peer))
		}
		for _, f := range l.From {
			from = append(from, t.Rank(f))
		}
		slices.Sort(from)
		for _, f := range from {
			r.recvs = append(r.recvs, whole(f))
		}
		s.rounds = append(s.rounds, r)
	}
	return s
}

// chunkedSchedule: the reduce-scatter messages of Topology.chunkFlow on
// dimensions 0, 1, …, then the same messages reversed, dimensions high to
// low, carrying finished values.
func chunkedSchedule(t *Topology, me int, prefix string) schedule {
	s := schedule{classes: 1 << t.Dims()}
	var moves []chunkMove
	t.chunkFlow(me, func(m chunkMove) { moves = append(moves, m) })
	dims := activeDims(t)
	for _, d := range dims {
		s.rounds = append(s.rounds, chunkRound(t, me, moves, d, prefix+".chunked.rs."+strconv.Itoa(d), false))
	}
	for i := len(dims) - 1; i >= 0; i-- {
		d := dims[i]
		s.rounds = append(s.rounds, chunkRound(t, me, moves, d, prefix+".chunked.ag."+strconv.Itoa(d), true))
	}
	return s
}

// chunkRound is rank me's round of dimension d: in the reduce-scatter
// (allgather false) every move's chunks travel from m.from to m.to; the
// allgather replays the same moves backwards, carrying finished values.
func chunkRound(t *Topology, me int, moves []chunkMove, d int, phase string, allgather bool) round {
	r := round{phase: phase, copy: allgather}
	for _, m := range moves {
		if m.dim != d {
			continue
		}
		from, to := m.from, m.to
		if allgather {
			from, to = to, from
		}
		tr := transfer{ranges: slotRanges(m.classes, t.Dims())}
		if from == me {
			tr.peer = to
			r.sends = append(r.sends, tr)
		} else {
			tr.peer = from
			r.recvs = append(r.recvs, tr)
		}
	}
	sortTransfers(r.sends)
	sortTransfers(r.recvs)
	return r
}

// slotRanges maps chunk classes to their slots (dims bits reversed) and
// returns the slots as increasing maximal runs.
func slotRanges(classes []int, dims int) []classRange {
	slots := make([]int, len(classes))
	for i, c := range classes {
		slots[i] = int(bits.Reverse(uint(c)) >> (bits.UintSize - dims))
	}
	slices.Sort(slots)
	var out []classRange
	for _, c := range slots {
		if k := len(out) - 1; k >= 0 && out[k].hi == c {
			out[k].hi++
			continue
		}
		out = append(out, classRange{c, c + 1})
	}
	return out
}

func sortTransfers(a []transfer) {
	slices.SortFunc(a, func(x, y transfer) int { return cmp.Compare(x.peer, y.peer) })
}
