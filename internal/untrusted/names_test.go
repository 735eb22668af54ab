package untrusted

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// TestNamesQuoteAFileName: a file name with a newline and an escape code
// is shown quoted in every message that repeats it, so that it neither
// starts a forged "graphrun:" line nor clears the screen; safe names and
// the rest of the message are untouched.
func TestNamesQuoteAFileName(t *testing.T) {
	forged := "g\ngraphrun: forged\x1b[2J.el"
	names := NamesOf([]string{"bfs", forged, "--out=" + forged + ".out", "plain.el", "-o", "x\ty"})
	if len(names) != 4 || names[0] != "--out="+forged+".out" {
		t.Fatalf("NamesOf = %q", names)
	}
	msg := fmt.Sprintf("rank 0: %s:2: bad vertex id\nwrote 3 tuples to %s.out (from plain.el)\n", forged, forged)
	got := names.Quote(msg)
	want := `rank 0: "g\ngraphrun: forged\x1b[2J.el":2: bad vertex id` + "\n" + `wrote 3 tuples to "g\ngraphrun: forged\x1b[2J.el.out" (from plain.el)` + "\n"
	if got != want {
		t.Errorf("Quote:\n%s\nwant\n%s", got, want)
	}
	var b bytes.Buffer
	w := names.Writer(&b)
	if n, err := fmt.Fprint(w, msg); err != nil || n != len(msg) {
		t.Fatalf("Write: %d, %v", n, err)
	}
	for _, line := range strings.Split(b.String(), "\n") {
		if strings.HasPrefix(line, "graphrun: forged") || strings.Contains(line, "\x1b") {
			t.Errorf("forged line %q", line)
		}
	}
	if NamesOf([]string{"plain", "--out=x.el"}).Writer(&b) != &b {
		t.Error("safe names wrap the writer")
	}
	long := Quoted(strings.Repeat("\x1b", 1<<16))
	if len(long) > maxQuoted || !strings.HasSuffix(long, "...") {
		t.Errorf("a 64 KiB name is shown as %d bytes", len(long))
	}
}
