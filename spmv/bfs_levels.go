package spmv

// The level-synchronous loop both BFS engines share (paper 004 §III: one
// SpMV t = A ⊗ f ⊙ ¬π per level, then the counts are reduced and the next
// frontier is published), with the configuration checks and Beamer et al.'s
// direction rule. The 1D engine (BFS) and the 2D one (BFS2D) differ only in
// how a level is traversed and how its result travels; they plug into
// levels.run through levelEngine.

import (
	"context"
	"fmt"
	"time"

	"github.com/graphrun/graphrun/comm"
)

// check validates cfg and returns it with the defaults filled in: the raw
// codec when none is named, top-down for the push exchange.
func (cfg BFSConfig) check() (BFSConfig, error) {
	if cfg.Threads < 1 {
		return cfg, fmt.Errorf("spmv: threads %d < 1", cfg.Threads)
	}
	if cfg.Exchange < ExchangeAllgather || cfg.Exchange > ExchangePacked {
		return cfg, fmt.Errorf("spmv: unknown exchange %d", cfg.Exchange)
	}
	if cfg.Direction < DirectionAuto || cfg.Direction > DirectionBottomUp {
		return cfg, fmt.Errorf("spmv: unknown direction %d", cfg.Direction)
	}
	if cfg.Exchange == ExchangePush {
		cfg.Direction = DirectionTopDown
	}
	if cfg.Codec == "" {
		cfg.Codec = "raw"
	}
	return cfg, nil
}

// nextDirection picks the next step's direction from global counts (the
// heuristic of Beamer et al.): the new frontier's size and edges, the
// previous frontier's size, the edges of still unexplored vertices and the
// vertex count n. Both engines call it with the same counts, so 1D and 2D
// runs take the same directions level by level.
func nextDirection(policy, current Direction, size, previous, edges, unexplored, n int64) Direction {
	if policy != DirectionAuto {
		return policy
	}
	if current == DirectionTopDown {
		if edges > unexplored/DefaultAlpha {
			return DirectionBottomUp
		}
		return DirectionTopDown
	}
	if size < previous && size <= n/DefaultBeta {
		return DirectionTopDown
	}
	return DirectionBottomUp
}

// levelEngine is what the level loop asks of an engine. Calls are per search
// or per level, never per vertex or edge.
type levelEngine interface {
	// Prepare clears the previous search (the exported BFS.Prepare).
	Prepare()
	// allreduce sums vals over all ranks.
	allreduce(ctx context.Context, vals []int64) error
	// localEdges is the number of adjacency entries this rank stores.
	localEdges() int64
	// start makes root the level-0 frontier for a first step of direction
	// dir and returns root's degree if this rank owns root, else 0.
	start(root int64, dir Direction) int64
	// traverse runs level lvl in direction dir, up to and including the
	// exchange that settles each vertex's parent, and returns how many
	// vertices this rank discovered and the sum of their degrees.
	traverse(ctx context.Context, lvl int32, dir Direction) (found, degree int64, err error)
	// settle makes the counts of a step of direction dir global (counts
	// holds this rank's found vertices and their degrees, and gets the sums
	// over all ranks), publishes the vertices discovered for the next step,
	// whose direction decide picks from the global counts, and returns that
	// direction. The 1D engine reduces the counts, then publishes
	// (reduceThenPublish); the 2D engine carries them in its exchanges.
	settle(ctx context.Context, dir Direction, counts []int64, decide func(counts []int64) Direction) (Direction, error)
	// owned returns this rank's parents and levels.
	owned() (parent []int64, level []int32)
}

// levels is the state of the level loop, embedded in both engines: the
// configuration, the per-step statistics and the search's global counts.
type levels struct {
	c           comm.Comm // the whole job, whose counters measure every step
	cfg         BFSConfig
	n           int64 // vertices in the graph
	steps       []LevelStats
	cur         LevelStats // the step being measured
	totalDegree int64      // stored adjacency entries over all ranks (0 until the first Run)
	prepared    bool       // Prepare ran since the last search
}

// Config returns the engine's configuration, with defaults filled in (the
// codec name, and the direction that push implies).
func (l *levels) Config() BFSConfig { return l.cfg }

// run searches from root: paper 004's level-synchronous loop, with the
// direction of every step chosen by nextDirection from the reduced counts.
func (l *levels) run(ctx context.Context, e levelEngine, root int64) (*Result, error) {
	if root < 0 || root >= l.n {
		return nil, fmt.Errorf("spmv: root %d out of range [0, %d)", root, l.n)
	}
	if l.totalDegree == 0 {
		total := []int64{e.localEdges()}
		if err := e.allreduce(ctx, total); err != nil {
			return nil, fmt.Errorf("bfs: %w", err)
		}
		l.totalDegree = total[0]
	}
	if !l.prepared {
		e.Prepare()
	}
	l.prepared = false
	dir := l.cfg.Direction
	if dir == DirectionAuto {
		dir = DirectionTopDown
	}
	// The root's degree decides the first direction; every rank computes it
	// from one allreduce.
	rootDegree := []int64{e.start(root, dir)}
	if err := e.allreduce(ctx, rootDegree); err != nil {
		return nil, fmt.Errorf("bfs: %w", err)
	}
	l.steps = append(l.steps[:0], LevelStats{Level: 0, Frontier: 1})
	frontierSize, unexplored := int64(1), l.totalDegree-rootDegree[0]
	for lvl := int32(1); ; lvl++ {
		before := l.c.Stats().Total()
		l.cur = LevelStats{Level: int(lvl), Direction: dir}
		found, foundDegree, err := e.traverse(ctx, lvl, dir)
		if err != nil {
			return nil, fmt.Errorf("bfs level %d: %w", lvl, err)
		}
		counts := []int64{found, foundDegree}
		next, err := e.settle(ctx, dir, counts, func(counts []int64) Direction {
			return nextDirection(l.cfg.Direction, dir, counts[0], frontierSize, counts[1], unexplored-counts[1], l.n)
		})
		if err != nil {
			return nil, fmt.Errorf("bfs level %d: %w", lvl, err)
		}
		d := l.c.Stats().Total().Sub(before)
		l.cur.Frontier, l.cur.BytesSent, l.cur.Messages = counts[0], d.BytesSent, d.Messages
		l.steps = append(l.steps, l.cur)
		if counts[0] == 0 {
			parent, level := e.owned()
			return &Result{Root: root, Parent: parent, Level: level, Steps: l.steps}, nil
		}
		frontierSize, unexplored, dir = counts[0], unexplored-counts[1], next
	}
}

// reducer is an engine whose step ends in an allreduce of the counts and a
// publish (the 1D engine).
type reducer interface {
	allreduce(ctx context.Context, vals []int64) error
	// publish turns the vertices discovered in a step of direction current
	// into what a step of direction next reads.
	publish(ctx context.Context, current, next Direction) error
}

// reduceThenPublish is settle for a reducer: the counts' allreduce (timed
// as the step's Reduce), then, unless nothing was found, publish for the
// direction decide picks.
func (l *levels) reduceThenPublish(ctx context.Context, e reducer, dir Direction, counts []int64, decide func([]int64) Direction) (Direction, error) {
	t0 := time.Now()
	if err := e.allreduce(ctx, counts); err != nil {
		return dir, err
	}
	l.cur.Reduce = time.Since(t0)
	next := decide(counts)
	if counts[0] > 0 {
		if err := e.publish(ctx, dir, next); err != nil {
			return dir, err
		}
	}
	return next, nil
}

// settle is the 1D engine's: the counts' allreduce, then the publish.
func (b *BFS) settle(ctx context.Context, dir Direction, counts []int64, decide func([]int64) Direction) (Direction, error) {
	return b.reduceThenPublish(ctx, b, dir, counts, decide)
}

// timedAlltoallv is one level exchange of either engine: an Alltoallv of
// send on c whose receive buffers *recv reuses and keeps, its time added to
// *took.
func timedAlltoallv(ctx context.Context, c comm.Comm, phase string, send [][]byte, recv *[][]byte, took *time.Duration) error {
	t0 := time.Now()
	got, err := c.Alltoallv(ctx, phase, send, *recv)
	if err != nil {
		return err
	}
	*recv = got
	*took += time.Since(t0)
	return nil
}
