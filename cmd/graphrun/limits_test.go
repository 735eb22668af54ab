package main

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/graphrun/graphrun/comm/inproc"
)

// TestLimitsRefusedBeforeWork: out-of-range values are exit 2 naming the
// flag, at once: in-process ranks above the ceiling, float flags that are
// not finite or not in their range, a graph whose size overflows.
func TestLimitsRefusedBeforeWork(t *testing.T) {
	graphPath := writeEdges(t, smallGraph)
	tooMany := fmt.Sprint(inproc.MaxRanks + 1)
	var cases []struct {
		args []string
		flag string
	}
	add := func(flag string, args ...string) {
		cases = append(cases, struct {
			args []string
			flag string
		}{args, flag})
	}
	add("--ranks", "bfs", "--scale", "10", "--ranks", "5000")
	add("--ranks", "bfs", "--scale", "10", "--ranks", tooMany)
	add("--ranks", "pagerank", graphPath, "--ranks", "5000")
	add("--ranks", "bench", "bfs-codecs", "--scale", "10", "--ranks", "5000", "--dir", t.TempDir())
	add("--ranks", "bench", "bfs-scaling", "--scale", "10", "--ranks", "5000", "--dir", t.TempDir())
	add("--ranks", "bench", "pagerank-allreduce", "--scale", "10", "--ranks", "5000", "--dir", t.TempDir())
	add("--ranks", "bench", "transport", "--ranks", "5000", "--dir", t.TempDir())
	add("--ranks", "bench", "allreduce-dense", "--ranks", "2,5000", "--dir", t.TempDir())
	for _, v := range []string{"Inf", "+Inf", "-Inf", "NaN", "0", "-1e-9", "2", "1e400"} {
		add("--tol", "pagerank", graphPath, "--tol", v)
	}
	for _, v := range []string{"Inf", "-Inf", "NaN", "-0.5", "1.5"} {
		add("--alpha", "pagerank", graphPath, "--alpha", v)
	}
	for _, v := range []string{"Inf", "NaN", "-1G", "0", "1e308G", "1e400"} {
		add("--link-bandwidth", "bench", "allreduce-dense", "--ranks", "2", "--sizes", "10", "--link-bandwidth", v, "--dir", t.TempDir())
	}
	for _, v := range []string{"bw=InfGbit/s,lat=1us", "bw=NaNGbit/s,lat=1us", "bw=1Gbit/s,lat=NaNus", "bw=1Gbit/s,lat=Infs", "bw=1Gbit/s,lat=1us,min-packet=InfMB", "bw=1e308GB/s,lat=1us"} {
		add("--model", "report", graphPath, "-o", "-", "--model", v)
	}
	add("--edgefactor", "bfs", "--scale", "28", "--edgefactor", "536870912")
	add("--edgefactor", "bfs", "--scale", "40", "--edgefactor", "65536")
	add("--edgefactor", "generate", "--scale", "36", "--edgefactor", "1099511627776", "-o", "-")
	for _, c := range cases {
		start := time.Now()
		code, stdout, errOut := runCLI(t, c.args...)
		if code != 2 || !strings.Contains(errOut, c.flag) || strings.Count(errOut, "\n") != 1 || stdout != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 naming %s", c.args, code, stdout, errOut, c.flag)
		}
		if took := time.Since(start); took > 2*time.Second {
			t.Errorf("%v: refused after %v, not at once", c.args, took)
		}
	}
}
