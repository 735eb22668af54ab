package spmv

// The level-synchronous loop (Lv et al. §III: one SpMV t = A ⊗ f ⊙ ¬π per
// level, then the counts are reduced and the next frontier is published),
// with Beamer et al.'s direction rule. A kernel plugs into Levels.Run
// through Engine; the 1D and the 2D BFS engines of package spmv/bfs differ
// only in how a level is traversed and how its result travels.

import (
	"context"
	"fmt"
	"time"

	"github.com/graphrun/graphrun/comm"
)

// nextDirection picks the next step's direction from global counts (the
// heuristic of Beamer et al.): the new frontier's size and edges, the
// previous frontier's size, the edges of still unexplored vertices and the
// vertex count n. Every engine calls it with the same counts, so 1D and 2D
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

// Engine is what the level loop asks of a kernel's engine on one rank.
// Calls are per search or per level, never per vertex or edge.
type Engine interface {
	// Prepare clears the previous search.
	Prepare()
	// Allreduce sums vals over all ranks.
	Allreduce(ctx context.Context, vals []int64) error
	// LocalEdges is the number of adjacency entries this rank stores.
	LocalEdges() int64
	// Start makes root the level-0 frontier for a first step of direction
	// dir and returns root's degree if this rank owns root, else 0.
	Start(root int64, dir Direction) int64
	// Traverse runs level lvl in direction dir, up to and including the
	// exchange that settles each vertex's parent, and returns how many
	// vertices this rank discovered and the sum of their degrees.
	Traverse(ctx context.Context, lvl int32, dir Direction) (found, degree int64, err error)
	// Settle makes the counts of a step of direction dir global (counts
	// holds this rank's found vertices and their degrees, and gets the sums
	// over all ranks), publishes the vertices discovered for the next step,
	// whose direction decide picks from the global counts, and returns that
	// direction. An engine whose step ends in a collective of the counts
	// calls Levels.ReduceThenPublish; one that carries them in its own
	// exchanges (the 2D BFS) does it itself.
	Settle(ctx context.Context, dir Direction, counts []int64, decide func(counts []int64) Direction) (Direction, error)
}

// Levels is the state of the level loop on one rank: the direction policy,
// the per-step statistics and the search's global counts. An engine holds
// one and adds its phases' times and byte counts to Step while Run runs.
type Levels struct {
	// Step is the step being measured. Run sets its Level and Direction
	// before Traverse and its Frontier, BytesSent and Messages after
	// Settle; the engine fills in the rest.
	Step LevelStats

	c           comm.Comm // the whole job, whose counters measure every step
	policy      Direction // the configured direction (DirectionAuto: per level)
	n           int64     // vertices in the graph
	steps       []LevelStats
	totalDegree int64 // stored adjacency entries over all ranks (0 until the first Run)
	prepared    bool  // Prepare ran since the last search
}

// NewLevels returns the level loop of a search over n vertices on c, with
// the direction of every step chosen by policy (DirectionAuto: Beamer et
// al.'s rule).
func NewLevels(c comm.Comm, policy Direction, n int64) Levels {
	return Levels{c: c, policy: policy, n: n}
}

// Prepare clears e's previous search now, so that the next Run does not.
// The Graph500 driver calls it before starting the clock, as the reference
// code clears its predecessor array outside the timed region.
func (l *Levels) Prepare(e Engine) {
	e.Prepare()
	l.prepared = true
}

// Run searches from root with e: Lv et al.'s level-synchronous loop, the
// direction of every step chosen by nextDirection from the reduced counts.
// It returns one LevelStats per step: the first is the root (level 0), the
// last the step that found nothing. The slice is overwritten by the next
// Run.
func (l *Levels) Run(ctx context.Context, e Engine, root int64) ([]LevelStats, error) {
	if root < 0 || root >= l.n {
		return nil, fmt.Errorf("spmv: root %d out of range [0, %d)", root, l.n)
	}
	if l.totalDegree == 0 {
		total := []int64{e.LocalEdges()}
		if err := e.Allreduce(ctx, total); err != nil {
			return nil, fmt.Errorf("bfs: %w", err)
		}
		l.totalDegree = total[0]
	}
	if !l.prepared {
		e.Prepare()
	}
	l.prepared = false
	dir := l.policy
	if dir == DirectionAuto {
		dir = DirectionTopDown
	}
	// The root's degree decides the first direction; every rank computes it
	// from one allreduce.
	rootDegree := []int64{e.Start(root, dir)}
	if err := e.Allreduce(ctx, rootDegree); err != nil {
		return nil, fmt.Errorf("bfs: %w", err)
	}
	l.steps = append(l.steps[:0], LevelStats{Level: 0, Frontier: 1})
	frontierSize, unexplored := int64(1), l.totalDegree-rootDegree[0]
	for lvl := int32(1); ; lvl++ {
		before := l.c.Stats().Total()
		l.Step = LevelStats{Level: int(lvl), Direction: dir}
		found, foundDegree, err := e.Traverse(ctx, lvl, dir)
		if err != nil {
			return nil, fmt.Errorf("bfs level %d: %w", lvl, err)
		}
		counts := []int64{found, foundDegree}
		next, err := e.Settle(ctx, dir, counts, func(counts []int64) Direction {
			return nextDirection(l.policy, dir, counts[0], frontierSize, counts[1], unexplored-counts[1], l.n)
		})
		if err != nil {
			return nil, fmt.Errorf("bfs level %d: %w", lvl, err)
		}
		d := l.c.Stats().Total().Sub(before)
		l.Step.Frontier, l.Step.BytesSent, l.Step.Messages = counts[0], d.BytesSent, d.Messages
		l.steps = append(l.steps, l.Step)
		if counts[0] == 0 {
			return l.steps, nil
		}
		frontierSize, unexplored, dir = counts[0], unexplored-counts[1], next
	}
}

// Publisher is an engine whose step ends in an allreduce of the counts and
// a publish (the 1D BFS).
type Publisher interface {
	Allreduce(ctx context.Context, vals []int64) error
	// Publish turns the vertices discovered in a step of direction current
	// into what a step of direction next reads.
	Publish(ctx context.Context, current, next Direction) error
}

// ReduceThenPublish is Engine.Settle for a Publisher: the counts' allreduce
// (timed as the step's Reduce), then, unless nothing was found, Publish for
// the direction decide picks.
func (l *Levels) ReduceThenPublish(ctx context.Context, e Publisher, dir Direction, counts []int64, decide func([]int64) Direction) (Direction, error) {
	t0 := time.Now()
	if err := e.Allreduce(ctx, counts); err != nil {
		return dir, err
	}
	l.Step.Reduce = time.Since(t0)
	next := decide(counts)
	if counts[0] > 0 {
		if err := e.Publish(ctx, dir, next); err != nil {
			return dir, err
		}
	}
	return next, nil
}

// TimedAlltoallv is one level exchange of an engine: an Alltoallv of send
// on c whose receive buffers *recv reuses and keeps, its time added to
// *took.
func TimedAlltoallv(ctx context.Context, c comm.Comm, phase string, send [][]byte, recv *[][]byte, took *time.Duration) error {
	t0 := time.Now()
	got, err := c.Alltoallv(ctx, phase, send, *recv)
	if err != nil {
		return err
	}
	*recv = got
	*took += time.Since(t0)
	return nil
}
