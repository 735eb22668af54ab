package pagerank

import (
	"context"
	"errors"
	"testing"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/inproc"
	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/internal/fielderr"
	"github.com/graphrun/graphrun/results"
)

// memInput is an Input over edges held in memory: rank r of size takes
// the edges at positions ≡ r (mod size).
func memInput(edges []graph.Edge, offset int64) Input {
	load := func(_ context.Context, rank, size int) (graph.EdgeShare, error) {
		var mine []graph.Edge
		for i := rank; i < len(edges); i += size {
			mine = append(mine, edges[i])
		}
		return graph.EdgeChunks{mine}, nil
	}
	return Input{
		Name: "mem", IDOffset: offset, Load: load,
		Share: func(ctx context.Context, c comm.Comm) (graph.EdgeShare, error) { return load(ctx, c.Rank(), c.Size()) },
	}
}

// runRanks runs the job on p in-process ranks (RunJob) and returns rank
// 0's report.
func runRanks(t *testing.T, p int, in Input, cfg Job) *Report {
	t.Helper()
	rep, err := RunJob(context.Background(), func(ctx context.Context, fn func(context.Context, comm.Comm) error) error {
		return inproc.Run(ctx, p, fn)
	}, in, cfg, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestRunRankReport: rank 0's report has the top vertices (ids shifted by
// the input's offset) and every vertex when asked, the same on 1 and 3
// ranks up to rounding, and the per-rank loads add up to the edges.
func TestRunRankReport(t *testing.T) {
	// A star into vertex 7 plus a chain: 7 ranks first.
	var edges []graph.Edge
	for u := int64(0); u < 7; u++ {
		edges = append(edges, graph.Edge{U: u, V: 7}, graph.Edge{U: u, V: u + 1})
	}
	edges = append(edges, graph.Edge{U: 0, V: 7}) // duplicates (this one, and 6→7 twice) collapse
	cfg := Job{Config: DefaultConfig(), Top: 3, Gather: true}
	one := runRanks(t, 1, memInput(edges, 1), cfg)
	three := runRanks(t, 3, memInput(edges, 1), cfg)
	for _, rep := range []*Report{one, three} {
		if rep.Vertices != 8 || rep.Edges != 13 || rep.InputEdges != 15 || !rep.Converged || rep.WarnMaxIter {
			t.Fatalf("%d ranks: %+v", rep.NumRanks, rep.PageRankRun)
		}
		if len(rep.Top) != 3 || rep.Top[0].ID != 8 || len(rep.All) != 8 || rep.All[0].ID != 1 {
			t.Errorf("%d ranks: top %v, all %v", rep.NumRanks, rep.Top, rep.All)
		}
		var edgesSum int64
		for _, l := range rep.RankLoads {
			edgesSum += l.Edges
			if l.ColumnSums != results.PageRankColumnLoop { // 8 vertices: far below the gathers' threshold
				t.Errorf("%d ranks: rank %d summed its long columns by %q", rep.NumRanks, l.Rank, l.ColumnSums)
			}
		}
		if len(rep.RankLoads) != rep.NumRanks || edgesSum != rep.Edges {
			t.Errorf("%d ranks: loads %v", rep.NumRanks, rep.RankLoads)
		}
		if rep.Input != "mem" || rep.Command != "pagerank" {
			t.Errorf("input %q, command %q", rep.Input, rep.Command)
		}
	}
	for i := range one.All {
		if d := one.All[i].Score - three.All[i].Score; one.All[i].ID != three.All[i].ID || d > 1e-15 || d < -1e-15 {
			t.Errorf("vertex %d: %v on 1 rank, %v on 3", i, one.All[i], three.All[i])
		}
	}
}

// TestConfigCheck: an invalid configuration is refused before any input is
// read, naming the Go field at fault.
func TestConfigCheck(t *testing.T) {
	for field, mod := range map[string]func(*Job){
		"Top":       func(c *Job) { c.Top = -1 },
		"Alpha":     func(c *Job) { c.Alpha = 1.5 },
		"Tol":       func(c *Job) { c.Tol = 2 },
		"Partition": func(c *Job) { c.Partition = Partition(2) },
		"Allreduce": func(c *Job) { c.Allreduce = Allreduce(4) },
	} {
		cfg := Job{Config: DefaultConfig()}
		mod(&cfg)
		in := Input{Share: func(context.Context, comm.Comm) (graph.EdgeShare, error) {
			t.Fatalf("%s: the input was read", field)
			return nil, nil
		}}
		err := inproc.Run(context.Background(), 1, func(ctx context.Context, c comm.Comm) error {
			_, err := RunRank(ctx, c, in, cfg)
			return err
		})
		if fielderr.Field(err) != field || !errors.Is(err, ErrConfig) {
			t.Errorf("%s: %v", field, err)
		}
	}
}

// TestRunElasticRankNeedsTCP: the elastic run refuses a transport that
// cannot shrink or grow.
func TestRunElasticRankNeedsTCP(t *testing.T) {
	cfg := Job{Config: DefaultConfig()}
	err := inproc.Run(context.Background(), 1, func(ctx context.Context, c comm.Comm) error {
		_, err := RunElasticRank(ctx, c, memInput(nil, 0), cfg, "tag", t.Logf)
		return err
	})
	if err == nil {
		t.Fatal("an in-process rank ran elastic PageRank")
	}
}
