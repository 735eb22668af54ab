package bfs

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/gen/kronecker"
	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/internal/testgraph/csrtest"
	"github.com/graphrun/graphrun/partition"
)

// layoutRun is one search's gathered tree on one layout, with the
// validator's verdict and the entries the search scanned on rank 0.
type layoutRun struct {
	parent []int64
	level  []int32
	verr   error
}

// searchBothLayouts searches g from root on p ranks in mode, once over the
// plain rows kernel 1 built and once over the same rows packed
// (graph.PackCSR), and validates each result over the rows it searched.
func searchBothLayouts(t *testing.T, g csrtest.Graph, root int64, p, threads int, mode Config) (plain, packed layoutRun) {
	t.Helper()
	runs := [2]*layoutRun{&plain, &packed}
	for _, r := range runs {
		r.parent, r.level = make([]int64, g.N), make([]int32, g.N)
	}
	verrs := make([][2]error, p)
	mode.Threads = threads
	csrtest.OnRanks(t, g, p, threads, func(ctx context.Context, c comm.Comm, csr *graph.CSR, part partition.Block1D) error {
		layouts := [2]*graph.CSR{csr, graph.PackCSR(csr, threads)}
		if err := graph.CheckPacked(layouts[1]); err != nil {
			return err
		}
		for i, lg := range layouts {
			b, err := New(c, lg, part, mode)
			if err != nil {
				return err
			}
			res, ne, err := searchCounted(ctx, c, b, lg, root)
			if err != nil {
				return err
			}
			copy(runs[i].parent[lg.FirstGlobal:], res.Parent)
			copy(runs[i].level[lg.FirstGlobal:], res.Level)
			_, verrs[c.Rank()][i] = Validate(ctx, c, lg, part, root, slices.Clone(res.Parent), slices.Clone(res.Level), ne, threads)
		}
		return nil
	})
	plain.verr, packed.verr = verrs[0][0], verrs[0][1]
	return plain, packed
}

// TestPackedTreesMatchPlain: over random graphs of every shape and a
// Kronecker graph, on 1, 3 and 4 ranks, every exchange, codec and direction
// gives the same tree over packed rows as over plain ones, and it validates
// over the packed rows.
func TestPackedTreesMatchPlain(t *testing.T) {
	rng := rand.New(rand.NewPCG(36, 27))
	graphs := 24
	if testing.Short() {
		graphs = 6
	}
	var cases []csrtest.Graph
	for i := range graphs {
		cases = append(cases, csrtest.Random(rng, i))
	}
	kp := kronecker.DefaultParams(10)
	kron := csrtest.Graph{Name: "kronecker 10", N: kp.NumVertices(), Edges: make([]graph.Edge, kp.NumEdges())}
	kp.GenerateParallel(0, kron.Edges, 2)
	cases = append(cases, kron)
	modes := allModes()
	for i, g := range cases {
		root := rng.Int64N(g.N)
		p := []int{1, 3, 4}[i%3]
		threads := 1 + rng.IntN(3)
		for k, mode := range modes {
			if g.N > 1000 || k%4 == i%4 || k < len(searchModes) { // every mode on the big graph, a quarter of them on the others
				plain, packed := searchBothLayouts(t, g, root, p, threads, mode)
				where := fmt.Sprintf("graph %d (%s, n=%d, root %d), %d ranks, %v", i, g.Name, g.N, root, p, mode)
				if !slices.Equal(plain.parent, packed.parent) || !slices.Equal(plain.level, packed.level) {
					t.Fatalf("%s: packed tree differs from the plain one", where)
				}
				if plain.verr != nil || packed.verr != nil {
					t.Fatalf("%s: validation: plain %v, packed %v", where, plain.verr, packed.verr)
				}
			}
		}
	}
}

// TestPackedValidatorRejects: the validator reading packed rows finds a
// non-edge parent and a level jump as the plain one does.
func TestPackedValidatorRejects(t *testing.T) {
	kp := kronecker.DefaultParams(9)
	g := csrtest.Graph{Name: "kronecker 9", N: kp.NumVertices(), Edges: make([]graph.Edge, kp.NumEdges())}
	kp.GenerateParallel(0, g.Edges, 1)
	root := g.Edges[0].U
	wantParent, wantLevel, nedge := serialBFS(g, root)
	for _, p := range []int{1, 3} {
		for name, corrupt := range map[string]func(parent []int64, level []int32){
			"non-edge parent": func(parent []int64, level []int32) {
				for v := range parent {
					if level[v] == 2 {
						for u := range parent {
							if level[u] == 1 && !slices.Contains(neighbours(g, int64(v)), int64(u)) {
								parent[v] = int64(u)
								return
							}
						}
					}
				}
			},
			"level jump": func(parent []int64, level []int32) {
				for v := range level {
					if level[v] > 1 {
						level[v] += 2
						return
					}
				}
			},
		} {
			parent, level := slices.Clone(wantParent), slices.Clone(wantLevel)
			corrupt(parent, level)
			errs := make([]error, p)
			csrtest.OnRanks(t, g, p, 2, func(ctx context.Context, c comm.Comm, csr *graph.CSR, part partition.Block1D) error {
				lo, hi := csr.FirstGlobal, csr.FirstGlobal+int64(csr.NumLocal)
				_, errs[c.Rank()] = Validate(ctx, c, graph.PackCSR(csr, 2), part, root, slices.Clone(parent[lo:hi]), slices.Clone(level[lo:hi]), nedge, 2)
				return nil
			})
			if errs[0] == nil {
				t.Errorf("%d ranks, %s: the packed rows' validator accepted it", p, name)
			}
		}
	}
}

// neighbours lists v's neighbours in g.
func neighbours(g csrtest.Graph, v int64) []int64 {
	var out []int64
	for _, e := range g.Edges {
		switch v {
		case e.U:
			out = append(out, e.V)
		case e.V:
			out = append(out, e.U)
		}
	}
	return out
}
