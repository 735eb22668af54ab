package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestBFSReplicaLossKeepsTheResult: a bfs or sssp job of 2 logical ranks ×
// 2 replicas (Kylix §V) that loses one process mid-run — process 0, which
// writes the results in a healthy job, SIGKILLed or SIGSTOPped, or process
// 1 SIGSTOPped and never continued — ends in bounded time with exit status
// 0, a survivor's standard output block, --json and --out tree equal to an
// unreplicated run's (but for timings), and the lost process named.
func TestBFSReplicaLossKeepsTheResult(t *testing.T) {
	if testing.Short() {
		t.Skip("runs ten multi-process jobs")
	}
	clearJobEnv(t)
	dir := t.TempDir()
	common := []string{"--threads", "1", "--peer-timeout", "2s", "--procs", "2"}
	for _, c := range []struct {
		name   string
		args   []string // the run, without its outputs
		tree   bool     // with --out (a --root run)
		when   string   // the progress line after which the victim is hit
		victim int
		sig    syscall.Signal
		more   bool // one more case of a kind already covered: .ci/run's full set
	}{
		{"bfs/kill process 0", []string{"bfs", "-s", "14"}, false, "BFS 3:", 0, syscall.SIGKILL, false},
		{"bfs/stop process 0", []string{"bfs", "-s", "14"}, false, "BFS 3:", 0, syscall.SIGSTOP, false},
		{"bfs/stop process 1", []string{"bfs", "-s", "14"}, false, "BFS 3:", 1, syscall.SIGSTOP, true},
		// Hit during kernel 1, so that the tree is still to be written.
		{"bfs root/kill process 0", []string{"bfs", "-s", "16", "-r", "0"}, true, "generation:", 0, syscall.SIGKILL, false},
		{"bfs root/stop process 0", []string{"bfs", "-s", "16", "-r", "0"}, true, "generation:", 0, syscall.SIGSTOP, true},
		{"sssp/kill process 0", []string{"sssp", "-s", "12"}, false, "BFS 3:", 0, syscall.SIGKILL, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			skipUnlessAllReplicaLosses(t, c.more)
			name := regexp.MustCompile(`\W+`).ReplaceAllString(c.name, "-")
			outs := func(kind string) []string {
				args := append(append([]string{}, c.args...), common...)
				args = append(args, "--json", filepath.Join(dir, name+kind+".json"))
				if c.tree {
					args = append(args, "--out", filepath.Join(dir, name+kind+".tree"))
				}
				return args
			}
			refOut, _ := mustRun(t, outs("ref")...)
			code, stdout, stderr := runHitting(t, append(outs("hit"), "--replicas", "2"), c.when, c.victim, c.sig)
			if code != 0 {
				t.Fatalf("exit %d; stderr:\n%s", code, stderr)
			}
			if got, want := untimedBlock(stdout), untimedBlock(refOut); got != want || got == "" {
				t.Errorf("stdout\n%s\nwant the clean run's\n%s\nstderr:\n%s", got, want, stderr)
			}
			got, want := untimedRun(t, filepath.Join(dir, name+"hit.json")), untimedRun(t, filepath.Join(dir, name+"ref.json"))
			if !reflect.DeepEqual(got, want) {
				t.Errorf("--json\n%+v\nwant the clean run's\n%+v", got, want)
			}
			if c.tree && !bytes.Equal(readFile(t, filepath.Join(dir, name+"hit.tree")), readFile(t, filepath.Join(dir, name+"ref.tree"))) {
				t.Errorf("--out differs from the clean run's; stderr:\n%s", stderr)
			}
			if !regexp.MustCompile(fmt.Sprintf(`launch: process %d \(replica `, c.victim)).MatchString(stderr) {
				t.Errorf("the launcher does not name process %d:\n%s", c.victim, stderr)
			}
		})
	}
}

// untimedBlock is the Graph500 block without its timings.
func untimedBlock(s string) string {
	return regexp.MustCompile(`(?m)^.*(time|TEPS|validate|generation).*\n`).ReplaceAllString(s, "")
}

// bfsRunFacts are the fields of a bfs or sssp run's JSON that do not
// depend on timing: the graph, the searches' roots, edges, validation and
// levels.
type bfsRunFacts struct {
	Scale      int    `json:"SCALE"`
	EdgeFactor int    `json:"edgefactor"`
	NBFS       int    `json:"NBFS"`
	NumRanks   int    `json:"num_ranks"`
	Exchange   string `json:"exchange"`
	Validated  bool   `json:"validated"`
	Searches   []struct {
		Root      int64 `json:"root"`
		NEdge     int64 `json:"nedge"`
		Validated bool  `json:"validated"`
		Levels    []struct {
			Level    int   `json:"level"`
			Frontier int64 `json:"frontier"`
		} `json:"levels"`
	} `json:"searches"`
	SSSP *struct {
		Delta     float64 `json:"delta"`
		Validated bool    `json:"validated"`
		Searches  []struct {
			Root  int64 `json:"root"`
			NEdge int64 `json:"nedge"`
		} `json:"searches"`
	} `json:"sssp"`
}

// untimedRun reads a run's JSON file's bfsRunFacts.
func untimedRun(t *testing.T, path string) bfsRunFacts {
	t.Helper()
	var r bfsRunFacts
	if err := json.Unmarshal(readFile(t, path), &r); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if len(r.Searches) == 0 {
		t.Fatalf("%s: no searches", path)
	}
	return r
}

// stallBound is how long a job whose rank stopped may take to fail: the
// peer timeout (2 s), the launcher's grace for the silent rank (10 s), and
// room for a loaded machine.
const stallBound = 2 * time.Minute

// TestStalledRankIsNamed: in a job of processes without replicas, a rank
// stopped mid-run (SIGSTOP, never continued) is named as the rank at fault,
// as a dead one is, and the job ends in bounded time with status 1, no
// process left behind.
func TestStalledRankIsNamed(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a multi-process job")
	}
	// comm/launch's TestLocalNamesASilentRank covers the launcher's rule in
	// go test ./...; this end-to-end job waits out a peer timeout.
	skipUnlessAllReplicaLosses(t, true)
	clearJobEnv(t)
	start := time.Now()
	code, _, stderr := runHitting(t, []string{"bfs", "-s", "14", "--threads", "1", "--peer-timeout", "2s", "--procs", "2"}, "BFS 3:", 1, syscall.SIGSTOP)
	if code != 1 {
		t.Errorf("exit %d, want 1; stderr:\n%s", code, stderr)
	}
	want := "graphrun: --procs 2: rank 1 stopped responding (stopped or stalled: still running 10s after the job failed without it) and was ended; then rank 0 failed because of another rank"
	if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(want) + `$`).MatchString(stderr) {
		t.Errorf("stderr does not name the stopped rank as %q:\n%s", want, stderr)
	}
	if d := time.Since(start); d > stallBound {
		t.Errorf("the job took %v", d)
	}
	if pid := childWithRank(t, 1); pid != 0 {
		t.Errorf("process %d (rank 1) outlived the job", pid)
	}
}

// TestPeakMemoryIsTheJobs: under --procs 2 the peak-memory line and the
// JSON give the job's peak, the sum of its two processes' (each rank's
// rank_loads peak), per tuple, beside the largest process's; in-process
// ranks share one process, counted once.
func TestPeakMemoryIsTheJobs(t *testing.T) {
	clearJobEnv(t)
	dir := t.TempDir()
	for _, c := range []struct {
		args  []string
		procs int
	}{
		{[]string{"--procs", "2"}, 2},
		{[]string{"--ranks", "2"}, 1},
	} {
		j := filepath.Join(dir, c.args[0][2:]+".json")
		_, stderr := mustRun(t, append([]string{"bfs", "-s", "12", "-n", "2", "--threads", "1", "--json", j}, c.args...)...)
		var run struct {
			Peak      int64 `json:"peak_memory_bytes"`
			JobPeak   int64 `json:"job_peak_memory_bytes"`
			Processes int   `json:"processes"`
			Loads     []struct {
				Peak int64 `json:"peak_memory_bytes"`
			} `json:"rank_loads"`
		}
		if err := json.Unmarshal(readFile(t, j), &run); err != nil {
			t.Fatal(err)
		}
		var sum, largest int64
		for _, l := range run.Loads {
			sum += l.Peak
			largest = max(largest, l.Peak)
		}
		if c.procs == 1 {
			sum = largest // one process: its peak, once
		}
		if run.Processes != c.procs || run.JobPeak != sum || run.Peak != largest || sum <= 0 {
			t.Errorf("%v: processes %d, job peak %d, largest %d; want %d processes, %d (the ranks' %+v), %d",
				c.args, run.Processes, run.JobPeak, run.Peak, c.procs, sum, run.Loads, largest)
		}
		line := regexp.MustCompile(`(?m)^(rank 0: )?graphrun: peak memory .*$`).FindString(stderr)
		perTuple := fmt.Sprintf("(%.1f bytes per tuple)", float64(sum)/float64(16<<12))
		if !strings.Contains(line, perTuple) || (c.procs > 1) != strings.Contains(line, "the sum over the job's 2 processes") {
			t.Errorf("%v: peak memory line %q, want the job's %s", c.args, line, perTuple)
		}
	}
}
