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
