package sssp

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/graphrun/graphrun/comm"
)

// The filter of remote requests changes no distance and no parent, whether
// its table holds every remote vertex or a few slots that the targets
// share (and evict each other from), on weights of few values, where paths
// tie and the larger parent of a phase must win.
func TestSentFilterKeepsTheTree(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	for trial := range 4 {
		g := randomWeighted(rng, int64(100+rng.IntN(400)), 2000+rng.IntN(3000))
		for i := range g.weights {
			g.weights[i] = float32(rng.IntN(4)) / 4
		}
		root := g.edges[0].U
		want, err := search(t, g, 1, root, Config{Threads: 1}, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range []int{2, 3, 4} {
			for _, slots := range []uint{0, 1, 3} {
				got, err := search(t, g, p, root, Config{Threads: 2}, func(ctx context.Context, c comm.Comm, s *SSSP, _ *Validator, res *Result) error {
					if !slices.Equal(res.Dist, want.dist[s.g.FirstGlobal:][:len(res.Dist)]) {
						return fmt.Errorf("full table: distances differ from 1 rank's")
					}
					for i := range s.sent {
						s.sent[i] = sentTable{slots: make([]sentSlot, 1<<slots), mask: 1<<slots - 1, shift: slots}
					}
					s.Prepare()
					again, err := s.Run(ctx, root)
					if err != nil {
						return err
					}
					dist, parent := want.dist[s.g.FirstGlobal:][:len(again.Dist)], want.parent[s.g.FirstGlobal:][:len(again.Parent)]
					if !slices.Equal(again.Dist, dist) || !slices.Equal(again.Parent, parent) {
						return fmt.Errorf("table of %d slots: the tree differs from 1 rank's", 1<<slots)
					}
					return nil
				})
				if err != nil {
					t.Fatalf("trial %d, %d ranks: %v", trial, p, err)
				}
				if !slices.Equal(got.parent, want.parent) {
					t.Fatalf("trial %d, %d ranks: parents differ from 1 rank's", trial, p)
				}
			}
		}
	}
}
