package bufs

import "testing"

func TestReuse(t *testing.T) {
	recv := make([][]byte, 3)
	if got := RecvSlices(recv, 3); &got[0] != &recv[0] {
		t.Error("RecvSlices did not reuse a slice of the right length")
	}
	if got := RecvSlices(recv, 4); len(got) != 4 {
		t.Error("RecvSlices length")
	}
	dst := make([]byte, 0, 8)
	got := CopyInto(dst, []byte("abc"))
	if string(got) != "abc" || &got[0] != &dst[:1][0] {
		t.Error("CopyInto did not reuse dst")
	}
	if got := CopyInto(dst, []byte("0123456789")); string(got) != "0123456789" {
		t.Error("CopyInto grow")
	}
	buf := make([]int, 2, 10)
	if r := Resize(buf, 7); len(r) != 7 || &r[0] != &buf[0] {
		t.Error("Resize did not reuse capacity")
	}
	if r := Resize(buf, 11); len(r) != 11 {
		t.Error("Resize grow")
	}
}
