package partition

import "testing"

func TestBlock1DCoversEveryVertexOnce(t *testing.T) {
	for _, n := range []int64{1, 2, 63, 64, 65, 1000, 1 << 20} {
		for _, p := range []int{1, 2, 3, 7, 8, 64} {
			b, err := NewBlock1D(n, p)
			if err != nil {
				t.Fatal(err)
			}
			if b.Block%64 != 0 {
				t.Fatalf("block %d not a multiple of 64", b.Block)
			}
			var total int64
			for r := 0; r < p; r++ {
				total += int64(b.Count(r))
				if b.Count(r) > 0 && b.Owner(b.First(r)) != r {
					t.Fatalf("n=%d p=%d: first vertex of rank %d owned by %d", n, p, r, b.Owner(b.First(r)))
				}
				if b.Words(r) != (b.Count(r)+63)/64 {
					t.Fatal("Words")
				}
			}
			if total != n {
				t.Fatalf("n=%d p=%d: ranks own %d vertices", n, p, total)
			}
			for _, g := range []int64{0, n / 2, n - 1} {
				r := b.Owner(g)
				if r < 0 || r >= p || b.Global(r, b.Local(g)) != g || int(b.Local(g)) >= b.Count(r) {
					t.Fatalf("n=%d p=%d: vertex %d maps to rank %d local %d", n, p, g, r, b.Local(g))
				}
			}
		}
	}
}

func TestBlock1DRejects(t *testing.T) {
	if _, err := NewBlock1D(0, 1); err == nil {
		t.Fatal("zero vertices accepted")
	}
	if _, err := NewBlock1D(10, 0); err == nil {
		t.Fatal("zero ranks accepted")
	}
	if _, err := NewBlock1D(1<<40, 1); err == nil {
		t.Fatal("local ids beyond uint32 accepted")
	}
	if _, err := NewBlock1D(1<<40, 256); err != nil {
		t.Fatal(err)
	}
}
