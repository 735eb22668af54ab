// Package untrusted makes text that comes from outside the program — a
// peer's abort reason, a file name inside an error — safe to print on a
// terminal: its control characters (escape sequences that move the cursor
// or clear the screen, carriage returns that overwrite a line) are shown
// as Go escapes, invalid UTF-8 as U+FFFD, and its length is capped. It
// implements no paper section.
package untrusted

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Line returns s as one printable line of at most max bytes (plus "..."
// when cut): every control character, newlines included, becomes its Go
// escape (\n, \x1b).
func Line(s string, max int) string { return clean(s, max, false) }

// Text returns s printable with its newlines and tabs kept (an error
// message of several lines): every other control character becomes its
// Go escape.
func Text(s string) string { return clean(s, len(s)*4+1, true) }

func clean(s string, max int, keepLines bool) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		var piece string
		switch {
		case r == utf8.RuneError && n == 1:
			piece = "\uFFFD"
		case keepLines && (r == '\n' || r == '\t'):
			piece = string(r)
		case unicode.IsControl(r) || r == '\u2028' || r == '\u2029':
			q := strconv.QuoteRune(r)
			piece = q[1 : len(q)-1]
		default:
			piece = s[i-n : i]
		}
		if b.Len()+len(piece) > max {
			b.WriteString("...")
			break
		}
		b.WriteString(piece)
	}
	return b.String()
}
