package bench

import "testing"

// TestMatrices: the codecs matrix runs Lv et al.'s algorithms bottom-up
// under their names, then the direction-optimised modes; the scaling
// matrix doubles the ranks up to its bound.
func TestMatrices(t *testing.T) {
	m, err := CodecsMatrix()
	if err != nil {
		t.Fatal(err)
	}
	if len(m) != 14 || m[0] != (BFSEntry{"BIT", "allgather", "raw", "bottom-up", 0}) || m[5] != (BFSEntry{"DIR-WAH", "sieve", "wah", "bottom-up", 0}) ||
		m[10] != (BFSEntry{"PDIR-auto", "packed", "auto", "bottom-up", 0}) || m[13].Direction != "auto" {
		t.Errorf("codecs matrix: %v", m)
	}
	s := ScalingMatrix(5)
	if len(s) != 6 || s[0].Ranks != 1 || s[5] != (BFSEntry{"4 ranks, packed + auto", "packed", "auto", "auto", 4}) {
		t.Errorf("scaling matrix up to 5 ranks: %v", s)
	}
}
