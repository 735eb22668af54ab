package graph500

import (
	"errors"
	"strings"
	"testing"

	"github.com/graphrun/graphrun/internal/fielderr"
)

// TestCheckMemory: a run that does not fit is refused naming the scale and
// the largest scale that fits, unless forced; one whose counts overflow is
// refused even forced, naming the edge factor; an unknown amount of
// memory allows the run.
func TestCheckMemory(t *testing.T) {
	cfg := MemoryConfig{Scale: 30, EdgeFactor: 16, Ranks: 1, LocalRanks: 1, Validate: true}
	gib := func() (int64, error) { return 1 << 30, nil }
	err := checkMemoryIn(cfg, false, gib)
	me, ok := fielderr.As(err)
	if !ok || me.Field != "Scale" || !strings.Contains(me.Msg, "scale 30 needs about") || !strings.Contains(me.Msg, "the largest scale that fits is") {
		t.Fatalf("scale 30 in 1 GiB: %v", err)
	}
	if err := checkMemoryIn(cfg, true, gib); err != nil {
		t.Fatalf("forced: %v", err)
	}
	if err := checkMemoryIn(cfg, false, func() (int64, error) { return 0, errors.New("unknown") }); err != nil {
		t.Fatalf("unknown memory: %v", err)
	}
	cfg.Scale, cfg.EdgeFactor = 40, 1<<22
	if err := checkMemoryIn(cfg, true, gib); fielderr.Field(err) != "EdgeFactor" {
		t.Fatalf("overflow: %v", err)
	}
}

// TestCompressedMemory: the compressed layout costs less than the plain
// one in both phases, kernel 1 (its ranges cut from PackedBudget) no more
// than the searches at edgefactor 16 from scale 22, and AutoCompress turns it on exactly when the plain run does not fit and
// the compressed one does.
func TestCompressedMemory(t *testing.T) {
	for _, scale := range []int{16, 22, 26, 27, 33} {
		for _, ranks := range []int{1, 4} {
			cfg := MemoryConfig{Scale: scale, EdgeFactor: 16, Ranks: ranks, Validate: true}
			plain, err := EstimateMemory(cfg)
			if err != nil {
				t.Fatal(err)
			}
			cfg.Compressed = true
			packed, err := EstimateMemory(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if packed.Searches >= plain.Searches || packed.Kernel1 >= plain.Kernel1 || (scale >= 22 && packed.Kernel1 > packed.Searches) ||
				packed.PackedBudget <= 0 || packed.PackedBudget >= packed.Kernel1 || plain.PackedBudget != 0 {
				t.Fatalf("scale %d, %d ranks: compressed %+v, plain %+v", scale, ranks, packed, plain)
			}
			avail := func(b int64) func() (int64, error) { return func() (int64, error) { return b, nil } }
			fits := func(e MemoryEstimate) int64 { return int64(float64(e.Machine)/GuardMargin) + 1 }
			cfg.Compressed = false
			for _, tc := range []struct {
				have int64
				want bool
			}{{fits(plain), false}, {fits(packed), true}, {fits(packed) / 2, false}} {
				if got := autoCompressIn(cfg, avail(tc.have)); got != tc.want {
					t.Fatalf("scale %d, %d ranks, %d bytes available: AutoCompress %v", scale, ranks, tc.have, got)
				}
			}
			if autoCompressIn(cfg, func() (int64, error) { return 0, errors.New("unknown") }) {
				t.Fatal("AutoCompress with the memory unknown")
			}
		}
	}
}
