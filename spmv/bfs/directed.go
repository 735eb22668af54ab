// Breadth-first search that follows out-edges only (the Graph500 driver's
// directed run on a file): the level-synchronous top-down search of Lv et
// al. §III-A with the push exchange, over a CSR whose rows hold each owned vertex's
// out-neighbours (graph500 builds it from a file's tuples). Unlike the
// undirected engine (bfs.go) it has no bottom-up step, which would need the
// in-edges, and no vertex is settled up front for lack of a row: a vertex
// without out-edges is still reached through its in-edges.

package bfs

import (
	"context"
	"encoding/binary"
	"fmt"
	"time"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/partition"
	"github.com/graphrun/graphrun/spmv"
)

// PhaseDirected is the phase of the directed search's exchanges.
const PhaseDirected = "bfs.directed"

// DirectedBFS is one rank's reusable directed search engine.
type Directed struct {
	c      comm.Comm
	g      *graph.CSR
	part   partition.Block1D
	parent []int64
	level  []int32
	queue  []uint32 // this level's owned frontier, local ids
	next   []uint32
	send   [][]byte
	recv   [][]byte
}

// NewDirectedBFS returns the directed engine over g, whose rows are the
// out-neighbours of the vertices part gives this rank (32-bit columns).
func NewDirected(c comm.Comm, g *graph.CSR, part partition.Block1D) (*Directed, error) {
	r := c.Rank()
	if part.P != c.Size() || g.NumLocal != part.Count(r) || g.FirstGlobal != part.First(r) || g.NumGlobal != part.N {
		return nil, fmt.Errorf("bfs: CSR of rank %d (first %d, %d vertices of %d) does not match the partition", r, g.FirstGlobal, g.NumLocal, g.NumGlobal)
	}
	if g.Cols32 == nil && g.NumEdges() > 0 {
		return nil, fmt.Errorf("bfs: the directed search needs 32-bit columns")
	}
	return &Directed{c: c, g: g, part: part,
		parent: make([]int64, g.NumLocal), level: make([]int32, g.NumLocal),
		send: make([][]byte, c.Size()),
	}, nil
}

// Config says how the engine searches: top-down, pushing (vertex, parent)
// records, raw.
func (b *Directed) Config() Config {
	return Config{Exchange: spmv.ExchangePush, Direction: spmv.DirectionTopDown, Codec: "raw", Threads: 1}
}

// Prepare resets the search state (outside the timed region).
func (b *Directed) Prepare() {
	for i := range b.parent {
		b.parent[i], b.level[i] = -1, -1
	}
}

// Run searches from root along out-edges. Every rank must call it with the
// same root. Of several parents found in one step, a vertex takes the
// smallest, so the tree is the same on any rank count.
func (b *Directed) Run(ctx context.Context, root int64) (*Result, error) {
	if root < 0 || root >= b.part.N {
		return nil, fmt.Errorf("bfs: root %d out of range [0, %d)", root, b.part.N)
	}
	b.Prepare()
	rank := b.c.Rank()
	b.queue = b.queue[:0]
	if b.part.Owner(root) == rank {
		l := b.part.Local(root)
		b.parent[l], b.level[l] = root, 0
		b.queue = append(b.queue, l)
	}
	res := &Result{Root: root, Parent: b.parent, Level: b.level}
	res.Steps = append(res.Steps, spmv.LevelStats{Level: 0, Direction: spmv.DirectionTopDown, Frontier: 1})
	first := b.part.First(rank)
	for lvl := int32(0); ; lvl++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		st := spmv.LevelStats{Level: int(lvl) + 1, Direction: spmv.DirectionTopDown, Codec: "raw"}
		t0 := time.Now()
		for d := range b.send {
			b.send[d] = b.send[d][:0]
		}
		cols, offs := b.g.Cols32, b.g.Offsets
		for _, u := range b.queue {
			pu := uint32(first + int64(u))
			for _, v := range cols[offs[u]:offs[u+1]] {
				d := b.part.Owner(int64(v))
				b.send[d] = binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(b.send[d], v), pu)
			}
		}
		st.Traverse = time.Since(t0)
		for d, m := range b.send {
			if d != rank && len(m) > 0 {
				st.BytesSent += int64(len(m))
				st.Messages++
			}
		}
		t1 := time.Now()
		var err error
		if b.recv, err = b.c.Alltoallv(ctx, PhaseDirected, b.send, b.recv); err != nil {
			return nil, fmt.Errorf("bfs: directed search: %w", err)
		}
		st.Communicate = time.Since(t1)
		t2 := time.Now()
		b.next = b.next[:0]
		for src, m := range b.recv {
			if len(m)%8 != 0 {
				return nil, fmt.Errorf("bfs: directed search: a message of %d bytes from rank %d", len(m), src)
			}
			for i := 0; i < len(m); i += 8 {
				v, p := int64(binary.LittleEndian.Uint32(m[i:])), int64(binary.LittleEndian.Uint32(m[i+4:]))
				if b.part.Owner(v) != rank || p >= b.part.N {
					return nil, fmt.Errorf("bfs: directed search: record (%d, %d) from rank %d", v, p, src)
				}
				l := b.part.Local(v)
				switch {
				case b.level[l] < 0:
					b.parent[l], b.level[l] = p, lvl+1
					b.next = append(b.next, l)
				case b.level[l] == lvl+1 && p < b.parent[l]:
					b.parent[l] = p
				}
			}
		}
		st.Traverse += time.Since(t2)
		t3 := time.Now()
		count := []int64{int64(len(b.next))}
		if err := b.c.AllreduceInt64(ctx, PhaseDirected, count, comm.Sum); err != nil {
			return nil, fmt.Errorf("bfs: directed search: %w", err)
		}
		st.Reduce = time.Since(t3)
		st.Frontier = count[0]
		res.Steps = append(res.Steps, st)
		if count[0] == 0 {
			return res, nil
		}
		b.queue, b.next = b.next, b.queue
	}
}

// DirectedEdges is nedge of a directed search: the out-tuples (u, v),
// u ≠ v, of the reached vertices, duplicates counted (outDegree is, per
// owned vertex, its out-tuples: graph.CSR.TupleDegree of a directed CSR).
// Every rank must call it.
func DirectedEdges(ctx context.Context, c comm.Comm, outDegree []uint32, parent []int64) (int64, error) {
	return reachedTuples(ctx, c, outDegree, parent)
}
