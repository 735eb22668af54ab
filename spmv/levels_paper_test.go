package spmv

// Tests of the level loop named after what they check in Lv et al. §III
// (one SpMV per level until a level finds nothing, the counts reduced at
// every level) and in Beamer et al. (the direction rule). Both are cited in
// full in the package documentation (doc.go).

import (
	"context"
	"fmt"
	"testing"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/inproc"
)

// TestDirectionRuleSwitchesAtAlphaAndBeta_Beamer: top-down turns bottom-up
// once the frontier's edges exceed the unexplored edges / DefaultAlpha, and
// bottom-up turns back once the frontier shrinks to n / DefaultBeta
// vertices or fewer; a fixed policy is always kept.
func TestDirectionRuleSwitchesAtAlphaAndBeta_Beamer(t *testing.T) {
	const n, unexplored = 18000, 15000
	cases := []struct {
		current               Direction
		size, previous, edges int64
		want                  Direction
	}{
		{DirectionTopDown, 10, 1, unexplored / DefaultAlpha, DirectionTopDown},
		{DirectionTopDown, 10, 1, unexplored/DefaultAlpha + 1, DirectionBottomUp},
		{DirectionBottomUp, n / DefaultBeta, n, 0, DirectionTopDown},
		{DirectionBottomUp, n/DefaultBeta + 1, n, 0, DirectionBottomUp},
		{DirectionBottomUp, 10, 5, 0, DirectionBottomUp}, // still growing
	}
	for _, c := range cases {
		if got := nextDirection(DirectionAuto, c.current, c.size, c.previous, c.edges, unexplored, n); got != c.want {
			t.Errorf("%v with frontier %d (previous %d), %d edges: %v, want %v", c.current, c.size, c.previous, c.edges, got, c.want)
		}
	}
	for _, policy := range []Direction{DirectionTopDown, DirectionBottomUp} {
		if got := nextDirection(policy, DirectionTopDown, 1, 1, unexplored, unexplored, n); got != policy {
			t.Errorf("policy %v: chose %v", policy, got)
		}
	}
}

// pathEngine searches a path 0 - 1 - … - length−1 from vertex 0 on one rank:
// level l finds vertex l. It counts the loop's calls.
type pathEngine struct {
	length                           int32
	prepares, reduces, traverses     int
	settles                          int
	lastLevel                        int32
	settledCounts                    [][2]int64
	directionsAsked, directionsGiven []Direction
}

func (e *pathEngine) Prepare() { e.prepares++ }

func (e *pathEngine) Allreduce(context.Context, []int64) error { e.reduces++; return nil }

func (e *pathEngine) LocalEdges() int64 { return 2 * int64(e.length-1) }

func (e *pathEngine) Start(int64, Direction) int64 { return 1 }

func (e *pathEngine) Traverse(_ context.Context, lvl int32, dir Direction) (found, degree int64, err error) {
	e.traverses++
	e.directionsGiven = append(e.directionsGiven, dir)
	if lvl != e.lastLevel+1 {
		return 0, 0, fmt.Errorf("level %d after %d", lvl, e.lastLevel)
	}
	e.lastLevel = lvl
	if lvl >= e.length {
		return 0, 0, nil
	}
	return 1, 2, nil
}

func (e *pathEngine) Settle(_ context.Context, dir Direction, counts []int64, decide func([]int64) Direction) (Direction, error) {
	e.settles++
	e.settledCounts = append(e.settledCounts, [2]int64{counts[0], counts[1]})
	next := decide(counts)
	e.directionsAsked = append(e.directionsAsked, next)
	return next, nil
}

// TestLevelLoopRunsOneStepPerLevelUntilNothingIsFound_SecIII: Levels.Run
// calls the engine once per level (never per vertex), ends at the first
// level that finds nothing, records one LevelStats per step with the
// frontier the counts report, and hands each level the direction the rule
// chose after the previous one.
func TestLevelLoopRunsOneStepPerLevelUntilNothingIsFound_SecIII(t *testing.T) {
	err := inproc.Run(context.Background(), 1, func(ctx context.Context, c comm.Comm) error {
		e := &pathEngine{length: 6}
		l := NewLevels(c, DirectionAuto, 6)
		steps, err := l.Run(ctx, e, 0)
		if err != nil {
			return err
		}
		if len(steps) != 7 || e.traverses != 6 || e.settles != 6 || e.prepares != 1 || e.reduces != 2 {
			return fmt.Errorf("%d steps, %d traversals, %d settles, %d prepares, %d allreduces; want 7, 6, 6, 1, 2",
				len(steps), e.traverses, e.settles, e.prepares, e.reduces)
		}
		for k, s := range steps {
			want := int64(1)
			if k == len(steps)-1 {
				want = 0
			}
			if s.Level != k || s.Frontier != want {
				return fmt.Errorf("step %d: level %d, frontier %d; want level %d, frontier %d", k, s.Level, s.Frontier, k, want)
			}
		}
		if e.directionsGiven[0] != DirectionTopDown {
			return fmt.Errorf("first level %v, want top-down", e.directionsGiven[0])
		}
		for k := 1; k < len(e.directionsGiven); k++ {
			if e.directionsGiven[k] != e.directionsAsked[k-1] {
				return fmt.Errorf("level %d ran %v, the rule chose %v", k+1, e.directionsGiven[k], e.directionsAsked[k-1])
			}
		}
		// A second search after Prepare: no new prepare inside Run, and the
		// total degree is not reduced again.
		l.Prepare(e)
		e.lastLevel, e.reduces = 0, 0
		if _, err := l.Run(ctx, e, 0); err != nil {
			return err
		}
		if e.prepares != 2 || e.reduces != 1 {
			return fmt.Errorf("second search: %d prepares in all, %d allreduces; want 2, 1", e.prepares, e.reduces)
		}
		if _, err := l.Run(ctx, e, 6); err == nil {
			return fmt.Errorf("root 6 of 6 vertices accepted")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
