// This file is elastic ramp-up (Zhang and Qiu §V-C, "add new tasks", and §III's
// ramp-up mode): processes that join a running job between iterations.
//
// Rank 0 keeps a lobby on the job's coordinator address (AcceptJoins). A
// process that wants to join (Join) proves the job token to it over fresh
// nonces, like a rank registering, and waits there; the lobby answers with
// a proof of its own, so both sides are authenticated and no proof can be
// replayed. The job learns how many processes wait (PendingJoins, which
// rank 0 reads at an iteration boundary and shares with the iteration's
// own reduction), and at a boundary every rank calls Grow with that number.
// Rank 0 then takes that many processes from the lobby in arrival order,
// turns its listener over to a fresh rendezvous for the job of Size+k ranks
// (the joiners get the new highest ranks), and tells each joiner its rank,
// the size, the epoch and the new job id (derived from the old one, the
// epoch and k, so every rank agrees on it by construction) in an admission
// carrying another proof. Every rank of the old job and every joiner then
// connect as in Connect, and confirm the new topology with one barrier over
// it; only then is the old Comm closed.
//
// The growth is bounded by half the peer timeout (the other ranks wait up
// to a second more, so that rank 0's verdict reaches them): a joiner that
// vanishes leaves the new job incomplete, and every rank fails within that
// bound, naming the missing rank (rank 0 also names the joiner's address). The old
// Comm is untouched by a failed growth (nothing travels over it), so the
// job can go on with the ranks it had; half the peer timeout keeps ranks
// that give up at different moments from blaming each other on it.
//
// Rank 0's listener serves two kinds of connections. Between rendezvous it
// is the lobby: its challenge names the root job and carries lobbyMarker.
// During a rendezvous (a growth, or a Shrink) it hands every connection to
// the rendezvous' coordinator. A rank of the new job that reaches the lobby
// too early sees another job's challenge and dials again (handshaker.
// derived); a joiner that reaches a rendezvous sees a challenge without the
// marker and knocks again later. A joiner that sees the lobby of another job
// (another token, or another job id) fails at once.

package tcp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/graphrun/graphrun/comm"
)

// Labels of the join proofs.
const (
	labelJoin   = "graphrun/tcp/v1 join"
	labelQueued = "graphrun/tcp/v1 queued"
	labelAdmit  = "graphrun/tcp/v1 admit"
)

// lobbyMarker is the Arg of a lobby's challenge ("lobby" in ASCII).
const lobbyMarker = 0x79_62_62_6f_6c

// maxTag bounds a joining process's tag.
const maxTag = 4 << 10

// PhaseGrow is the phase name of the barrier that confirms a grown topology.
const PhaseGrow = "tcp.grow"

// ErrJobEnded is returned by Join when the job ended before it took the
// process in: its rank 0 closed the lobby after the job finished.
var ErrJobEnded = errors.New("tcp: the elastic job ended before it took this process in")

// ErrNoLobby is returned by Join when nothing listens at the coordinator
// address (connections refused for noLobbyAfter): rank 0 listens there
// from its start to its end, so no job runs there now; it ended, or never
// ran there, which a refused connection cannot tell apart.
var ErrNoLobby = errors.New("tcp: nothing listens at the coordinator address: no job runs there (it ended, or never ran there)")

// noLobbyAfter is how long a joiner retries a coordinator address that
// refuses connections before it returns ErrNoLobby: long enough for a rank
// 0 that is starting to listen, short enough that a joiner coming after
// the job ended leaves at once (not after ConnectTimeout).
const noLobbyAfter = 2 * time.Second

// ErrForeignLobby is wrapped by Join's error when the lobby on the
// coordinator address belongs to another job: another token, or another
// job id.
var ErrForeignLobby = errors.New("the lobby answers for another job")

// errQuiet marks lobby connections that went away without a word: ranks of
// a new topology that reached the lobby too early, and port scans.
var errQuiet = errors.New("closed before a join request")

// growTimeout bounds the rendezvous of a growth on rank 0, whose
// coordinator gives up first: half the peer timeout (see the file comment),
// at most the connect timeout. The other ranks and the joiners wait a
// little longer (growRankTimeout), so that the coordinator's abort naming
// the missing ranks reaches them before their own deadline.
func growTimeout(cfg Config) time.Duration { return min(cfg.ConnectTimeout, cfg.PeerTimeout/2) }

// growRankTimeout bounds the rendezvous of a growth on the ranks but 0:
// growTimeout and a quarter of the peer timeout (at most a second) more.
func growRankTimeout(cfg Config) time.Duration {
	return growTimeout(cfg) + min(time.Second, cfg.PeerTimeout/4)
}

// anyPort is listen with port 0: the old data listener's port may still be
// taken, and any port will do for a new topology.
func anyPort(listen string) string {
	if listen == "" {
		return ""
	}
	if host, _, err := net.SplitHostPort(listen); err == nil {
		return net.JoinHostPort(host, "0")
	}
	return listen
}

// growJobID is the job id of the topology that grows job by k processes
// at epoch.
func growJobID(job string, epoch, k int) string {
	return fmt.Sprintf("%s/elastic-%d/grow-%d", job, epoch, k)
}

// Epoch is the epoch of the topology change that made this Comm (Shrink,
// Grow or Join); 0 for a Comm from Connect.
func (c *Comm) Epoch() int { return c.epoch }

// AcceptJoins opens rank 0's lobby: from now on processes may ask to join
// the job (Join) on its coordinator address, proving the job token and
// presenting tag, which must equal this one (a digest of the run's
// configuration, say; a joiner whose tag differs is refused with both
// tags). They wait in the lobby until a Grow takes them. The lobby passes
// to the Comm that Shrink or Grow returns and closes with the last one:
// the processes still waiting then learn that the job ended (Join returns
// ErrJobEnded) or failed. Only rank 0 of an unreplicated job accepts joins.
func (c *Comm) AcceptJoins(tag string) error {
	switch {
	case c.replicas > 1:
		return fmt.Errorf("tcp: rank %d of %d: %w: a replicated job takes no joining processes", c.rank, c.size, ErrNotElastic)
	case c.rank != 0:
		return fmt.Errorf("tcp: rank %d of %d: only rank 0, the coordinator, accepts joining processes", c.rank, c.size)
	case len(tag) > maxTag:
		return fmt.Errorf("tcp: a join tag of %d bytes is longer than %d", len(tag), maxTag)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.lobby != nil:
		return fmt.Errorf("tcp: rank 0 of %d accepts joining processes already", c.size)
	case c.failErr != nil:
		return fmt.Errorf("tcp: rank 0 of %d: the job is over: %w", c.size, c.failErr)
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(context.Background(), "tcp", c.cfg.Coordinator)
	if err != nil {
		return fmt.Errorf("tcp: rank 0 of %d: lobby for joining processes: %w", c.size, err)
	}
	hcfg := c.cfg
	hcfg.JobID = c.rootJob
	c.lobby = newLobby(newHandshaker(hcfg), tag, ln)
	c.logf("tcp: rank 0: processes may join job %q on %s", c.rootJob, ln.Addr())
	return nil
}

// PendingJoins is the number of processes waiting in rank 0's lobby (0 on
// other ranks, or when no lobby is open). It changes at any time; the job
// shares the value rank 0 read (see Grow).
func (c *Comm) PendingJoins() int {
	lb := c.currentLobby()
	if lb == nil {
		return 0
	}
	return lb.pending()
}

// currentLobby is c's lobby, or nil.
func (c *Comm) currentLobby() *lobby {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lobby
}

// takeLobby detaches c's lobby (to hand it to the Comm that replaces c).
func (c *Comm) takeLobby() *lobby {
	c.mu.Lock()
	defer c.mu.Unlock()
	lb := c.lobby
	c.lobby = nil
	return lb
}

// rendezvousListener is what rank 0's coordinator of a new topology
// listens on: the lobby's listener when a lobby is open (nil otherwise,
// and connect listens on the coordinator address itself).
func (c *Comm) rendezvousListener() (net.Listener, error) {
	lb := c.currentLobby()
	if lb == nil {
		return nil, nil
	}
	rv, err := lb.openRendezvous()
	if err != nil {
		return nil, err
	}
	return rv, nil
}

// Grow builds the Comm of c's ranks and joiners more processes, which wait
// in rank 0's lobby: every rank of c calls it with the same joiners (the
// count rank 0 read from PendingJoins and shared) and epoch (≥ 1, one more
// than the last topology change of the job, Shrinks included). The ranks
// keep their numbers; the joiners, in arrival order, get ranks c.Size() up.
// On success c is closed (its lobby passes to the new Comm) and the new
// Comm returned. On failure c is left as it was, still usable: nothing
// travels over it during a growth. A growth fails within half the peer
// timeout (at most the connect timeout; ranks other than 0 wait up to a
// second more for rank 0's verdict) if a joiner is missing, naming its
// rank; rank 0 fails at once if it has no lobby.
//
// Grow implements comm.Elastic; grow is the same returning the concrete
// Comm.
func (c *Comm) Grow(ctx context.Context, joiners, epoch int) (comm.Elastic, error) {
	nc, err := c.grow(ctx, joiners, epoch)
	if err != nil {
		return nil, err
	}
	return nc, nil
}

func (c *Comm) grow(ctx context.Context, joiners, epoch int) (*Comm, error) {
	switch {
	case c.replicas > 1:
		return nil, fmt.Errorf("tcp: rank %d of %d: %w: a replicated job does not grow", c.rank, c.size, ErrNotElastic)
	case joiners < 1:
		return nil, fmt.Errorf("tcp: rank %d of %d: growing by %d processes, want ≥ 1", c.rank, c.size, joiners)
	case epoch < 1:
		return nil, fmt.Errorf("tcp: rank %d of %d: growth epoch %d, want ≥ 1", c.rank, c.size, epoch)
	}
	if err := c.failure(); err != nil {
		return nil, fmt.Errorf("tcp: rank %d of %d: a failed job does not grow: %w", c.rank, c.size, err)
	}
	cfg := c.cfg
	cfg.Size = c.size + joiners
	cfg.JobID = growJobID(c.cfg.JobID, epoch, joiners)
	cfg.Listen = anyPort(cfg.Listen)
	cfg.ConnectTimeout = growRankTimeout(c.cfg)
	if c.rank == 0 {
		cfg.ConnectTimeout = growTimeout(c.cfg)
	}
	wrap := func(err error) error {
		return fmt.Errorf("tcp: rank %d of %d: growing to %d ranks (epoch %d): %w", c.rank, c.size, cfg.Size, epoch, err)
	}
	var coordLn net.Listener
	var admitted []string // rank 0: where the joiners came from, by new rank − c.size
	if c.rank == 0 {
		lb := c.currentLobby()
		if lb == nil {
			return nil, wrap(errors.New("rank 0 accepts no joining processes (AcceptJoins was not called)"))
		}
		rv, err := lb.openRendezvous()
		if err != nil {
			return nil, wrap(err)
		}
		coordLn = rv
		taken := lb.take(joiners)
		for i, w := range taken {
			a := admission{epoch: epoch, rank: c.size + i, size: cfg.Size, peerTimeout: cfg.PeerTimeout, connectTimeout: growRankTimeout(c.cfg), jobID: cfg.JobID}
			admitted = append(admitted, w.from)
			if err := lb.admit(w, a, time.Now().Add(cfg.ConnectTimeout)); err != nil {
				c.logf("tcp: rank 0: admitting the process from %s as rank %d: %v", w.from, a.rank, err)
			}
		}
		if len(taken) < joiners {
			c.logf("tcp: rank 0: only %d of the %d processes counted still wait to join; the growth will miss the others", len(taken), joiners)
		}
	}
	c.logf("tcp: rank %d of %d: %d process(es) join; going on as rank %d of %d (epoch %d)", c.rank, c.size, joiners, c.rank, cfg.Size, epoch)
	nc, err := connectJob(ctx, cfg, coordLn, true)
	if err != nil {
		if len(admitted) > 0 {
			err = fmt.Errorf("%w (joiners: %s)", err, joinerList(c.size, admitted))
		}
		return nil, wrap(err)
	}
	if err := nc.Barrier(ctx, PhaseGrow); err != nil {
		_ = nc.Close()
		return nil, wrap(fmt.Errorf("confirming the new topology: %w", err))
	}
	nc.rootJob, nc.epoch = c.rootJob, epoch
	nc.lobby = c.takeLobby()
	_ = c.Close()
	return nc, nil
}

// joinerList names joiners by their new rank and address.
func joinerList(first int, from []string) string {
	var b bytes.Buffer
	for i, a := range from {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "rank %d from %s", first+i, a)
	}
	return b.String()
}
