package graph500

import "testing"

// TestParseAlgorithm: the names of Lv et al.'s Table V (and §VII-C), with
// DIR- for the sieve and PDIR- for the packed sieve, are exchanges and
// codecs; graphrun's codec names are accepted too.
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
