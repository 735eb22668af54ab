// This file is the elastic hypercube topology of Zhang and Qiu §IV-A–D, as
// a plain data structure: no network, no clock, the same answer on every
// process that holds the same membership.
//
// Reference: Bingjing Zhang and Judy Qiu, "Efficient, Fault-tolerant and Elastic
// Allreduce Framework for Iterative Algorithms", Indiana University
// Bloomington, technical report (undated).
//
// # Ids and dimensions (§IV-B)
//
// Nodes carry ids 0, 1, 2, … . A new node takes the smallest id that is free
// (an id a removed node gave back, the paper's freed-id list) or, when none
// is, max id + 1. With M the largest id present, the hypercube has
// dims = 1 for M = 0 and ⌈log₂(M+1)⌉ otherwise, numbered 0 … dims−1.
//
// # Links (§IV-C, §IV-D)
//
// On dimension d node x looks at y = x XOR 2^d (the paper's rule 1 written
// as one bit flip):
//
//   - y present: x and y pair (both send and receive).
//   - y absent: x sends to an alternative, y + 2^{d+1} if present, else
//     y − 2^{d+1} (rule 2, the plus sign first: that is the choice the
//     paper's examples make, node 2 sending to node 1 while 5 does not exist
//     and to node 5 once node 3 has left). The alternative agrees with y in
//     bits 0…d, so it may stand in for y in the chunked algorithm. The
//     alternative gets a receiving link from x.
//   - neither: no link. The paper marks it −1 when no such node exists
//     (y and both alternatives lie above M: they were never handed out) and
//     −2 when one of them is a freed id (a node that has left and may come
//     back: rule 5 re-links it on return).
//
// The paper states these as incremental rules for addition and removal;
// here every link is a function of the membership alone (TopologyOf), so
// that two processes that agree on the members agree on every link without
// replaying a history. For the paper's examples (nodes 0–5
// added in order, Fig. 7; node 3 removed and added back, Fig. 8) both give
// the same links, which the tests check. They differ only where a node's
// preferred alternative y + 2^{d+1} joins later: the paper keeps the old
// alternative, this code switches to it.
//
// # Rebalancing
//
// The paper's rules give a correct allreduce on the memberships its examples
// build, but not on every membership (removing node 3 from nodes 0–4 leaves
// node 4 with no link on dimension 0 and node 1 never hears from it). The
// paper suggests rebalancing the topology after many failures. This code
// checks every topology it builds, by simulating both algorithms of §IV-E on
// the links (every node must end with every member's value exactly once;
// every chunk must end at exactly one owner), and when the check fails it
// rebalances: the links are those of the dense hypercube on the members'
// positions 0 … p−1 in id order, which always passes (tested up to
// thousands of nodes). Ids do not change; Rebalanced reports the mode.
//
// # Membership changes (Zhang and Qiu §V)
//
// The paper's driver updates the topology when a task fails or joins and
// keys the new one by an iteration number. In graphrun that update is the
// elastic transport's (comm.Elastic Shrink and Grow, numbered by epoch; the
// elastic PageRank run agrees on the iteration the survivors reached): the
// survivors or the grown job keep their order and are renumbered 0 … p−1,
// and the allreduce is rebuilt on the new Comm, whose topology is
// NewTopology(p). Incremental Add and Remove on the ids would have no
// caller, so membership changes are new topologies, not mutations.

package hypercube

import (
	"fmt"
	"math/bits"
	"slices"
	"strings"
)

// LinkKind is the role of a node on one dimension of a Topology.
type LinkKind int8

// Kinds of link. A node has exactly one of them on each dimension, plus any
// number of receiving links (Link.From).
const (
	LinkNone LinkKind = iota // no partner and no alternative (neighbour id −1 or −2)
	LinkPair                 // exchanges with Peer in both directions
	LinkSend                 // sends to Peer, which receives from it
)

// Neighbour ids of a dimension without a pairing or sending link (Zhang
// and Qiu §IV-C rules 3 and 4).
const (
	// NeighborNone (−1): neither the partner nor an alternative was ever
	// handed out.
	NeighborNone = -1
	// NeighborLost (−2): the partner or an alternative is a freed id.
	NeighborLost = -2
)

// Link is one node's part of one dimension.
type Link struct {
	Kind LinkKind
	// Peer is the partner (LinkPair), the node sent to (LinkSend), or
	// NeighborNone / NeighborLost (LinkNone).
	Peer int
	// From lists, in increasing order, the nodes that send to this one on
	// this dimension (its receiving links).
	From []int
}

// String writes the link as the tests' tables do: "pair 3", "send 1",
// "-1", "-2", followed by " recv 4,5" when other nodes send to it.
func (l Link) String() string {
	var s string
	switch l.Kind {
	case LinkPair:
		s = fmt.Sprintf("pair %d", l.Peer)
	case LinkSend:
		s = fmt.Sprintf("send %d", l.Peer)
	default:
		s = fmt.Sprint(l.Peer)
	}
	if len(l.From) > 0 {
		parts := make([]string, len(l.From))
		for i, f := range l.From {
			parts[i] = fmt.Sprint(f)
		}
		s += " recv " + strings.Join(parts, ",")
	}
	return s
}

// Topology is the membership of an elastic hypercube and its links. The
// zero value is an empty topology; NewTopology makes one of n nodes,
// TopologyOf one of any members. A Topology does not change once built: a
// membership change is a new Topology.
type Topology struct {
	members    []int    // present ids, increasing; rank k of a job is members[k]
	present    []bool   // by id, up to the largest present id
	dims       int      // dimensions of the links in use
	links      [][]Link // by id (nil for absent ids), one per dimension
	label      []int    // by id: the node's hypercube coordinate (its id, or its position when rebalanced)
	rebalanced bool
}

// NewTopology returns a topology of nodes 0 … n−1, added in order.
func NewTopology(n int) (*Topology, error) {
	if n < 0 {
		return nil, fmt.Errorf("%w: topology of %d nodes", ErrInvalid, n)
	}
	ids := make([]int, n)
	for i := range ids {
		ids[i] = i
	}
	return TopologyOf(ids)
}

// TopologyOf returns the topology whose members are ids (any order, no
// duplicates, none negative): the topology any sequence of additions and
// removals that leaves exactly these members builds.
func TopologyOf(ids []int) (*Topology, error) {
	t := &Topology{}
	sorted := slices.Clone(ids)
	slices.Sort(sorted)
	for i, id := range sorted {
		if id < 0 {
			return nil, fmt.Errorf("%w: negative node id %d", ErrInvalid, id)
		}
		if i > 0 && id == sorted[i-1] {
			return nil, fmt.Errorf("%w: node id %d listed twice", ErrInvalid, id)
		}
	}
	t.members = sorted
	t.rebuild()
	return t, nil
}

// Clone returns an independent copy of t.
func (t *Topology) Clone() *Topology {
	c := &Topology{
		members: slices.Clone(t.members), present: slices.Clone(t.present), dims: t.dims,
		label: slices.Clone(t.label), rebalanced: t.rebalanced, links: make([][]Link, len(t.links)),
	}
	for id, ls := range t.links {
		if ls == nil {
			continue
		}
		c.links[id] = make([]Link, len(ls))
		for d, l := range ls {
			l.From = slices.Clone(l.From)
			c.links[id][d] = l
		}
	}
	return c
}

// Len is the number of nodes.
func (t *Topology) Len() int { return len(t.members) }

// Members returns the ids present, in increasing order (a copy). Rank k of
// a job on the topology is Members()[k].
func (t *Topology) Members() []int { return slices.Clone(t.members) }

// Has reports whether id is a member.
func (t *Topology) Has(id int) bool { return id >= 0 && id < len(t.present) && t.present[id] }

// MaxID is the largest id present, −1 when the topology is empty.
func (t *Topology) MaxID() int {
	if len(t.members) == 0 {
		return -1
	}
	return t.members[len(t.members)-1]
}

// Freed returns the ids below MaxID that are not present, in increasing
// order: the ids of nodes that left, which the next additions reuse.
func (t *Topology) Freed() []int {
	var out []int
	for id := 0; id < t.MaxID(); id++ {
		if !t.present[id] {
			out = append(out, id)
		}
	}
	return out
}

// Dims is the number of dimensions of the links in use: 1 for one node,
// ⌈log₂(MaxID+1)⌉ from two on (of the positions 0 … Len−1 when rebalanced),
// 0 when empty.
func (t *Topology) Dims() int { return t.dims }

// Rebalanced reports whether the links are those of the dense hypercube on
// the members' positions because the paper's rules would give a wrong
// result on this membership (see the file comment).
func (t *Topology) Rebalanced() bool { return t.rebalanced }

// Link returns node id's link on dimension d. It panics if id is not a
// member or d is not in [0, Dims()). The From slice must not be modified.
func (t *Topology) Link(id, d int) Link {
	if !t.Has(id) {
		panic(fmt.Sprintf("allreduce: node %d is not in the topology", id))
	}
	return t.links[id][d]
}

// Rank returns the position of id among the members (its rank in a job on
// the topology), or −1 if it is not a member.
func (t *Topology) Rank(id int) int {
	k, ok := slices.BinarySearch(t.members, id)
	if !ok {
		return -1
	}
	return k
}

// String writes one line per node: "id: link of dim 0 | link of dim 1 | …".
func (t *Topology) String() string {
	var b strings.Builder
	if t.rebalanced {
		b.WriteString("(rebalanced)\n")
	}
	for _, id := range t.members {
		fmt.Fprintf(&b, "%d:", id)
		for d, l := range t.links[id] {
			if d > 0 {
				b.WriteString(" |")
			}
			b.WriteString(" " + l.String())
		}
		b.WriteString("\n")
	}
	return b.String()
}

// dimsFor is the paper's d_max for a largest id m ≥ 0.
func dimsFor(m int) int {
	if m == 0 {
		return 1
	}
	return bits.Len(uint(m))
}

// rebuild recomputes present, dims and the links from members.
func (t *Topology) rebuild() {
	t.present, t.links, t.label = nil, nil, nil
	t.dims, t.rebalanced = 0, false
	if len(t.members) == 0 {
		return
	}
	maxID := t.members[len(t.members)-1]
	t.present = make([]bool, maxID+1)
	for _, id := range t.members {
		t.present[id] = true
	}
	// The paper's links, on the ids.
	t.label = make([]int, maxID+1)
	for id := range t.label {
		t.label[id] = id
	}
	t.dims = dimsFor(maxID)
	t.links = paperLinks(t.present, t.dims, func(c int) int { return c })
	if t.exact() {
		return
	}
	// Rebalance: the same rules on the positions 0 … p−1, all present.
	p := len(t.members)
	dense := make([]bool, p)
	for i := range dense {
		dense[i] = true
	}
	t.dims = dimsFor(p - 1)
	byPos := paperLinks(dense, t.dims, func(c int) int { return t.members[c] })
	t.links = make([][]Link, maxID+1)
	for k, id := range t.members {
		t.links[id] = byPos[k]
		t.label[id] = k
	}
	t.rebalanced = true
	if !t.exact() {
		// The dense hypercube is checked for every size in the tests; this
		// would be a bug, not an input error.
		panic(fmt.Sprintf("allreduce: dense hypercube of %d nodes fails its own check", p))
	}
}

// paperLinks computes every node's links on coordinates 0 … len(present)−1
// by the rules of the file comment; id maps a coordinate to the node id the
// links name. The result is indexed by coordinate.
func paperLinks(present []bool, dims int, id func(c int) int) [][]Link {
	n := len(present)
	has := func(c int) bool { return c >= 0 && c < n && present[c] }
	freed := func(c int) bool { return c >= 0 && c < n && !present[c] }
	links := make([][]Link, n)
	for x := range n {
		if !present[x] {
			continue
		}
		links[x] = make([]Link, dims)
		for d := range dims {
			y := x ^ 1<<d
			up, down := y+2<<d, y-2<<d
			switch {
			case has(y):
				links[x][d] = Link{Kind: LinkPair, Peer: y}
			case has(up):
				links[x][d] = Link{Kind: LinkSend, Peer: up}
			case has(down):
				links[x][d] = Link{Kind: LinkSend, Peer: down}
			case freed(y) || freed(up) || freed(down):
				links[x][d] = Link{Kind: LinkNone, Peer: NeighborLost}
			default:
				links[x][d] = Link{Kind: LinkNone, Peer: NeighborNone}
			}
		}
	}
	// Receiving links (senders in increasing coordinate, hence id, order),
	// then coordinates to ids.
	for x := range n {
		for d, l := range links[x] {
			if l.Kind == LinkSend {
				links[l.Peer][d].From = append(links[l.Peer][d].From, x)
			}
		}
	}
	for x := range n {
		for d := range links[x] {
			l := &links[x][d]
			if l.Kind != LinkNone {
				l.Peer = id(l.Peer)
			}
			for i, f := range l.From {
				l.From[i] = id(f)
			}
		}
	}
	return links
}

// exact reports whether both algorithms of §IV-E give every member the
// reduction of every member's value exactly once on t's links.
func (t *Topology) exact() bool {
	p := len(t.members)
	// Unsplittable: the set of members (by rank) whose value each node holds.
	cov, next := newBitsets(p, p), newBitsets(p, p)
	for k := range cov {
		cov[k].set(k)
	}
	for d := range t.dims {
		for k := range cov {
			copy(next[k], cov[k])
		}
		for k, id := range t.members {
			l := t.links[id][d]
			if l.Kind == LinkNone {
				continue
			}
			if !next[t.Rank(l.Peer)].addDisjoint(cov[k]) {
				return false // a value would count twice
			}
		}
		cov, next = next, cov
	}
	for _, c := range cov {
		if c.count() != p {
			return false
		}
	}
	// Chunked: every chunk class ends at exactly one owner.
	return t.chunkFlow(-1, nil)
}

// chunkMove is one message of the chunked reduce-scatter: rank from sends
// the partial reductions of classes to rank to, on dimension dim.
type chunkMove struct {
	dim, from, to int
	classes       []int // increasing
}

// chunkFlow simulates the chunked reduce-scatter of §IV-E on t's links with
// 2^Dims chunk classes: on dimension d a node hands the classes whose bit d
// equals bit d of its link peer's coordinate to the peer (pairing or
// sending) and keeps the others. It calls move, if not nil, for every
// message that rank me sends or receives, in dimension and sender order,
// and reports whether every class ends at exactly one owner.
func (t *Topology) chunkFlow(me int, move func(chunkMove)) bool {
	p := len(t.members)
	classes := 1 << t.dims
	hold, next := newBitsets(p, classes), newBitsets(p, classes)
	for k := range hold {
		for c := range classes {
			hold[k].set(c)
		}
	}
	side := newBitsets(2, classes) // side[b]: the classes whose bit d is b
	give := newBitsets(1, classes)[0]
	for d := range t.dims {
		clear(side[0])
		clear(side[1])
		for c := range classes {
			side[c>>d&1].set(c)
		}
		for k := range next {
			clear(next[k])
		}
		for k, id := range t.members {
			l := t.links[id][d]
			if l.Kind == LinkNone {
				next[k].or(hold[k])
				continue
			}
			to := t.Rank(l.Peer)
			s := side[t.label[l.Peer]>>d&1]
			for w := range give {
				give[w] = hold[k][w] & s[w]
				next[k][w] |= hold[k][w] &^ s[w]
				next[to][w] |= give[w]
			}
			if move != nil && (k == me || to == me) && give.count() > 0 {
				move(chunkMove{dim: d, from: k, to: to, classes: give.list()})
			}
		}
		hold, next = next, hold
	}
	total := 0
	union := newBitsets(1, classes)[0]
	for _, h := range hold {
		total += h.count()
		union.or(h)
	}
	return total == classes && union.count() == classes
}

// bitset is a set of small non-negative integers.
type bitset []uint64

func newBitsets(count, size int) []bitset {
	words := (size + 63) / 64
	flat := make([]uint64, count*words)
	out := make([]bitset, count)
	for i := range out {
		out[i] = flat[i*words : (i+1)*words : (i+1)*words]
	}
	return out
}

func (b bitset) set(i int) { b[i/64] |= 1 << (i % 64) }

func (b bitset) or(o bitset) {
	for w, v := range o {
		b[w] |= v
	}
}

// addDisjoint adds o to b and reports whether they had no element in common.
func (b bitset) addDisjoint(o bitset) bool {
	ok := true
	for w, v := range o {
		if b[w]&v != 0 {
			ok = false
		}
		b[w] |= v
	}
	return ok
}

func (b bitset) count() int {
	n := 0
	for _, v := range b {
		n += bits.OnesCount64(v)
	}
	return n
}

func (b bitset) list() []int {
	var out []int
	for w, v := range b {
		for v != 0 {
			out = append(out, w*64+bits.TrailingZeros64(v))
			v &= v - 1
		}
	}
	return out
}
