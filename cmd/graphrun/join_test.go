package main

import (
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/graphrun/graphrun/comm/launch"
)

// joinBound is how long a --join that finds no job may take: a couple of
// seconds of refused connections, and room for a loaded machine; far less
// than the minute a rendezvous waits (which it took before).
const joinBound = 30 * time.Second

// TestJoinAfterTheJobEnded: a --join process that finds nothing listening
// at the coordinator (its job ended) exits 0 promptly, saying so, as the
// documents say, instead of retrying for a minute and exiting 1.
func TestJoinAfterTheJobEnded(t *testing.T) {
	clearJobEnv(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // the job's rank 0, gone
	t.Setenv(launch.EnvToken, strings.Repeat("ab", 32))
	graph := writeFile(t, filepath.Join(t.TempDir(), "g.txt"), "0 1\n1 2\n2 0\n")
	start := time.Now()
	code, stdout, stderr := runCLI(t, "pagerank", graph, "--elastic", "--join", "--coordinator", addr)
	if d := time.Since(start); d > joinBound {
		t.Errorf("took %v", d)
	}
	if code != 0 || stdout != "" || !strings.Contains(stderr, "no job listens at "+addr+" (it ended, or never ran there: check the address): nothing to do") {
		t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant exit 0 saying no job listens", code, stdout, stderr)
	}
}
