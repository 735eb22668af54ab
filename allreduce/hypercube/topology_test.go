package hypercube

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// linkTable renders t as the tests' tables: per member, its links by
// dimension (Link.String).
func linkTable(t *Topology) map[int][]string {
	out := make(map[int][]string)
	for _, id := range t.Members() {
		for d := range t.Dims() {
			out[id] = append(out[id], t.Link(id, d).String())
		}
	}
	return out
}

func checkTable(t *testing.T, what string, topo *Topology, want map[int][]string) {
	t.Helper()
	got := linkTable(topo)
	if len(got) != len(want) {
		t.Errorf("%s: %d nodes, want %d\n%s", what, len(got), len(want), topo)
		return
	}
	for id, links := range want {
		if !slices.Equal(got[id], links) {
			t.Errorf("%s: node %d links %q, want %q\n%s", what, id, got[id], links, topo)
		}
	}
	if topo.Rebalanced() {
		t.Errorf("%s: rebalanced, want the paper's links\n%s", what, topo)
	}
}

// TestTopologyFig7 adds nodes 0–5 one by one as Zhang and Qiu §IV-C and Fig. 7
// do: node 2 first sends to node 1 on dimension 0, pairs with node 3 once it
// joins; nodes 4 and 5 send to nodes 3 and 2 on the dimensions where their
// partners are missing.
func TestTopologyFig7(t *testing.T) {
	steps := []struct {
		dims  int
		links map[int][]string
	}{
		{1, map[int][]string{0: {"-1"}}},
		{1, map[int][]string{0: {"pair 1"}, 1: {"pair 0"}}},
		{2, map[int][]string{
			0: {"pair 1", "pair 2"},
			1: {"pair 0 recv 2", "-1"},
			2: {"send 1", "pair 0"},
		}},
		{2, map[int][]string{
			0: {"pair 1", "pair 2"},
			1: {"pair 0", "pair 3"},
			2: {"pair 3", "pair 0"},
			3: {"pair 2", "pair 1"},
		}},
		{3, map[int][]string{
			0: {"pair 1", "pair 2", "pair 4"},
			1: {"pair 0", "pair 3", "-1"},
			2: {"pair 3", "pair 0 recv 4", "-1"},
			3: {"pair 2 recv 4", "pair 1", "-1"},
			4: {"send 3", "send 2", "pair 0"},
		}},
		{3, map[int][]string{
			0: {"pair 1", "pair 2", "pair 4"},
			1: {"pair 0", "pair 3", "pair 5"},
			2: {"pair 3", "pair 0 recv 4", "-1"},
			3: {"pair 2", "pair 1 recv 5", "-1"},
			4: {"pair 5", "send 2", "pair 0"},
			5: {"pair 4", "send 3", "pair 1"},
		}},
	}
	for i, s := range steps {
		topo, err := NewTopology(i + 1)
		if err != nil {
			t.Fatal(err)
		}
		if topo.Dims() != s.dims {
			t.Errorf("nodes 0–%d: %d dims, want %d", i, topo.Dims(), s.dims)
		}
		checkTable(t, fmt.Sprintf("nodes 0–%d", i), topo, s.links)
	}
}

// TestTopologyFig8 removes node 3 from nodes 0–5 and adds it back (Zhang
// and Qiu §IV-D, Fig. 8): node 2 turns to node 5, nodes 1 and 5 lose their
// link on dimension 1 (−2: node 3 may come back) and 3 is a freed id; with
// node 3 back the topology is the original one.
func TestTopologyFig8(t *testing.T) {
	topo, err := NewTopology(6)
	if err != nil {
		t.Fatal(err)
	}
	full := linkTable(topo)
	without, err := TopologyOf([]int{0, 1, 2, 4, 5})
	if err != nil {
		t.Fatal(err)
	}
	checkTable(t, "without node 3", without, map[int][]string{
		0: {"pair 1", "pair 2", "pair 4"},
		1: {"pair 0", "-2", "pair 5"},
		2: {"send 5", "pair 0 recv 4", "-1"},
		4: {"pair 5", "send 2", "pair 0"},
		5: {"pair 4 recv 2", "-2", "pair 1"},
	})
	if got := without.Freed(); !slices.Equal(got, []int{3}) {
		t.Errorf("freed ids %v, want [3]", got)
	}
	back, err := TopologyOf([]int{5, 4, 3, 2, 1, 0})
	if err != nil {
		t.Fatal(err)
	}
	checkTable(t, "node 3 back", back, full)
	if len(back.Freed()) != 0 {
		t.Errorf("freed ids %v after re-adding", back.Freed())
	}
}

// TestTopologyRebalance: removing node 3 from nodes 0–4 leaves node 4
// without a link on dimension 0 under the paper's rules, so node 1 would
// never receive node 4's value; the topology rebalances onto positions.
func TestTopologyRebalance(t *testing.T) {
	topo, err := TopologyOf([]int{0, 1, 2, 4})
	if err != nil {
		t.Fatal(err)
	}
	if !topo.Rebalanced() {
		t.Fatalf("members 0, 1, 2, 4 not rebalanced:\n%s", topo)
	}
	want := map[int][]string{
		0: {"pair 1", "pair 2"},
		1: {"pair 0", "pair 4"},
		2: {"pair 4", "pair 0"},
		4: {"pair 2", "pair 1"},
	}
	got := linkTable(topo)
	for id, links := range want {
		if !slices.Equal(got[id], links) {
			t.Errorf("node %d links %q, want %q", id, got[id], links)
		}
	}
	if topo.Dims() != 2 {
		t.Errorf("%d dims, want 2", topo.Dims())
	}
}

// TestTopologyDenseExact: the paper's rules pass the exactness check on the
// dense memberships 0 … p−1 (the rebalancing fallback relies on it).
func TestTopologyDenseExact(t *testing.T) {
	limit := 600
	if testing.Short() {
		limit = 200
	}
	for p := 1; p <= limit; p++ {
		topo, err := NewTopology(p)
		if err != nil {
			t.Fatal(err)
		}
		if topo.Rebalanced() {
			t.Fatalf("dense topology of %d nodes rebalanced", p)
		}
		if want := dimsFor(p - 1); topo.Dims() != want {
			t.Fatalf("%d nodes: %d dims, want %d", p, topo.Dims(), want)
		}
	}
	for _, p := range []int{1024, 1025, 2047, 3000} {
		if topo, _ := NewTopology(p); topo.Rebalanced() {
			t.Fatalf("dense topology of %d nodes rebalanced", p)
		}
	}
}

// checkInvariants checks the structure of any topology: ids and freed ids,
// dimensions, symmetric pairs, receiving links mirroring sending links, the
// paper's rules when not rebalanced, exactness, and independence from
// history (TopologyOf the same members gives the same links).
func checkInvariants(t *testing.T, topo *Topology) {
	t.Helper()
	members := topo.Members()
	if len(members) == 0 {
		if topo.Dims() != 0 || topo.MaxID() != -1 {
			t.Fatalf("empty topology with %d dims, max id %d", topo.Dims(), topo.MaxID())
		}
		return
	}
	for k, id := range members {
		if topo.Rank(id) != k || !topo.Has(id) {
			t.Fatalf("member %d at rank %d: Rank %d Has %v", id, k, topo.Rank(id), topo.Has(id))
		}
	}
	senders := make(map[[2]int][]int) // (receiver, dim) → senders
	for _, id := range members {
		for d := range topo.Dims() {
			l := topo.Link(id, d)
			switch l.Kind {
			case LinkPair:
				if back := topo.Link(l.Peer, d); back.Kind != LinkPair || back.Peer != id {
					t.Fatalf("node %d pairs with %d on dim %d, which has %v\n%s", id, l.Peer, d, back, topo)
				}
			case LinkSend:
				if !topo.Has(l.Peer) {
					t.Fatalf("node %d sends to absent %d", id, l.Peer)
				}
				senders[[2]int{l.Peer, d}] = append(senders[[2]int{l.Peer, d}], id)
			default:
				if l.Peer != NeighborNone && l.Peer != NeighborLost {
					t.Fatalf("node %d dim %d: no link but neighbour %d", id, d, l.Peer)
				}
			}
			if !topo.Rebalanced() {
				y := id ^ 1<<d
				switch {
				case topo.Has(y):
					if l.Kind != LinkPair || l.Peer != y {
						t.Fatalf("node %d dim %d: %v, want pair %d", id, d, l, y)
					}
				case topo.Has(y + 2<<d):
					if l.Kind != LinkSend || l.Peer != y+2<<d {
						t.Fatalf("node %d dim %d: %v, want send %d", id, d, l, y+2<<d)
					}
				case topo.Has(y - 2<<d):
					if l.Kind != LinkSend || l.Peer != y-2<<d {
						t.Fatalf("node %d dim %d: %v, want send %d", id, d, l, y-2<<d)
					}
				default:
					if l.Kind != LinkNone {
						t.Fatalf("node %d dim %d: %v, want no link", id, d, l)
					}
				}
			}
		}
	}
	for _, id := range members {
		for d := range topo.Dims() {
			if got, want := topo.Link(id, d).From, senders[[2]int{id, d}]; !slices.Equal(got, want) {
				t.Fatalf("node %d dim %d receives from %v, senders are %v", id, d, got, want)
			}
		}
	}
	var freed []int
	for id := 0; id < topo.MaxID(); id++ {
		if !topo.Has(id) {
			freed = append(freed, id)
		}
	}
	if !slices.Equal(topo.Freed(), freed) {
		t.Fatalf("Freed %v, want %v", topo.Freed(), freed)
	}
	if !topo.exact() {
		t.Fatalf("topology fails the exactness check:\n%s", topo)
	}
	again, err := TopologyOf(members)
	if err != nil {
		t.Fatal(err)
	}
	if again.String() != topo.String() {
		t.Fatalf("links depend on history:\n%s\nvs TopologyOf:\n%s", topo, again)
	}
}

// randomMembers is a random membership of up to maxID+1 ids, each present
// with probability 3/5 (freed ids anywhere, as after any sequence of
// additions and removals).
func randomMembers(rng *rand.Rand, maxID int) []int {
	var ids []int
	for id := range maxID + 1 {
		if rng.IntN(5) < 3 {
			ids = append(ids, id)
		}
	}
	return ids
}

// TestTopologyRandomMemberships checks the invariants on random
// memberships.
func TestTopologyRandomMemberships(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	rebalanced := 0
	const count = 2400
	for range count {
		topo, err := TopologyOf(randomMembers(rng, rng.IntN(24)))
		if err != nil {
			t.Fatal(err)
		}
		checkInvariants(t, topo)
		if topo.Rebalanced() {
			rebalanced++
		}
	}
	t.Logf("%d of %d memberships rebalanced", rebalanced, count)
}

func TestTopologyErrors(t *testing.T) {
	if _, err := NewTopology(-1); !errors.Is(err, ErrInvalid) {
		t.Errorf("NewTopology(-1): %v", err)
	}
	if _, err := TopologyOf([]int{1, 1}); !errors.Is(err, ErrInvalid) {
		t.Errorf("duplicate ids: %v", err)
	}
	if _, err := TopologyOf([]int{-3}); !errors.Is(err, ErrInvalid) {
		t.Errorf("negative id: %v", err)
	}
	topo, _ := TopologyOf([]int{0, 2, 5})
	if c := topo.Clone(); c.String() != topo.String() || !slices.Equal(c.Members(), []int{0, 2, 5}) || c.Has(1) {
		t.Errorf("Clone:\n%s\nof\n%s", c, topo)
	}
}
