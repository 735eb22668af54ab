package untrusted

import (
	"strings"
	"testing"
)

func TestLine(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain reason", "plain reason"},
		{"x\n\x1b[2Jgraphrun: forged", `x\n\x1b[2Jgraphrun: forged`},
		{"a\rb\x00c", `a\rb\x00c`},
		{"bad \xff utf8", "bad \uFFFD utf8"},
		{"héllo", "héllo"},
	} {
		if got := Line(c.in, 100); got != c.want {
			t.Errorf("Line(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	long := Line(strings.Repeat("\x1b", 1<<16), 512)
	if len(long) > 512+3 || !strings.HasSuffix(long, "...") {
		t.Errorf("a 64 KiB reason is printed as %d bytes", len(long))
	}
}

func TestText(t *testing.T) {
	in := "g.txt:3: bad line\n\tdetail \x1b]0;title\x07"
	want := "g.txt:3: bad line\n\tdetail \\x1b]0;title\\a"
	if got := Text(in); got != want {
		t.Errorf("Text(%q) = %q, want %q", in, got, want)
	}
}
