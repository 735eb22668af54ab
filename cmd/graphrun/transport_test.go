package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/graphrun/graphrun/comm/launch"
)

// asMain, when set in the environment, makes the test binary act as
// graphrun: --procs starts copies of os.Executable(), which is the test
// binary under go test.
const asMain = "GRAPHRUN_CLI_TEST_AS_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(asMain) == "1" {
		os.Exit(runMain(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// clearJobEnv makes the test independent of launcher variables in the
// environment it runs in, and lets --procs children act as graphrun.
func clearJobEnv(t *testing.T) {
	t.Helper()
	for _, l := range launch.Launchers() {
		for _, v := range []string{l.RankVar, l.SizeVar, l.LocalSize} {
			if v != "" {
				t.Setenv(v, "")
			}
		}
	}
	for _, v := range []string{launch.EnvCoordinator, launch.EnvToken, launch.EnvJob} {
		t.Setenv(v, "")
	}
	t.Setenv(asMain, "1")
}

// searchShape is what must not depend on the transport: per search the
// root, nedge and every level's frontier size.
func searchShape(t *testing.T, path string) string {
	t.Helper()
	var run struct {
		NBFS      int  `json:"NBFS"`
		NumRanks  int  `json:"num_ranks"`
		Validated bool `json:"validated"`
		Searches  []struct {
			Root   int64 `json:"root"`
			NEdge  int64 `json:"nedge"`
			Levels []struct {
				Frontier int64 `json:"frontier"`
			} `json:"levels"`
		} `json:"searches"`
	}
	readJSONFile(t, path, &run)
	if !run.Validated || run.NBFS != len(run.Searches) || run.NBFS == 0 {
		t.Fatalf("%s: validated %v, NBFS %d, %d searches", path, run.Validated, run.NBFS, len(run.Searches))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "ranks %d:", run.NumRanks)
	for _, s := range run.Searches {
		fmt.Fprintf(&b, " %d/%d/%d[", s.Root, s.NEdge, len(s.Levels))
		for _, l := range s.Levels {
			fmt.Fprintf(&b, "%d,", l.Frontier)
		}
		b.WriteString("]")
	}
	return b.String()
}

// TestBFSProcsMatchesInProcess: --procs 3 runs three TCP processes that
// print the same Graph500 block layout and find the same searches as
// --ranks 3, and write byte-identical trees.
func TestBFSProcsMatchesInProcess(t *testing.T) {
	clearJobEnv(t)
	dir := t.TempDir()
	common := []string{"bfs", "--scale", "10", "--roots", "12", "--threads", "1"}
	code, out, errOut := runCLI(t, append(common, "--procs", "3", "--json", filepath.Join(dir, "procs.json"))...)
	if code != 0 {
		t.Fatalf("--procs: exit %d, stderr:\n%s", code, errOut)
	}
	if !strings.HasPrefix(out, "SCALE:                          10\n") || !strings.Contains(out, "num_mpi_processes:              3\n") ||
		strings.Count(out, "\n") != len(graph500Fields) {
		t.Fatalf("--procs stdout is not rank 0's Graph500 block:\n%s", out)
	}
	if strings.Contains(errOut, "rank 1: SCALE") {
		t.Fatalf("a rank other than 0 printed a report:\n%s", errOut)
	}
	if code, _, errOut := runCLI(t, append(common, "--ranks", "3", "--json", filepath.Join(dir, "ranks.json"))...); code != 0 {
		t.Fatalf("--ranks: exit %d, stderr:\n%s", code, errOut)
	}
	if got, want := searchShape(t, filepath.Join(dir, "procs.json")), searchShape(t, filepath.Join(dir, "ranks.json")); got != want {
		t.Fatalf("searches differ:\n--procs 3: %s\n--ranks 3: %s", got, want)
	}

	// One search's tree, written by rank 0 of the TCP job; --json - puts the
	// JSON on stdout and the block on stderr, behind rank 0's prefix.
	tree := []string{"bfs", "--scale", "10", "--seed", "3", "--root", "5"}
	code, out, errOut = runCLI(t, append(tree, "--procs", "2", "--out", filepath.Join(dir, "procs.tree"), "--json", "-")...)
	if code != 0 {
		t.Fatalf("--procs --out: exit %d, stderr:\n%s", code, errOut)
	}
	if !json.Valid([]byte(out)) || !strings.Contains(errOut, "rank 0: SCALE:") {
		t.Fatalf("--json - over --procs: stdout %q, stderr:\n%s", out, errOut)
	}
	if code, _, errOut := runCLI(t, append(tree, "--ranks", "2", "--out", filepath.Join(dir, "ranks.tree"))...); code != 0 {
		t.Fatalf("--ranks --out: exit %d, stderr:\n%s", code, errOut)
	}
	a, errA := os.ReadFile(filepath.Join(dir, "procs.tree"))
	b, errB := os.ReadFile(filepath.Join(dir, "ranks.tree"))
	if errA != nil || errB != nil || len(a) == 0 || !bytes.Equal(a, b) {
		t.Fatalf("trees differ (%d and %d bytes; %v, %v)", len(a), len(b), errA, errB)
	}
}

func TestTransportBadInput(t *testing.T) {
	clearJobEnv(t)
	cases := []struct {
		name, want string
		env        map[string]string
		args       []string
	}{
		{"procs 0", "--procs: 0 is less than 1", nil, []string{"--procs", "0"}},
		{"procs and ranks", "--procs: cannot be combined with --ranks 2", nil, []string{"--procs", "2", "--ranks", "2"}},
		{"procs and inproc", "--procs: cannot be combined with --transport inproc", nil, []string{"--procs", "2", "--transport", "inproc"}},
		{"procs and rank", "--rank: cannot be combined with --procs", nil, []string{"--procs", "2", "--rank", "1"}},
		{"procs under mpirun", "--procs: cannot be used inside a Open MPI job (OMPI_COMM_WORLD_RANK is set)",
			map[string]string{"OMPI_COMM_WORLD_RANK": "0", "OMPI_COMM_WORLD_SIZE": "2"}, []string{"--procs", "2"}},
		{"unknown transport", "--transport: unknown transport \"udp\" (want inproc, tcp or mpi)", nil, []string{"--transport", "udp"}},
		{"mpi", mpiWant("--transport: mpi needs an MPI launcher: start graphrun with mpirun"), nil, []string{"--transport", "mpi"}},
		{"procs and mpi", "--procs: cannot be combined with --transport mpi", nil, []string{"--procs", "2", "--transport", "mpi"}},
		{"mpi and rank", mpiWant("--rank: cannot be combined with --transport mpi"), nil, []string{"--transport", "mpi", "--rank", "1", "--size", "2"}},
		{"mpi under Kubernetes", mpiWant("--transport: mpi needs an MPI launcher"),
			map[string]string{"JOB_COMPLETION_INDEX": "0", launch.EnvSize: "2"}, []string{"--transport", "mpi"}},
		{"mpi with a bad launcher variable", mpiWant("OMPI_COMM_WORLD_SIZE: \"x\" is not an integer"),
			map[string]string{"OMPI_COMM_WORLD_RANK": "0", "OMPI_COMM_WORLD_SIZE": "x"}, []string{"--transport", "mpi"}},
		{"ranks in an mpi job", mpiWant("--ranks: 2 in-process ranks cannot be combined with an MPI job of 2 processes (Open MPI)"),
			map[string]string{"OMPI_COMM_WORLD_RANK": "0", "OMPI_COMM_WORLD_SIZE": "2"}, []string{"--transport", "mpi", "--ranks", "2"}},
		{"tcp without a job", "--transport: tcp needs this process's rank", nil, []string{"--transport", "tcp"}},
		{"rank without size", "--size: missing", nil, []string{"--rank", "1"}},
		{"rank out of range", "--rank: rank 2 is outside [0, 2)", nil, []string{"--rank", "2", "--size", "2"}},
		{"no coordinator", "--coordinator: missing", nil, []string{"--rank", "1", "--size", "2"}},
		{"no token", "GRAPHRUN_TOKEN: not set", nil, []string{"--rank", "1", "--size", "2", "--coordinator", "127.0.0.1:1"}},
		{"short token", "GRAPHRUN_TOKEN: a token of 5 bytes is too short", map[string]string{launch.EnvToken: "short"},
			[]string{"--rank", "1", "--size", "2", "--coordinator", "127.0.0.1:1"}},
		{"bad launcher variable", "PMI_SIZE: \"four\" is not an integer", map[string]string{"PMI_RANK": "0", "PMI_SIZE": "four"}, nil},
		{"ranks under mpirun", mpiDefaultWant("--ranks: 2 in-process ranks cannot be combined with an MPI job of 2 processes (Open MPI)",
			"--ranks: 2 in-process ranks cannot be combined with a TCP job of 2 processes (Open MPI)"),
			map[string]string{"OMPI_COMM_WORLD_RANK": "0", "OMPI_COMM_WORLD_SIZE": "2", launch.EnvCoordinator: "127.0.0.1:1",
				launch.EnvToken: "0123456789abcdef0123456789abcdef"}, []string{"--ranks", "2"}},
		{"peer timeout", "--peer-timeout: 0s is not a positive duration", nil, []string{"--peer-timeout", "0"}},
		{"procs with a bad --json folder", "--json: /nonexistent/run.json: the directory /nonexistent does not exist", nil, []string{"--procs", "2", "--json", "/nonexistent/run.json"}},
		{"procs with a bad --out folder", "--out: /nonexistent/tree: the directory /nonexistent does not exist", nil, []string{"--procs", "2", "--root", "1", "--out", "/nonexistent/tree"}},
		{"bench sizes", "--sizes: \"0\" is not a size", nil, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			args := append([]string{"bfs", "--scale", "8"}, tc.args...)
			if strings.HasPrefix(tc.name, "bench") {
				args = []string{"bench", "transport", "--sizes", "1K,0"}
			}
			code, out, errOut := runCLI(t, args...)
			if code != 2 || out != "" || !strings.HasPrefix(errOut, "graphrun: "+tc.want) || strings.Count(errOut, "\n") != 1 {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit 2 and %q", code, out, errOut, tc.want)
			}
		})
	}
}

// mpiWant is the error of a --transport mpi command line that is wrong in
// a graphrun with the MPI backend: without the backend, every such command
// line fails saying how to build one.
func mpiWant(withBackend string) string {
	if launch.MPIBuilt {
		return withBackend
	}
	return "--transport: mpi: this graphrun was built without the MPI backend; build it with: go build -tags mpi ./cmd/graphrun"
}

// mpiDefaultWant is the error of a command line without --transport under
// an MPI launcher: its MPI job's with the MPI backend, where MPI is the
// default there, else its TCP job's.
func mpiDefaultWant(withBackend, without string) string {
	if launch.MPIBuilt {
		return withBackend
	}
	return without
}

// freeAddr returns a 127.0.0.1 address whose port was free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// rankProcess starts the test binary as graphrun with env on top of the
// test's environment, and returns it with its stdout and stderr.
func rankProcess(t *testing.T, env []string, args ...string) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	return cmd, &stdout, &stderr
}

// TestWrongTokenIsRefused: a rank started with another GRAPHRUN_TOKEN than
// rank 0's fails, saying the token is wrong, whether the job id is given
// (the coordinator refuses the rank's proof of the token, and logs it) or
// derived from the token.
func TestWrongTokenIsRefused(t *testing.T) {
	clearJobEnv(t)
	for _, jobEnv := range []string{launch.EnvJob + "=same-job", launch.EnvJob + "="} {
		coord := freeAddr(t)
		args := func(rank int) []string {
			return []string{"bfs", "--scale", "8", "--threads", "1", "--rank", fmt.Sprint(rank), "--size", "2", "--coordinator", coord}
		}
		rank0, _, stderr0 := rankProcess(t, []string{jobEnv, launch.EnvToken + "=" + strings.Repeat("ab", 32)}, args(0)...)
		rank1, _, stderr1 := rankProcess(t, []string{jobEnv, launch.EnvToken + "=" + strings.Repeat("cd", 32)}, args(1)...)

		done := make(chan error, 1)
		go func() { done <- rank1.Wait() }()
		select {
		case err := <-done:
			if code := rank1.ProcessState.ExitCode(); code != 1 {
				t.Fatalf("%s: rank 1 with the wrong token: %v (exit %d), stderr:\n%s", jobEnv, err, code, stderr1)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("%s: rank 1 with the wrong token still runs after 30 s, stderr:\n%s", jobEnv, stderr1)
		}
		if msg := stderr1.String(); !strings.Contains(msg, "graphrun: rank 1 of 2: joining the job at "+coord) || !strings.Contains(msg, "wrong token") {
			t.Fatalf("%s: rank 1's error does not say the token is wrong:\n%s", jobEnv, msg)
		}
		_ = rank0.Process.Kill()
		_ = rank0.Wait()
		logged := strings.Contains(stderr0.String(), "refused connection") && strings.Contains(stderr0.String(), "invalid proof of the job token")
		if jobEnv != launch.EnvJob+"=" && !logged {
			t.Fatalf("%s: rank 0 did not log the refused connection:\n%s", jobEnv, stderr0)
		}
	}
}

// TestTCPRanksByHand runs a two-process job started by hand (--rank,
// --size, --coordinator, GRAPHRUN_TOKEN): rank 0 prints the block, rank 1
// prints nothing on standard output.
func TestTCPRanksByHand(t *testing.T) {
	clearJobEnv(t)
	coord := freeAddr(t)
	env := []string{launch.EnvToken + "=a shared secret for this test", launch.EnvJob + "=by-hand"}
	var procs [2]*exec.Cmd
	var stdouts, stderrs [2]*bytes.Buffer
	for r := range 2 {
		procs[r], stdouts[r], stderrs[r] = rankProcess(t, env, "bfs", "--scale", "9", "--roots", "4", "--threads", "1",
			"--rank", fmt.Sprint(r), "--size", "2", "--coordinator", coord, "--listen", "127.0.0.1", "--peer-timeout", "20s")
	}
	for r := range 2 {
		if err := procs[r].Wait(); err != nil {
			t.Fatalf("rank %d: %v, stderr:\n%s", r, err, stderrs[r])
		}
	}
	if out := stdouts[0].String(); !strings.Contains(out, "NBFS:                           4\n") || !strings.Contains(out, "num_mpi_processes:              2\n") {
		t.Fatalf("rank 0 stdout:\n%s", out)
	}
	if stdouts[1].Len() != 0 {
		t.Fatalf("rank 1 printed on stdout:\n%s", stdouts[1])
	}
	if !strings.Contains(stderrs[1].String(), "rank 1 of 2: listening for peers on 127.0.0.1:") {
		t.Fatalf("rank 1 did not listen on --listen's address:\n%s", stderrs[1])
	}
}

func TestForwardedArgs(t *testing.T) {
	var n int
	var s string
	var b bool
	var list []string
	parent := &cobra.Command{Use: "graphrun"}
	child := &cobra.Command{Use: "transport", RunE: func(*cobra.Command, []string) error { return nil }}
	mid := &cobra.Command{Use: "bench"}
	parent.AddCommand(mid)
	mid.AddCommand(child)
	child.Flags().IntVar(&n, "procs", 0, "")
	child.Flags().StringVar(&s, "sizes", "", "")
	child.Flags().BoolVar(&b, "no-validate", false, "")
	child.Flags().StringSliceVar(&list, "list", nil, "")
	child.Flags().IntVar(&n, "unset", 7, "")
	var g globalFlags
	g.register(parent.PersistentFlags()) // the global flags given are forwarded too
	parent.SetArgs([]string{"bench", "transport", "--procs", "4", "--sizes", "1K, 2K", "--no-validate", "--list", "a,b", "--list", "c", "--peer-timeout", "5s", "--verbose"})
	if err := parent.Execute(); err != nil {
		t.Fatal(err)
	}
	got := forwardedArgs(child, "procs")
	want := []string{"bench", "transport", "--list=a", "--list=b", "--list=c", "--no-validate=true", "--peer-timeout=5s", "--sizes=1K, 2K", "--verbose=true"}
	if !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// TestProcsNamesTheRankAtFault: a bad line in the part of the input that
// rank 2 reads fails rank 2 with a usage error and the others because of
// it; the launcher names rank 2 first and exits with its status, 2, in
// every run, whichever rank exits first.
func TestProcsNamesTheRankAtFault(t *testing.T) {
	clearJobEnv(t)
	var b strings.Builder
	for i := range 3000 {
		if i == 2990 {
			b.WriteString("12 x\n")
			continue
		}
		fmt.Fprintf(&b, "%d %d\n", i%97, (i*7)%101)
	}
	path := writeEdges(t, b.String())
	for range 3 {
		code, _, errOut := runCLI(t, "pagerank", path, "--procs", "3", "--threads", "1")
		last := errOut[strings.LastIndex(strings.TrimSuffix(errOut, "\n"), "\n")+1:]
		if code != 2 || last != "graphrun: --procs 3: rank 2 exited with status 2; then ranks 0, 1 failed because of another rank\n" {
			t.Fatalf("exit %d, last line %q; stderr:\n%s", code, last, errOut)
		}
		if !strings.Contains(errOut, "rank 2: graphrun: rank 2 of 3: ") || !strings.Contains(errOut, ":2991: ") {
			t.Fatalf("rank 2's error does not name the line:\n%s", errOut)
		}
	}
}

// TestReplicas2DSameTree: bfs with --replicas on the 2D partition, with one
// block per rank and with two, writes the 1D tree (the grid is over the
// job's logical ranks, not its processes).
func TestReplicas2DSameTree(t *testing.T) {
	clearJobEnv(t)
	dir := t.TempDir()
	want := filepath.Join(dir, "want.txt")
	mustRun(t, "bfs", "--scale", "9", "--root", "3", "--out", want)
	for _, extra := range [][]string{{"--grid", "2x1"}, {"--blocks-per-rank", "2"}} {
		got := filepath.Join(dir, "got.txt")
		args := append([]string{"bfs", "--scale", "9", "--root", "3", "--partition", "2d", "--procs", "2", "--replicas", "2", "--threads", "1", "--out", got}, extra...)
		mustRun(t, args...)
		if !bytes.Equal(readFile(t, got), readFile(t, want)) {
			t.Fatalf("%v: the tree differs from the 1D one", args)
		}
	}
}

// TestReplicasReportOnce: with --replicas 2 only process 0 prints and
// writes; rank 0's other replica (process 2) does neither. The scores go to
// a FIFO, which a second writer would show twice.
func TestReplicasReportOnce(t *testing.T) {
	clearJobEnv(t)
	dir := t.TempDir()
	path := writeFile(t, filepath.Join(dir, "g.txt"), smallGraph)
	fifo := filepath.Join(dir, "scores.fifo")
	got := readFIFO(t, fifo)
	out, errOut := mustRun(t, "pagerank", path, "--procs", "2", "--replicas", "2", "--threads", "1", "--json", "-", "--out", fifo)
	if !json.Valid([]byte(out)) || strings.Count(out, `"iterations"`) != 1 {
		t.Fatalf("stdout is not one JSON document:\n%s", out)
	}
	if strings.Count(errOut, "PageRank of ") != 1 || !strings.Contains(errOut, "rank 0: PageRank of ") {
		t.Fatalf("the text report is not printed once, by process 0:\n%s", errOut)
	}
	if s := waitFIFO(t, got); lineCount(s) != scoreLines {
		t.Fatalf("the FIFO got %q, want the %d score lines once", s, scoreLines)
	}

	out, errOut = mustRun(t, "bfs", "--scale", "8", "--roots", "2", "--procs", "1", "--replicas", "2", "--threads", "1")
	if strings.Count(out, "SCALE:") != 1 || strings.Contains(errOut, "SCALE:") {
		t.Fatalf("bfs --replicas 2: stdout:\n%s\nstderr:\n%s", out, errOut)
	}
}
