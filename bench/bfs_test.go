package bench

import "testing"

func TestParseAlgorithm(t *testing.T) {
	for name, want := range map[string][2]string{
		"BIT": {"allgather", "raw"}, "WAH": {"allgather", "wah"}, "ZLB-BS": {"allgather", "zlib-bs"},
		"ZLB-DF": {"allgather", "zlib-df"}, "zlb-bc": {"allgather", "zlib-bc"}, "DIR-WAH": {"sieve", "wah"},
		"DIR-ZLB-BS": {"sieve", "zlib-bs"}, "DIR-ZLB-DF": {"sieve", "zlib-df"}, "DIR-BIT": {"sieve", "raw"},
		"DIR-snappy": {"sieve", "snappy"}, "roaring": {"allgather", "roaring"}, "DIR-auto": {"sieve", "auto"},
		"PDIR-WAH": {"packed", "wah"}, "pdir-zlb-bs": {"packed", "zlib-bs"}, "PDIR-auto": {"packed", "auto"},
	} {
		ex, codec, err := ParseAlgorithm(name)
		if err != nil || ex != want[0] || codec != want[1] {
			t.Errorf("ParseAlgorithm(%q) = %q, %q, %v; want %v", name, ex, codec, err, want)
		}
	}
	for _, bad := range []string{"", "DIR-", "DIR-XYZ", "BITS", "PDIR-", "PDIR-DIR-WAH"} {
		if _, _, err := ParseAlgorithm(bad); err == nil {
			t.Errorf("ParseAlgorithm(%q) accepted", bad)
		}
	}
}

// TestMatrices: the codecs matrix runs paper 004's algorithms bottom-up
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
