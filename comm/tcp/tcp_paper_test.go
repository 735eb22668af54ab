package tcp

// Tests mapped to the papers this transport implements, over loopback TCP,
// each bounded in time and in the number of calls:
//
//   - Kylix §V-A (data replication): a logical rank run as several
//     replicas survives the loss of one of them;
//   - Kylix §V-B (packets racing): every message is sent by every replica
//     of its source, the first copy to arrive wins and the others are
//     dropped, so each message is delivered once;
//   - Zhang and Qiu §V-B (remove failed tasks): a job that loses a rank
//     shrinks past it and goes on with the survivors, renumbered;
//   - Zhang and Qiu §V-C (add new tasks): a process asking to join is taken
//     in at an iteration boundary, not before.
//
// References: Huasha Zhao and John Canny, "Kylix: A Sparse Allreduce for
// Commodity Clusters", ICPP 2014; Bingjing Zhang and Judy Qiu, "Efficient,
// Fault-tolerant and Elastic Allreduce Framework for Iterative Algorithms",
// Indiana University Bloomington, technical report (undated).

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/commtest"
)

// killProcess cuts every connection of c at once, without a goodbye, as
// the kernel does for a killed process.
func killProcess(c *Comm) {
	for _, p := range c.peers {
		if p != nil {
			_ = p.conn.(*net.TCPConn).SetLinger(0)
			_ = p.conn.Close()
		}
	}
}

// TestReplicatedRankSurvivesLosingAReplica_KylixVA: 3 logical ranks of 2
// replicas each; replica 1 of rank 1 dies after 5 of 15 allreduces. Every
// other process finishes all 15 with the exact sums, the job succeeds, and
// the dead replica is given up.
func TestReplicatedRankSurvivesLosingAReplica_KylixVA(t *testing.T) {
	const p, s, rounds = 3, 2, 15
	const victim = p + 1 // process p+1: replica 1 of rank 1
	ctx, cancel := context.WithTimeout(context.Background(), guardTimeout)
	defer cancel()
	var problems commtest.Problems
	var mu sync.Mutex
	lostReplicas := 0
	start := time.Now()
	err := launch(ctx, p, func(ctx context.Context, cc comm.Comm) error {
		c := cc.(*Comm)
		for round := range rounds {
			if round == 5 && c.Process() == victim {
				killProcess(c)
				return nil
			}
			v := []int64{int64(c.Rank()), 1}
			if err := c.AllreduceInt64(ctx, "paper.kylix.replication", v, comm.Sum); err != nil {
				problems.Addf("process %d: round %d: %v", c.Process(), round, err)
				return err
			}
			if v[0] != 0+1+2 || v[1] != p {
				problems.Addf("process %d: round %d: sums %v, want [3 %d]", c.Process(), round, v, p)
			}
		}
		mu.Lock()
		lostReplicas += c.ReplicaStats().LostReplicas
		mu.Unlock()
		return nil
	}, launchOptions{replicas: s, peerTimeout: 2 * time.Second})
	problems.Report(t)
	if err != nil {
		t.Fatalf("the job failed although rank 1 kept a replica: %v", err)
	}
	if lostReplicas == 0 {
		t.Error("no process gave up the dead replica")
	}
	if d := time.Since(start); d > 6*time.Second {
		t.Errorf("the job took %v", d)
	}
}

// TestFirstCopyWins_KylixVB: in a job of 3 logical ranks of 2 replicas,
// every message of 10 Alltoallvs goes to both replicas of its destination
// from both replicas of its source. Each process receives every message
// exactly once, with its content (the logical counters count one copy),
// sends copies to second replicas, and the job as a whole drops the
// copies that lost the race.
func TestFirstCopyWins_KylixVB(t *testing.T) {
	const p, s, rounds, size = 3, 2, 10, 4 << 10
	ctx, cancel := context.WithTimeout(context.Background(), guardTimeout)
	defer cancel()
	var problems commtest.Problems
	var mu sync.Mutex
	var dropped int64
	err := launch(ctx, p, func(ctx context.Context, cc comm.Comm) error {
		c := cc.(*Comm)
		before := c.Stats().Total()
		for round := range rounds {
			send := make([][]byte, p)
			for d := range send {
				send[d] = bytes.Repeat([]byte{byte(c.Rank()), byte(d), byte(round)}, size/3)
			}
			recv, err := c.Alltoallv(ctx, "paper.kylix.racing", send, nil)
			if err != nil {
				return err
			}
			for src, got := range recv {
				if want := bytes.Repeat([]byte{byte(src), byte(c.Rank()), byte(round)}, size/3); !bytes.Equal(got, want) {
					problems.Addf("process %d: round %d: wrong message from rank %d", c.Process(), round, src)
				}
			}
		}
		got := c.Stats().Total().Sub(before)
		if want := int64(rounds * (p - 1) * (size / 3 * 3)); got.BytesRecv != want || got.BytesSent != want {
			problems.Addf("process %d: %d bytes received, %d sent; want %d each (one copy of each message)", c.Process(), got.BytesRecv, got.BytesSent, want)
		}
		st := c.ReplicaStats()
		if st.ExtraMessages == 0 {
			problems.Addf("process %d sent no copy to a second replica", c.Process())
		}
		mu.Lock()
		dropped += st.DroppedMessages
		mu.Unlock()
		return nil
	}, launchOptions{replicas: s, peerTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	problems.Report(t)
	if dropped == 0 {
		t.Error("no late copy was dropped: every message arrived once only")
	}
}

// TestShrinkPastAFailedRank_ZhangQiuVB: rank 2 of 4 dies; the survivors
// see the failure, shrink past it (the ranks above it move down by one)
// and go on with 5 more iterations over the 3 of them.
func TestShrinkPastAFailedRank_ZhangQiuVB(t *testing.T) {
	const p, lost, after = 4, 2, 5
	j := newGrowJob(t)
	ranks := j.connectAll(p)
	var wg sync.WaitGroup
	var problems commtest.Problems
	for old, c := range ranks {
		if old == lost {
			crash(c)
			continue
		}
		wg.Go(func() {
			defer c.Close()
			if err := shrinkAndGoOn(j.ctx, c, lost, after); err != nil {
				problems.Addf("old rank %d: %v", old, err)
			}
		})
	}
	wg.Wait()
	problems.Report(t)
}

// shrinkAndGoOn is a survivor of the loss of rank lost: its next call
// fails naming lost, it shrinks, and runs after iterations on the new
// Comm, checking its new rank and the survivors' sum of their old ranks.
func shrinkAndGoOn(ctx context.Context, c *Comm, lost, after int) error {
	err := c.Barrier(ctx, "paper.zq.iteration")
	if err == nil {
		return fmt.Errorf("the iteration after losing rank %d succeeded", lost)
	}
	if e := checkBlamed(err, lost); e != nil {
		return e
	}
	nc, err := c.Shrink(ctx, err, 1)
	if err != nil {
		return err
	}
	defer nc.Close()
	old := c.Rank()
	if want := old - btoi(old > lost); nc.Rank() != want || nc.Size() != c.Size()-1 {
		return fmt.Errorf("rank %d of %d after the shrink, want %d of %d", nc.Rank(), nc.Size(), want, c.Size()-1)
	}
	for it := range after {
		v := []int64{int64(old)}
		if err := nc.AllreduceInt64(ctx, "paper.zq.iteration", v, comm.Sum); err != nil {
			return fmt.Errorf("iteration %d after the shrink: %w", it, err)
		}
		if v[0] != 0+1+3 {
			return fmt.Errorf("iteration %d after the shrink: sum of old ranks %d, want 4", it, v[0])
		}
	}
	return nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestJoinTakenInAtAnIterationBoundary_ZhangQiuVC: a process asks a job of
// 2 ranks to take it in; it waits in rank 0's lobby through 3 more
// iterations, which it takes no part in, until the boundary where the ranks
// share rank 0's count of waiting processes and grow by it; the next
// iteration sums over the 3 ranks, the joiner last.
func TestJoinTakenInAtAnIterationBoundary_ZhangQiuVC(t *testing.T) {
	const p = 2
	j := newGrowJob(t)
	comms := j.connectRanks(p)
	out := j.startJoiners(1, j.config(0, 1), growTag)
	waitPending(t, comms[0], 1)
	for it := range 3 {
		sums := make([]int64, p)
		var wg sync.WaitGroup
		for r, c := range comms {
			wg.Go(func() {
				v := []int64{int64(r)}
				if err := c.AllreduceInt64(j.ctx, "paper.zq.iteration", v, comm.Sum); err != nil {
					t.Errorf("rank %d: iteration %d: %v", r, it, err)
				}
				sums[r] = v[0]
			})
		}
		wg.Wait()
		if slices.ContainsFunc(sums, func(s int64) bool { return s != 0+1 }) || comms[0].PendingJoins() != 1 {
			t.Fatalf("iteration %d before the boundary: sums %v, %d waiting; want 1 each, 1 waiting", it, sums, comms[0].PendingJoins())
		}
	}
	// The boundary: the joiner gets rank 2 and adds 100 to the sum of the
	// old ranks 0 and 1 (growByOne).
	growByOne(t, j.ctx, comms, 1, out, 0+1+100)
}
