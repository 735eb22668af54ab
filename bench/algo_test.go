package bench

import (
	"testing"

	"github.com/graphrun/graphrun/graph500"
	"github.com/graphrun/graphrun/internal/fielderr"
)

// TestApplyAlgorithm: an algorithm sets the exchange, the codec and
// bottom-up (unless --direction was given); with --exchange or --codec, or
// unknown, it is refused naming --algo.
func TestApplyAlgorithm(t *testing.T) {
	settings := func(algo string, given ...string) *graph500.Settings {
		set := map[string]bool{}
		for _, g := range given {
			set[g] = true
		}
		return &graph500.Settings{Algo: algo, Exchange: "allgather", Codec: "raw", Direction: "auto", Given: func(f string) bool { return set[f] }}
	}
	s := settings("PDIR-WAH")
	if err := ApplyAlgorithm(s); err != nil || s.Exchange != "packed" || s.Codec != "wah" || s.Direction != "bottom-up" {
		t.Fatalf("PDIR-WAH: %v, %+v", err, s)
	}
	s = settings("DIR-ZLB-BS", "direction")
	if err := ApplyAlgorithm(s); err != nil || s.Exchange != "sieve" || s.Codec != "zlib-bs" || s.Direction != "auto" {
		t.Fatalf("DIR-ZLB-BS with --direction: %v, %+v", err, s)
	}
	s = settings("")
	if err := ApplyAlgorithm(s); err != nil || s.Exchange != "allgather" || s.Direction != "auto" {
		t.Fatalf("no algorithm: %v, %+v", err, s)
	}
	for _, bad := range []*graph500.Settings{settings("BIT", "codec"), settings("WAH", "exchange"), settings("QUANTUM")} {
		if err := ApplyAlgorithm(bad); fielderr.Field(err) != "algo" {
			t.Errorf("%q given %v: %v", bad.Algo, bad, err)
		}
	}
}
