package tcp

import (
	"context"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/commtest"
)

// TestGroupDeadNonMember crashes rank 3 of 4 (its sockets closed without a
// goodbye, as the kernel does for a killed process) while ranks 0 and 1
// exchange in their group: their group calls do not wait for it and
// succeed, and the next call of the whole job fails on every survivor,
// blaming rank 3.
func TestGroupDeadNonMember(t *testing.T) {
	const peerTimeout = 300 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), guardTimeout)
	defer cancel()
	var problems commtest.Problems
	var grouped sync.WaitGroup // the survivors are done with their group calls
	grouped.Add(3)
	err := launch(ctx, 4, func(ctx context.Context, cc comm.Comm) error {
		c := cc.(*Comm)
		r := c.Rank()
		if _, err := c.Allgatherv(ctx, "warmup", []byte{byte(r)}, nil); err != nil {
			return err
		}
		if r == 3 {
			for _, p := range c.peers {
				if p != nil {
					p.conn.(*net.TCPConn).SetLinger(0)
					p.conn.Close()
				}
			}
			return nil
		}
		// Wait until this rank's reader has seen rank 3 go, so that the
		// group calls below run after its death.
		c.mu.Lock()
		for c.peers[3].err == nil {
			c.cond.Wait()
		}
		c.mu.Unlock()
		members := []int{r}
		if r < 2 {
			members = []int{0, 1}
		}
		for round := range 3 {
			send := make([][]byte, len(members))
			for k := range send {
				send[k] = []byte{byte(r), byte(round)}
			}
			got, err := c.AlltoallvGroup(ctx, "group", members, send, nil)
			if err != nil {
				problems.Addf("rank %d: group call %d with rank 3 dead outside the group: %v", r, round, err)
				grouped.Done()
				return err
			}
			for k, m := range members {
				if string(got[k]) != string([]byte{byte(m), byte(round)}) {
					problems.Addf("rank %d: group call %d: %v from rank %d", r, round, got[k], m)
				}
			}
		}
		grouped.Done()
		grouped.Wait() // a survivor's failure would abort the others' group calls

		start := time.Now()
		err := c.Barrier(ctx, "whole job")
		if e := checkBlamed(err, 3); e != nil {
			problems.Addf("rank %d: the whole job's call after rank 3 died: %v", r, e)
		}
		if elapsed := time.Since(start); elapsed > peerTimeout+time.Second {
			problems.Addf("rank %d: the whole job's call failed after %v", r, elapsed)
		}
		return err
	}, launchOptions{peerTimeout: peerTimeout})
	problems.Report(t)
	if err == nil || !strings.Contains(err.Error(), "rank 3") {
		t.Errorf("launch returned %v, want an error naming rank 3", err)
	}
}

// fullOnly hides a Comm's comm.GroupExchanger, so that a comm.Sub over it
// runs every call as an Alltoallv of the whole job (what Sub did before
// group calls, and still does on comm/mpi).
type fullOnly struct{ comm.Comm }

// BenchmarkSubAlltoallv measures one comm.Sub Alltoallv of 64 bytes per
// peer in the rows of a 4×4 grid of 16 loopback ranks (the 2D BFS's row
// exchanges), as a group call (3 frames per rank) and as an Alltoallv of
// the whole job (15 frames per rank, 12 of them empty).
func BenchmarkSubAlltoallv(b *testing.B) {
	const p, g = 16, 4
	for _, mode := range []string{"group", "full"} {
		b.Run(mode, func(b *testing.B) {
			benchLoopback(b, p, func(c comm.Comm) func(ctx context.Context) error {
				parent := c
				if mode == "full" {
					parent = fullOnly{c}
				}
				row := c.Rank() / g
				members := []int{g * row, g*row + 1, g*row + 2, g*row + 3}
				sub, err := comm.NewSub(parent, members)
				if err != nil {
					b.Fatal(err)
				}
				send := make([][]byte, g)
				for k := range send {
					send[k] = make([]byte, 64)
				}
				var recv [][]byte
				return func(ctx context.Context) error {
					out, err := sub.Alltoallv(ctx, "bench.sub", send, recv)
					recv = out
					return err
				}
			})
		})
	}
}
