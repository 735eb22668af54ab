// This file is the second pass of PageRank's streamed set-up (Kylix
// §VII: every edge goes to its owner under the random edge partition of
// §II-B): the rank reads its share again, a round of edges at a time,
// relabels each edge (graph.Labels), and sends it as one packed key to its
// partition owner; every rank makes the same number of rounds (one
// Alltoallv each), so the send and receive buffers hold one round, never
// the share. The owner appends what it receives to the one array of keys
// that becomes its matrix (pagerank_matrix.go).

package pagerank

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/internal/memstat"
	"github.com/graphrun/graphrun/partition"
)

// Round sizes of the routing pass: a round is a 32nd of the largest share,
// within these bounds.
const (
	minRouteRound = 1 << 14
	maxRouteRound = 1 << 20
	routeRounds   = 32
)

// prRouter routes one rank's share to the partition owners in rounds.
type prRouter struct {
	c          comm.Comm
	labels     *graph.Labels
	part       partition.Block1D
	p, rank    int
	byEdge     bool // random edge partition, else the block of the source
	undirected bool
	sh         uint // key = u<<sh | v

	round  int   // edges per round
	rounds int   // rounds every rank makes
	done   int   // rounds made
	edges  int64 // edges routed
	mapped []uint64
	n      int // edges of the round so far: mapped[:n], dense u<<32 | v

	dest    []int32 // owner of each key of the round
	counts  []int
	offs    []int
	sendBuf []byte
	send    [][]byte
	recv    [][]byte

	keys []uint64 // the keys this rank owns, duplicates included

	// With weights: the round's weights beside mapped, the weights of
	// keys, and the buffers that route them (routeWeights).
	weighted bool
	wmapped  []float32
	ws       []float32
	wsendBuf []byte
	wsend    [][]byte
	wrecv    [][]byte
}

// routeShare reads share a second time and routes its edges, relabelled,
// to their partition owners; it returns the keys u<<sh | v this rank
// owns, duplicates included, in no particular order, and with
// cfg.Weighted their weights (share is then a WeightedShare). counts[r] is
// rank r's number of edges (labels.Edges of every rank).
func routeShare(ctx context.Context, c comm.Comm, share graph.EdgeShare, labels *graph.Labels, counts []int64,
	part partition.Block1D, cfg Config, sh uint) ([]uint64, []float32, error) {
	p, rank := c.Size(), c.Rank()
	var total, largest int64
	for _, m := range counts {
		total += m
		largest = max(largest, m)
	}
	perEdge := int64(1)
	if cfg.Undirected {
		perEdge = 2
	}
	r := &prRouter{
		c: c, labels: labels, part: part, p: p, rank: rank,
		byEdge: cfg.Partition != PartitionBlock1D, undirected: cfg.Undirected, sh: sh, weighted: cfg.Weighted,
	}
	r.round = int(min(max(largest/routeRounds, minRouteRound), maxRouteRound))
	if p == 1 {
		r.round = minRouteRound * 4 // nothing to send: only the relabelling buffer
	}
	r.rounds = int((largest + int64(r.round) - 1) / int64(r.round))
	r.mapped = make([]uint64, r.round)
	// Room for the keys this rank will own: exact on one rank, else its
	// share under an even spread plus a margin; routeShare grows it by
	// extrapolation if an uneven partition (1d) sends more.
	want := perEdge * total
	if p > 1 {
		mean := want / int64(p)
		want = mean + mean/64 + 8*int64(math.Sqrt(float64(mean))) + 4096
	}
	if want >= releaseEdges {
		memstat.Release() // the relabelling's garbage, before the keys fill their array
	}
	r.keys = make([]uint64, 0, want)
	if r.weighted {
		r.wmapped, r.ws = make([]float32, r.round), make([]float32, 0, want)
	}
	if p > 1 {
		r.dest = make([]int32, int(perEdge)*r.round)
		r.counts, r.offs = make([]int, p), make([]int, p)
		r.send = make([][]byte, p)
	}
	emit := func(chunk []graph.Edge, ws []float32) error {
		for len(chunk) > 0 {
			take := min(len(chunk), r.round-r.n)
			if err := labels.Map(chunk[:take], r.mapped[r.n:r.n+take]); err != nil {
				return err
			}
			if r.weighted {
				if err := checkWeights(chunk[:take], ws[:take]); err != nil {
					return err
				}
				ws = ws[copy(r.wmapped[r.n:], ws[:take]):]
			}
			r.n += take
			chunk = chunk[take:]
			if r.n == r.round {
				if err := r.flush(ctx); err != nil {
					return err
				}
			}
		}
		return nil
	}
	var err error
	if r.weighted {
		err = share.(WeightedShare).ScanWeighted(ctx, emit)
	} else {
		err = share.Scan(ctx, func(chunk []graph.Edge) error { return emit(chunk, nil) })
	}
	if err != nil {
		return nil, nil, fmt.Errorf("pagerank: routing edges: %w", err)
	}
	for r.n > 0 || r.done < r.rounds {
		if err := r.flush(ctx); err != nil {
			return nil, nil, fmt.Errorf("pagerank: routing edges: %w", err)
		}
	}
	if r.edges != labels.Edges {
		return nil, nil, fmt.Errorf("pagerank: routing edges: %d edges on the second pass, %d on the first: %w", r.edges, labels.Edges, graph.ErrShareChanged)
	}
	if r.weighted && len(r.ws) != len(r.keys) {
		return nil, nil, fmt.Errorf("pagerank: routing edges: %d weights for %d edges", len(r.ws), len(r.keys))
	}
	return r.keys, r.ws, nil
}

// perKeys is the number of keys an edge makes: 2 with its reverse.
func perKeys(undirected bool) int {
	if undirected {
		return 2
	}
	return 1
}

// reserve makes room for extra more keys: when they do not fit, the keys
// move to an array sized by extrapolating the rounds made to all of them.
func (r *prRouter) reserve(extra int) {
	need := len(r.keys) + extra
	if need <= cap(r.keys) {
		return
	}
	est := int64(need) * int64(r.rounds) / int64(max(r.done, 1))
	grown := make([]uint64, len(r.keys), max(int64(need), est+est/16))
	copy(grown, r.keys)
	r.keys = grown
	if r.weighted {
		r.ws = append(make([]float32, 0, cap(grown)), r.ws...)
	}
}

// flush routes the round's edges: this rank's keys go straight to its
// array, the others' by one Alltoallv, which also brings this rank its
// keys from the others.
func (r *prRouter) flush(ctx context.Context) error {
	if r.done == r.rounds {
		return fmt.Errorf("more edges than the first pass counted (%d): %w", r.labels.Edges, graph.ErrShareChanged)
	}
	pairs := r.mapped[:r.n]
	r.edges += int64(r.n)
	r.n = 0
	r.done++
	if r.p == 1 {
		r.keepAll(pairs)
		if r.weighted {
			r.keepWeights(r.wmapped[:len(pairs)])
		}
		return nil
	}
	dest := r.owners(pairs)
	if r.weighted {
		if err := r.routeWeights(ctx, dest, r.wmapped[:len(pairs)]); err != nil {
			return err
		}
	}
	r.pack(pairs, dest)
	return r.exchange(ctx)
}

// keepAll appends the round's keys to this rank's array: on one rank,
// it owns every edge.
func (r *prRouter) keepAll(pairs []uint64) {
	sh := r.sh
	per := 1
	if r.undirected {
		per = 2
	}
	r.reserve(per * len(pairs))
	keys := r.keys
	for _, k := range pairs {
		u, v := k>>32, k&math.MaxUint32
		keys = append(keys, u<<sh|v)
		if r.undirected {
			keys = append(keys, v<<sh|u)
		}
	}
	r.keys = keys
}

// owners sets the owner of each key of the round (an edge's, then its
// reverse's when undirected) and r.counts, the keys per owner: one loop
// per partition, no dispatch per edge.
func (r *prRouter) owners(pairs []uint64) (dest []int32) {
	counts, dest := r.counts, r.dest[:len(pairs)*perKeys(r.undirected)]
	clear(counts)
	switch {
	case r.byEdge && r.undirected:
		for i, k := range pairs {
			u, v := int64(k>>32), int64(k&math.MaxUint32)
			dest[2*i] = int32(partition.EdgeOwner(u, v, r.p))
			dest[2*i+1] = int32(partition.EdgeOwner(v, u, r.p))
		}
	case r.byEdge:
		for i, k := range pairs {
			dest[i] = int32(partition.EdgeOwner(int64(k>>32), int64(k&math.MaxUint32), r.p))
		}
	case r.undirected:
		for i, k := range pairs {
			dest[2*i] = int32(r.part.Owner(int64(k >> 32)))
			dest[2*i+1] = int32(r.part.Owner(int64(k & math.MaxUint32)))
		}
	default:
		for i, k := range pairs {
			dest[i] = int32(r.part.Owner(int64(k >> 32)))
		}
	}
	for _, d := range dest {
		counts[d]++
	}
	return dest
}

// pack writes the round's keys in place: this rank's into its array, the
// others' into one send buffer cut by destination (r.send).
func (r *prRouter) pack(pairs []uint64, dest []int32) {
	sh, counts := r.sh, r.counts
	r.reserve(counts[r.rank])
	off := 0
	for d, n := range counts {
		r.offs[d] = off
		if d != r.rank {
			off += 8 * n
		}
	}
	if cap(r.sendBuf) < off {
		r.sendBuf = make([]byte, off, off+off/4)
	}
	buf, offs, keys, self := r.sendBuf[:off], r.offs, r.keys, int32(r.rank)
	half := uint(perKeys(r.undirected) - 1) // key i is edge i>>half, reversed if i&half
	for i, d := range dest {
		k := pairs[i>>half]
		u, v := k>>32, k&math.MaxUint32
		if uint(i)&half != 0 {
			u, v = v, u
		}
		key := u<<sh | v
		if d == self {
			keys = append(keys, key)
			continue
		}
		binary.LittleEndian.PutUint64(buf[offs[d]:], key)
		offs[d] += 8
	}
	r.keys = keys
	for d := range r.send {
		if d == r.rank {
			r.send[d] = nil
			continue
		}
		end := offs[d]
		r.send[d] = buf[end-8*counts[d] : end]
	}
}

// exchange sends the packed keys by one Alltoallv and appends the keys the
// others send this rank to its array, checking that each is an edge of
// the graph.
func (r *prRouter) exchange(ctx context.Context) error {
	sh := r.sh
	var err error
	if r.recv, err = r.c.Alltoallv(ctx, PhaseRoute, r.send, r.recv); err != nil {
		return err
	}
	limit, vmask := uint64(r.part.N), uint64(1)<<sh-1
	for s, m := range r.recv {
		if len(m)%8 != 0 {
			return fmt.Errorf("%d bytes from rank %d is not a list of edges", len(m), s)
		}
		r.reserve(len(m) / 8)
		keys := r.keys
		for j := 0; j < len(m); j += 8 {
			k := binary.LittleEndian.Uint64(m[j:])
			if k>>sh >= limit || k&vmask >= limit {
				return fmt.Errorf("edge (%d, %d) from rank %d outside [0, %d)", k>>sh, k&vmask, s, r.part.N)
			}
			keys = append(keys, k)
		}
		r.keys = keys
	}
	return nil
}
