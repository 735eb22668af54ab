//go:build mpi

package mpi

import (
	"context"
	"errors"
	"fmt"
	"time"
	"unsafe"

	"github.com/graphrun/graphrun/comm"
)

// Run runs fn as this process's rank of a job made of every process of
// MPI_COMM_WORLD (initialising MPI if needed) and returns fn's error. If fn
// fails — returns an error or panics (recovered into a *comm.PanicError) —
// the job is aborted first, so that every other rank's pending and next
// call fails at once, naming this rank; if fn returns nil, the other ranks
// learn that this rank left, so a rank that still calls a collective fails
// instead of waiting. The error starts with "rank R of P:" and names the
// rank to blame when that is another one. The caller finalises MPI
// (Finalize) before it exits.
func Run(ctx context.Context, cfg Config, fn func(ctx context.Context, c comm.Comm) error) error {
	w, err := Init()
	if err != nil {
		return err
	}
	c, err := worldJob(cfg)
	if err != nil {
		return fmt.Errorf("rank %d of %d: %w", w.Rank, w.Size, err)
	}
	if err := runRank(ctx, c, fn); err != nil {
		return comm.Blame(w.Rank, w.Size, err)
	}
	return nil
}

// worldJob makes a Comm of every process: two duplicates of
// MPI_COMM_WORLD, for collectives and for notices.
func worldJob(cfg Config) (*Comm, error) {
	world := worldComm()
	data, err := world.dup()
	if err != nil {
		return nil, fmt.Errorf("mpi: %w", err)
	}
	ctl, err := world.dup()
	if err != nil {
		return nil, fmt.Errorf("mpi: %w", err)
	}
	return newComm(data, ctl, cfg)
}

// runRank runs fn on c in a goroutine of its own, so that a panic or
// runtime.Goexit in fn is reported like an error, then closes c.
func runRank(ctx context.Context, c *Comm, fn func(ctx context.Context, c comm.Comm) error) error {
	done := make(chan error, 1)
	stop := context.AfterFunc(ctx, func() { c.announceInterrupt(context.Cause(ctx)) })
	defer stop()
	go rankBody(ctx, c, fn, done)
	return <-done
}

func rankBody(ctx context.Context, c *Comm, fn func(ctx context.Context, c comm.Comm) error, done chan<- error) {
	var err error
	returned := false
	defer func() {
		err = comm.RankExit(recover(), returned, "mpi.rankBody", err)
		if err != nil {
			c.Abort(fmt.Errorf("rank function failed: %w", err))
			var pe *PeerError
			if culprit, ok := c.failedElsewhere(); ok && !errors.As(err, &pe) {
				// The job had failed before this rank did (mpirun stops the
				// survivors of a dead rank with SIGTERM): blame that rank.
				err = fmt.Errorf("%w; then this rank stopped: %w", culprit, err)
			}
		}
		_ = c.Close()
		done <- err
	}()
	err = fn(ctx, c)
	returned = true
}

// Launch runs fn on p ranks: the first p processes of MPI_COMM_WORLD, one
// rank each, on communicators of their own. It is a commtest.Launcher for
// a test binary started by mpirun with at least p processes: every process
// must call Launch with the same p, in the same order; processes beyond p
// only wait for the job's outcome. Every process returns the same error:
// nil if every rank's fn returned nil, otherwise one that starts with the
// failure that caused the others, as "rank r: <error>", goes on with the
// errors of ranks that failed on their own and ends with the ranks whose
// calls were merely aborted.
func Launch(ctx context.Context, p int, fn func(ctx context.Context, c comm.Comm) error) error {
	return LaunchWith(Config{})(ctx, p, fn)
}

// LaunchWith is Launch with a Comm configuration.
func LaunchWith(cfg Config) func(ctx context.Context, p int, fn func(ctx context.Context, c comm.Comm) error) error {
	return func(ctx context.Context, p int, fn func(ctx context.Context, c comm.Comm) error) error {
		w, err := Init()
		if err != nil {
			return err
		}
		if p < 1 || p > w.Size {
			return fmt.Errorf("mpi: a job of %d ranks needs at least that many MPI processes; this job has %d (mpirun -np %d)", p, w.Size, max(p, 1))
		}
		world := worldComm()
		results, err := world.dup()
		if err != nil {
			return fmt.Errorf("mpi: %w", err)
		}
		job, member, err := world.split(w.Rank < p, w.Rank)
		if err != nil {
			return fmt.Errorf("mpi: %w", err)
		}
		var own outcome
		if member {
			ctl, err := job.dup()
			if err != nil {
				return fmt.Errorf("mpi: %w", err)
			}
			c, err := newComm(job, ctl, cfg)
			if err != nil {
				return err
			}
			own = outcome{member: true, err: runRank(ctx, c, fn)}
		}
		all, err := gatherOutcomes(ctx, results, w, own)
		if err != nil {
			return err
		}
		return summarize(all)
	}
}

// outcome is how one rank's function ended.
type outcome struct {
	member  bool // the process was a rank of the job
	err     error
	aborted bool // err wraps comm.ErrAborted: the rank failed because another did
}

// gatherOutcomes tells every process how every rank of the job ended:
// MPI_Iallgather of the encoded lengths, then MPI_Iallgatherv of the
// encodings (a flag byte and the error text), polled so that processes
// waiting here leave the CPU to the ranks still working.
func gatherOutcomes(ctx context.Context, results commHandle, w World, own outcome) ([]outcome, error) {
	var mine []byte
	if own.member {
		flags := byte(1)
		if own.err != nil {
			flags |= 2
			if errors.Is(own.err, comm.ErrAborted) {
				flags |= 4
			}
		}
		mine = append([]byte{flags}, errText(own.err)...)
	}
	lenMine := (*int32)(cAlloc(4))
	lens := cAlloc(4 * w.Size)
	*lenMine = int32(len(mine))
	r := requestNull()
	if err := results.iallgatherInt(unsafe.Pointer(lenMine), lens, &r); err != nil {
		return nil, fmt.Errorf("mpi: gathering the job's outcome: %w", err)
	}
	if err := poll(ctx, &r, unsafe.Pointer(lenMine), lens); err != nil {
		return nil, err
	}
	counts := unsafe.Slice((*int32)(lens), w.Size)
	displs := (*int32)(cAlloc(4 * w.Size))
	displ := unsafe.Slice(displs, w.Size)
	total := 0
	for i, n := range counts {
		displ[i] = int32(total)
		total += int(n)
	}
	all := cAlloc(total)
	minePtr := cAlloc(len(mine))
	copy(unsafe.Slice((*byte)(minePtr), len(mine)), mine)
	if err := results.iallgatherv(minePtr, len(mine), all, lens, unsafe.Pointer(displs), &r); err != nil {
		return nil, fmt.Errorf("mpi: gathering the job's outcome: %w", err)
	}
	if err := poll(ctx, &r, unsafe.Pointer(lenMine), lens, unsafe.Pointer(displs), all, minePtr); err != nil {
		return nil, err
	}
	buf := unsafe.Slice((*byte)(all), total)
	out := make([]outcome, 0, w.Size)
	for i, n := range counts {
		if n == 0 {
			continue // not a rank of the job
		}
		enc := buf[displ[i] : displ[i]+n]
		o := outcome{member: true, aborted: enc[0]&4 != 0}
		switch {
		case i == w.Rank:
			o.err = own.err
		case enc[0]&2 != 0:
			o.err = errors.New(string(enc[1:]))
		}
		out = append(out, o)
	}
	for _, p := range []unsafe.Pointer{unsafe.Pointer(lenMine), lens, unsafe.Pointer(displs), all, minePtr} {
		cFree(p)
	}
	return out, nil
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// poll waits for a request of the outcome exchange, sleeping between
// tests. If ctx is done first, the request is abandoned and its buffers
// (mem) go to the quarantine.
func poll(ctx context.Context, r *request, mem ...unsafe.Pointer) error {
	for pause := 10 * time.Microsecond; ; pause = min(2*pause, time.Millisecond) {
		done, err := test(r)
		if err != nil {
			quarantine(leftover{cmem: mem})
			return fmt.Errorf("mpi: gathering the job's outcome: %w", err)
		}
		if done {
			return nil
		}
		if ctx.Err() != nil {
			quarantine(leftover{cmem: mem})
			return fmt.Errorf("mpi: gathering the job's outcome: %w", ctxError(ctx))
		}
		time.Sleep(pause)
	}
}

// summarize builds Launch's error from every rank's outcome, indexed by
// rank: the first rank that failed on its own (or, if every failure was an
// abort, the first that failed) leads.
func summarize(outcomes []outcome) error {
	primary := -1
	for pass := range 2 {
		for r, o := range outcomes {
			if o.err != nil && (pass == 1 || !o.aborted) {
				primary = r
				break
			}
		}
		if primary >= 0 {
			break
		}
	}
	if primary < 0 {
		return nil
	}
	errs := make([]error, len(outcomes))
	for r, o := range outcomes {
		errs[r] = o.err
	}
	return comm.JobError(errs, primary, func(r int) bool { return outcomes[r].aborted })
}
