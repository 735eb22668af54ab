// Package tcp is graphrun's comm.Comm over plain TCP sockets: each rank is
// a process (or, with LaunchLoopback, a goroutine) holding one connection to
// every other rank.
//
// The design follows Kylix (Kylix §VI-B,C): standard sockets rather
// than an MPI binding, every message of a collective sent concurrently (one
// writer goroutine per peer and call) and every incoming message handled as
// it arrives (one reader goroutine per peer), so that a slow link delays only
// its own transfer. The collectives are comm/wire's, shared with comm/mpi,
// over this package's exchange: the direct ones. Alltoallv sends each
// rank its piece, Allgatherv sends every rank the whole contribution, the
// Allreduces gather every contribution everywhere and combine them in rank
// order (so results are bit-identical to comm/inproc's), Bcast sends from the
// root and Barrier exchanges empty messages. Counters follow comm/inproc's
// conventions exactly: logical volumes to other ranks only.
//
// # Rendezvous
//
// Rank 0 runs a coordinator on Config.Coordinator. Every rank, rank 0
// included, opens its data listener (Config.Listen, or by default the local
// interface it reaches the coordinator through, on an ephemeral port),
// connects to the coordinator and registers (rank, size, listen address).
// Once all Size ranks registered, the coordinator sends every one of them the
// address table; then rank i dials every rank j > i and accepts the ranks
// below it: one connection per pair, used in both directions. Connect fails
// if this does not finish within Config.ConnectTimeout.
//
// # Handshake
//
// The job token never crosses the network. Whoever accepts a connection
// (the coordinator, or the higher rank of a pair) first sends a challenge
// frame holding a fresh 32-byte nonce. The dialer answers with its own nonce
// and HMAC-SHA256(token, label ‖ job id ‖ both nonces ‖ its rank ‖ the
// target rank ‖ its MaxFrame); a peer acceptor then proves the token in turn
// with an HMAC over the same nonces under another label, and the coordinator
// proves it in the address table, so authentication is mutual and no proof
// can be replayed on another connection or in another role. Every part of an
// HMAC input is length-prefixed. A connection that sends anything else — a
// wrong proof, another job's id, garbage, or nothing within 10 s — is closed
// and logged through Config.Logf, and the job keeps waiting for the genuine
// rank.
//
// # Wire format
//
// Every message on every connection, handshake included, is a frame:
//
//	offset size field
//	0      4    magic "GRTC"
//	4      1    version (1)
//	5      1    type: data, abort, bye, challenge, hello, welcome, register, table,
//	            join, queued, admit
//	6      1    collective kind of a data frame (Alltoallv, ..., Barrier)
//	7      1    flags: bit 0 = last frame of the message
//	8      8    job: the first 8 bytes of SHA-256 of the job id
//	16     8    sequence number of the collective call (from 1)
//	24     8    FNV-1a 64 of the call's phase name
//	32     8    argument: Allreduce length<<8 | operator; Bcast root; "lobby" in a lobby's challenge
//	40     4    source rank
//	44     4    payload length of this frame (≤ the receiver's MaxFrame)
//	48     8    payload length of the whole message
//	56     n    payload
//	56+n   4    CRC32C (Castagnoli) of header and payload
//
// All integers are little-endian. Each rank's k-th collective call sends one
// message, possibly empty, to every other rank (a group call, group.go, to
// the members of its group only: the pairs that do not share it skip call
// k), split into frames of at most 1 MiB (and at most the receiver's
// MaxFrame, exchanged in the handshake). A receiver checks each frame's
// magic, version, job, source, length and checksum, and that messages
// arrive in increasing sequence order. The kind, phase hash
// and argument of every message must equal the receiver's own call's, which
// detects ranks that disagree on the collective. ReadFrame is the decoder;
// it never allocates for a frame longer than its limit, and allocates for a
// payload only as the bytes arrive. The whole-message length is trusted no
// more: it must fit what the collective carries (nothing for a barrier or a
// non-root's broadcast, 8 bytes per value for an allreduce), and a message's
// buffer grows with the bytes received, not with the length announced.
//
// Before a connection has proved the job token, a listener reads frames of
// at most 8 KiB and keeps at most 64 such connections, closing the oldest
// when more arrive; refused connections are logged once per cause every
// 10 s (preauth.go).
//
// A peer's reader demultiplexes messages by sequence number into per-call
// slots: a message of call k+1 that arrives while this rank is still in call
// k is kept for call k+1 (a rank is never more than one call ahead of
// another it shares every call with; with group calls, a rank that skips
// calls with another may be further ahead). When the caller passed a large enough recv buffer, the payload
// is read from the socket straight into it. To make that the common case, a
// reader that sees the first frame of call k+1 before this rank made that
// call waits up to 20 ms for it (TCP flow control pauses the sender
// meanwhile) before it reads the message ahead into a buffer of its own,
// which the call then copies into recv.
//
// # Failure
//
// A call fails, and every later call on the rank fails with an error
// wrapping comm.ErrAborted and naming the rank to blame (see PeerError),
// when a connection it needs closes (a peer's Close says goodbye first, so
// that is told apart from a crash), a read or write fails, a frame is
// corrupt, the ranks disagree on the collective, the call makes no progress
// for Config.PeerTimeout, its context is done, or a peer reports that the
// job failed. A rank whose call fails sends every peer an abort frame with
// the reason and the rank it blames, so that the job fails everywhere within
// one round trip. A call whose messages all arrived completes even if the
// job fails meanwhile; the next call reports it. A failed call returns only
// when no goroutine touches its buffers any more (transfers still running
// after a grace period of at most 2 s are cut short by expiring their
// connection's deadline).
//
// # Elastic jobs: shrinking and growing
//
// An elastic job changes its topology between iterations (Zhang and Qiu §V);
// every change is a fresh rendezvous at the job's coordinator address, run
// by rank 0, for a job whose id is derived from the old one and the epoch
// (the change's number), so that ranks that disagree never assemble a
// wrong topology. Shrink builds the Comm of the survivors of a lost rank
// (see its documentation).
//
// Ramp-up: rank 0 opens a lobby on the coordinator address with
// AcceptJoins(tag). A process that wants to join calls Join with the job's
// coordinator address, token, job id and tag: the lobby's challenge
// carries a nonce and the "lobby" marker; the joiner answers with a join
// frame (its nonce, HMAC-SHA256 over both nonces and the tag under its own
// label, the tag); the lobby refuses a wrong proof or another tag with an
// abort frame naming the reason, and otherwise queues the joiner and says
// so with a queued frame proving the token in turn. The joiner then waits
// on that connection. PendingJoins is the length of the queue; the job
// shares the count rank 0 read (PageRank adds it to the scalars its
// iteration sums anyway) and every rank calls Grow(k, epoch). Rank 0 takes
// the first k joiners, hands its listener to the rendezvous of the job of
// Size+k ranks, and sends each joiner an admit frame: a proof over its
// nonces and the admission (epoch, rank, size, peer and connect timeouts,
// new job id); joiners get the ranks Size..Size+k−1 in arrival order. All
// of them connect as in Connect and confirm the topology with a barrier;
// only then do the old ranks close the old Comm, whose lobby passes to the
// new one. The rendezvous is bounded by half the peer timeout (the ranks
// but 0 wait up to a second more for rank 0's verdict): a joiner that
// vanishes makes every rank's Grow fail in that time, naming the missing
// rank (rank 0 also its address), and leaves the old Comm untouched and
// usable. A joiner that stops waiting leaves the queue; when the job ends
// the lobby closes, and the processes still waiting get a bye (Join
// returns ErrJobEnded) or, if the job failed, an abort with the reason.
// While a rendezvous runs, rank 0's listener serves it: a joiner then sees
// a challenge without the lobby marker and knocks again (within its
// connect timeout), and a rank of the new topology that reaches the lobby
// first sees another job's challenge and dials again.
//
// # Replication
//
// With Config.Replicas S > 1 (Kylix §V), the Size processes form
// Size/S logical ranks; process P is replica P / (Size/S) of logical rank
// P mod (Size/S), and Rank and Size are the logical ones. A call sends its
// message for logical rank d to every live replica of d, and an empty
// "entered call k" notice to the replicas of its own rank. A reader keeps
// the first complete copy of each (source rank, call) and drops the others:
// a copy that starts after the winner arrived, or is still arriving when it
// does, is read off the connection and discarded without a buffer (TCP
// cannot take back bytes already sent, so this is the cancellation that is
// possible). A replica whose connection breaks, or that stalls a call for
// PeerTimeout, is given up (closed, never sent to again); a call fails,
// naming the logical rank, only when every replica of a rank it needs is
// gone before that rank's message arrived. A replica that lags behind its
// group may still complete, after the job failed, calls whose messages all
// arrived and that a sibling entered (they happened), so that its group
// stays in step up to the failure. A replicated Close half-closes every
// connection and waits (at most PeerTimeout) until the peers half-close
// theirs, because closing with unread late copies would reset the
// connection and destroy what a lagging peer has not read yet. Stats count
// logical volumes (one copy, as without replication); ReplicaStats counts
// the extra copies sent and the late copies dropped.
//
// References:
//
//   - Huasha Zhao and John Canny, "Kylix: A Sparse Allreduce for
//     Commodity Clusters", 43rd International Conference on Parallel
//     Processing (ICPP), IEEE, 2014.
//   - Bingjing Zhang and Judy Qiu, "Efficient, Fault-tolerant and Elastic
//     Allreduce Framework for Iterative Algorithms", Indiana University
//     Bloomington, technical report (undated).
package tcp
