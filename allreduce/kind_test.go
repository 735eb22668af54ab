package allreduce

import "testing"

// TestParseKind: every kind parses from the name it prints, and an unknown
// name is refused naming the accepted ones.
func TestParseKind(t *testing.T) {
	for _, k := range []Kind{KindKylix, KindDirect, KindBinary} {
		if got, err := ParseKind(k.String()); err != nil || got != k {
			t.Errorf("ParseKind(%q) = %v, %v", k.String(), got, err)
		}
	}
	if _, err := ParseKind("dense"); err == nil || err.Error() != `unknown kind "dense" (want kylix, direct or binary)` {
		t.Errorf("ParseKind(dense): %v", err)
	}
}
