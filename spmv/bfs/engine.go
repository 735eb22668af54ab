package bfs

// The 1D and 2D engines as spmv.Engines: the level loop (spmv.Levels) calls
// these once per search or per level. They are separate types so that the
// per-level steps are not part of BFS's and BFS2D's own API.

import (
	"context"

	"github.com/graphrun/graphrun/spmv"
)

// engine1D is the 1D engine seen by the level loop.
type engine1D BFS

func (e *engine1D) Prepare() { (*BFS)(e).reset() }

func (e *engine1D) Allreduce(ctx context.Context, vals []int64) error {
	return (*BFS)(e).allreduce(ctx, vals)
}

func (e *engine1D) LocalEdges() int64 { return e.g.NumEdges() }

func (e *engine1D) Start(root int64, dir spmv.Direction) int64 { return (*BFS)(e).start(root, dir) }

func (e *engine1D) Traverse(ctx context.Context, lvl int32, dir spmv.Direction) (found, degree int64, err error) {
	return (*BFS)(e).traverse(ctx, lvl, dir)
}

// Settle is the counts' allreduce, then the publish.
func (e *engine1D) Settle(ctx context.Context, dir spmv.Direction, counts []int64, decide func([]int64) spmv.Direction) (spmv.Direction, error) {
	return e.lv.ReduceThenPublish(ctx, e, dir, counts, decide)
}

func (e *engine1D) Publish(ctx context.Context, current, next spmv.Direction) error {
	return (*BFS)(e).publish(ctx, current, next)
}

// engine2D is the 2D engine seen by the level loop.
type engine2D BFS2D

func (e *engine2D) Prepare() { (*BFS2D)(e).reset() }

func (e *engine2D) Allreduce(ctx context.Context, vals []int64) error {
	return (*BFS2D)(e).allreduce(ctx, vals)
}

func (e *engine2D) LocalEdges() int64 { return e.g.NumEdges() }

func (e *engine2D) Start(root int64, dir spmv.Direction) int64 { return (*BFS2D)(e).start(root, dir) }

func (e *engine2D) Traverse(ctx context.Context, lvl int32, dir spmv.Direction) (found, degree int64, err error) {
	return (*BFS2D)(e).traverse(ctx, lvl, dir)
}

func (e *engine2D) Settle(ctx context.Context, dir spmv.Direction, counts []int64, decide func([]int64) spmv.Direction) (spmv.Direction, error) {
	return (*BFS2D)(e).settle(ctx, dir, counts, decide)
}
