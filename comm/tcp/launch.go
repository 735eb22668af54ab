package tcp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/graphrun/graphrun/comm"
)

// LaunchLoopback runs fn on p ranks in this process, each on its own
// goroutine with a real TCP Comm over 127.0.0.1 (a fresh token and job id,
// an ephemeral coordinator port), and waits for all of them. It is a
// commtest.Launcher, and it lets tests of other packages exercise the TCP
// backend.
//
// It returns nil if every rank returns nil. Otherwise the error starts with
// the failure that caused the others, as "rank r: <error>"; it goes on with
// the errors of other ranks that failed on their own and ends with the list
// of ranks whose calls were merely aborted. A rank whose fn fails, panics
// (recovered into a *PanicError) or calls runtime.Goexit aborts its Comm,
// which tells the peers, cancels the context every fn was given, and closes
// its Comm; a rank whose fn returns nil closes its Comm, so peers still
// waiting for it fail at once.
func LaunchLoopback(ctx context.Context, p int, fn func(ctx context.Context, c comm.Comm) error) error {
	return launch(ctx, p, fn, launchOptions{})
}

// LaunchLoopbackReplicated is LaunchLoopback with every one of the p
// logical ranks run as replicas processes (goroutines here), p·replicas in
// all: fn runs on each of them, and each sees Rank() in [0, p).
func LaunchLoopbackReplicated(ctx context.Context, p, replicas int, fn func(ctx context.Context, c comm.Comm) error) error {
	return launch(ctx, p, fn, launchOptions{replicas: replicas})
}

// launchOptions tunes launch for tests.
type launchOptions struct {
	peerTimeout time.Duration
	maxFrame    int
	logf        func(format string, args ...any)
	replicas    int // processes per logical rank (default 1)
}

// NewJobSecret returns what the ranks of a job started on one machine
// share: a fresh 32-byte token and a job id, prefix followed by 8 more
// random bytes in hex.
func NewJobSecret(prefix string) (token []byte, jobID string, err error) {
	secret := make([]byte, 40)
	if _, err := rand.Read(secret); err != nil {
		return nil, "", fmt.Errorf("generating a job token: %w", err)
	}
	return secret[:32], prefix + hex.EncodeToString(secret[32:]), nil
}

func launch(ctx context.Context, p int, fn func(ctx context.Context, c comm.Comm) error, opts launchOptions) error {
	if p < 1 {
		return fmt.Errorf("tcp: job of %d ranks, need at least 1", p)
	}
	replicas := max(opts.replicas, 1)
	p *= replicas
	token, jobID, err := NewJobSecret("loopback-")
	if err != nil {
		return fmt.Errorf("tcp: %w", err)
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("tcp: coordinator listener: %w", err)
	}
	defer ln.Close()
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)

	base := Config{
		Size:        p,
		Replicas:    replicas,
		Coordinator: ln.Addr().String(),
		Token:       token,
		JobID:       jobID,
		PeerTimeout: opts.peerTimeout,
		MaxFrame:    opts.maxFrame,
		Logf:        opts.logf,
	}
	outcomes := make([]outcome, p)
	var order atomic.Int64
	var wg sync.WaitGroup
	for r := range p {
		cfg := base
		cfg.Rank = r
		var coordLn net.Listener
		if r == 0 {
			coordLn = ln
		}
		wg.Go(func() {
			runRank(ctx, cancel, cfg, coordLn, fn, func(o outcome) {
				if o.err != nil {
					o.order = order.Add(1)
				}
				outcomes[r] = o
			})
		})
	}
	wg.Wait()
	return summarize(outcomes)
}

// outcome is how one rank of a launch ended.
type outcome struct {
	err   error
	order int64 // when err was recorded, among the ranks that failed
	// jobErr is the failure the rank's Comm saw although fn returned nil.
	jobErr error
}

// runRank connects one rank, runs fn and records its outcome from a deferred
// function, so that a panic or runtime.Goexit is recorded too.
func runRank(ctx context.Context, cancel context.CancelCauseFunc, cfg Config, coordLn net.Listener,
	fn func(ctx context.Context, c comm.Comm) error, record func(outcome)) {
	c, err := connect(ctx, cfg, coordLn)
	if err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("%w: %w", comm.ErrAborted, err)
		}
		cancel(fmt.Errorf("rank %d failed to connect: %w", cfg.Rank, err))
		record(outcome{err: err})
		return
	}
	returned := false
	defer func() {
		var o outcome
		err = comm.RankExit(recover(), returned, "tcp.runRank", err)
		if err != nil {
			c.Abort(fmt.Errorf("rank function failed: %w", err))
			// Let the abort notices go out first: peers waiting in a call
			// then report this rank's reason rather than the cancellation.
			c.bg.Wait()
			cancel(fmt.Errorf("rank %d failed: %w", cfg.Rank, err))
		} else {
			o.jobErr = c.failure()
		}
		_ = c.Close()
		o.err = err
		record(o)
	}()
	err = fn(ctx, c)
	returned = true
}

// summarize builds launch's error from every rank's outcome.
func summarize(outcomes []outcome) error {
	primary := -1
	for pass := range 2 {
		for r, o := range outcomes {
			if o.err == nil || (pass == 0 && errors.Is(o.err, comm.ErrAborted)) {
				continue
			}
			if primary < 0 || o.order < outcomes[primary].order {
				primary = r
			}
		}
		if primary >= 0 {
			break
		}
	}
	if primary < 0 {
		for r, o := range outcomes {
			if o.jobErr != nil {
				return fmt.Errorf("tcp: every rank returned nil but the job failed on rank %d: %w: %w", r, comm.ErrAborted, o.jobErr)
			}
		}
		return nil
	}
	errs := make([]error, len(outcomes))
	for r, o := range outcomes {
		errs[r] = o.err
	}
	return comm.JobError(errs, primary, func(r int) bool { return errors.Is(errs[r], comm.ErrAborted) })
}

// PanicError is a panic recovered from a rank's function by LaunchLoopback.
type PanicError = comm.PanicError
