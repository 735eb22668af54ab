package tcp

// Adversarial tests over loopback: floods of unauthenticated connections
// at the coordinator and at rank 0's lobby. The job must still form and
// compute the right answer, the listener's heap must stay bounded, and the
// refusals must be logged once per cause, not once per connection.

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

const (
	floodConns = 200
	floodFrame = 1 << 20 // payload bytes of every flood frame
	// floodHeapLimit bounds the heap growth the flood may cause.
	floodHeapLimit = 64 << 20
)

// heapPeak samples the heap in use every few milliseconds until stop is
// called, which returns the largest growth over the heap at the start.
func heapPeak() (stop func() uint64) {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	quit, done := make(chan struct{}), make(chan uint64)
	go func() {
		var peak uint64
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > base {
				peak = max(peak, ms.HeapInuse-base)
			}
			select {
			case <-quit:
				done <- peak
				return
			case <-tick.C:
			}
		}
	}()
	return func() uint64 { close(quit); return <-done }
}

// flood opens floodConns connections to addr, each sending one frame: a
// valid header of type t claiming floodFrame payload bytes, then the
// payload. It returns once every connection is open (the frames may still
// be on their way) and a function that waits for the writers to finish.
func flood(t *testing.T, addr string, ft FrameType, job string) (wait func()) {
	t.Helper()
	frame := AppendFrame(nil, Frame{Type: ft, Job: jobHash(job), Src: 1}, make([]byte, floodFrame)) // shared, only read
	var dialed, finished sync.WaitGroup
	for range floodConns {
		dialed.Add(1)
		finished.Go(func() {
			conn, err := net.Dial("tcp", addr)
			dialed.Done()
			if err != nil {
				t.Errorf("flood: %v", err)
				return
			}
			defer conn.Close()
			_ = conn.SetDeadline(time.Now().Add(guardTimeout))
			_, _ = conn.Write(frame)         // the listener may refuse it midway
			_, _ = io.Copy(io.Discard, conn) // until the listener closes the connection
		})
	}
	dialed.Wait()
	return finished.Wait
}

// countLines counts the log lines containing every one of parts, and checks
// that each is one line.
func countLines(t *testing.T, logs []string, parts ...string) int {
	t.Helper()
	n := 0
	for _, line := range logs {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(line, p)
		}
		if all {
			n++
			if strings.Contains(line, "\n") {
				t.Errorf("log line of several lines: %q", line)
			}
		}
	}
	return n
}

// TestCoordinatorFlood floods the coordinator with 200 connections, each
// sending a 1 MiB registration frame, while the job forms.
func TestCoordinatorFlood(t *testing.T) {
	j := newTestJob(t, 3, nil)
	stop := heapPeak()
	wait := flood(t, j.base.Coordinator, FrameRegister, j.base.JobID)
	for r := range 3 {
		j.start(r)
	}
	j.runHealthy()
	wait()
	grew := stop()
	t.Logf("heap grew by at most %.1f MiB during the flood", float64(grew)/(1<<20))
	if grew > floodHeapLimit {
		t.Errorf("the coordinator's heap grew by %.1f MiB under the flood, limit %d MiB", float64(grew)/(1<<20), floodHeapLimit>>20)
	}
	j.logs.mu.Lock()
	logs := append([]string(nil), j.logs.lines...)
	j.logs.mu.Unlock()
	// The coordinator may have closed before it read some of the frames.
	lines := countLines(t, logs, "coordinator: refused")
	if lines == 0 || lines > 4 {
		t.Errorf("%d log lines about refused connections, want one per cause and interval:\n%s", lines, strings.Join(logs, "\n"))
	}
}

// TestLobbyFlood floods rank 0's lobby, open while the job runs, with 200
// connections each sending a 1 MiB join frame; a genuine process then
// joins and the grown job computes the right sum.
func TestLobbyFlood(t *testing.T) {
	j := newGrowJob(t)
	comms := j.connectRanks(2)
	stop := heapPeak()
	wait := flood(t, j.addr, FrameJoin, "grow-test")
	out := j.startJoiners(1, j.config(0, 1), growTag)
	waitPending(t, comms[0], 1)
	growByOne(t, j.ctx, comms, 1, out, 0+1+100)
	wait()
	grew := stop()
	t.Logf("heap grew by at most %.1f MiB during the flood", float64(grew)/(1<<20))
	if grew > floodHeapLimit {
		t.Errorf("rank 0's heap grew by %.1f MiB under the flood of its lobby, limit %d MiB", float64(grew)/(1<<20), floodHeapLimit>>20)
	}
	j.mu.Lock()
	logs := append([]string(nil), j.logs...)
	j.mu.Unlock()
	if lines := countLines(t, logs, "lobby: refused"); lines == 0 || lines > 4 {
		t.Errorf("%d log lines about refused processes, want one per cause and interval:\n%s", lines, strings.Join(logs, "\n"))
	}
}

// TestSilentConnectionsAreCapped opens 200 connections to rank 0's lobby
// that send nothing: the lobby keeps at most maxPending of them and closes
// the older ones at once rather than after the handshake timeout, and a
// genuine process still joins.
func TestSilentConnectionsAreCapped(t *testing.T) {
	j := newGrowJob(t)
	comms := j.connectRanks(2)
	closed := make(chan struct{}, floodConns)
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range floodConns {
		conn, err := net.Dial("tcp", j.addr)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, conn)
		go func() {
			_ = conn.SetReadDeadline(time.Now().Add(handshakeTimeout / 2))
			var b bytes.Buffer
			if _, err := io.Copy(&b, conn); err == nil { // the challenge, then the end of the stream
				closed <- struct{}{}
			}
		}()
	}
	deadline := time.After(handshakeTimeout / 2)
	for n := 0; n < floodConns-maxPending; n++ {
		select {
		case <-closed:
		case <-deadline:
			t.Fatalf("the lobby closed %d of %d silent connections within %v, want all but %d", n, floodConns, handshakeTimeout/2, maxPending)
		}
	}
	out := j.startJoiners(1, j.config(0, 1), growTag)
	waitPending(t, comms[0], 1)
	growByOne(t, j.ctx, comms, 1, out, 0+1+100)
	j.mu.Lock()
	logs := append([]string(nil), j.logs...)
	j.mu.Unlock()
	if n := countLines(t, logs, "lobby: refused", "more than 64 connections"); n != 1 {
		t.Errorf("%d log lines about closing silent connections, want 1:\n%s", n, strings.Join(logs, "\n"))
	}
}

// refusalLines runs a refusal log over refusals and returns its lines.
func refusalLines(refusals []error) []string {
	var mu sync.Mutex
	var lines []string
	l := newRefusalLog(func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		lines = append(lines, fmt.Sprintf(format, args...))
	}, "tcp: coordinator", "connection", "connections")
	for i, err := range refusals {
		l.refused("127.0.0.1:"+strconv.Itoa(40000+i), err)
	}
	l.flush()
	return lines
}

// TestRefusalLog: one line per cause, the others counted in a last line.
func TestRefusalLog(t *testing.T) {
	var refusals []error
	for i := range 50 {
		refusals = append(refusals, fmt.Errorf("%w: %d payload bytes, limit %d", ErrFrameTooLarge, i+9000, preAuthMaxFrame))
		refusals = append(refusals, errBadProof)
		refusals = append(refusals, fmt.Errorf("registration of %d bytes is too short\nsecond line", i))
	}
	lines := refusalLines(refusals)
	if len(lines) != 6 {
		t.Fatalf("%d lines, want 3 first refusals and 3 counts:\n%s", len(lines), strings.Join(lines, "\n"))
	}
	for _, line := range lines[3:] {
		if !strings.HasPrefix(line, "tcp: coordinator: refused 49 more connections: ") {
			t.Errorf("count line %q", line)
		}
	}
	for _, line := range lines {
		if strings.Contains(line, "\n") {
			t.Errorf("line %q spans lines", line)
		}
	}
}
