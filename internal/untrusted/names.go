package untrusted

import (
	"io"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxQuoted caps the quoted form of one name.
const maxQuoted = 512

// Names are strings from outside that a message may repeat as they are —
// file names given on a command line — and that cannot be shown raw: each
// holds a control character (a newline that would start a forged line of
// its own, an escape sequence that clears the screen), invalid UTF-8 or a
// line separator. Quote shows them Go-quoted (%q) wherever they occur.
type Names []string

// NamesOf returns the strings of args that need quoting (Unsafe), and of
// an argument "--flag=value" also its value; the longest come first, so
// that a name is quoted before any shorter name inside it.
func NamesOf(args []string) Names {
	var names Names
	for _, a := range args {
		if !Unsafe(a) {
			continue
		}
		names = append(names, a)
		if i := strings.IndexByte(a, '='); strings.HasPrefix(a, "-") && i > 0 && Unsafe(a[i+1:]) {
			names = append(names, a[i+1:])
		}
	}
	sort.SliceStable(names, func(i, j int) bool { return len(names[i]) > len(names[j]) })
	return names
}

// Unsafe reports whether s cannot be printed on a terminal as it is: it
// holds a control character, invalid UTF-8 or a line or paragraph
// separator.
func Unsafe(s string) bool {
	for _, r := range s {
		if r == utf8.RuneError || unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return true
		}
	}
	return false
}

// Quoted is s as a Go string literal (%q), cut to at most maxQuoted
// bytes (then ending in "...").
func Quoted(s string) string {
	q := strconv.Quote(s)
	if len(q) > maxQuoted {
		q = q[:maxQuoted-3] + "..."
	}
	return q
}

// Quote returns s with every occurrence of one of the names replaced by
// its quoted form.
func (n Names) Quote(s string) string {
	for _, name := range n {
		if strings.Contains(s, name) {
			s = strings.ReplaceAll(s, name, Quoted(name))
		}
	}
	return s
}

// Writer returns w, or, when there are names, a writer that quotes them
// (Quote) in each Write before passing it on to w: for the text a program
// prints, each message one Write, never for data (a name's bytes may
// occur in binary output).
func (n Names) Writer(w io.Writer) io.Writer {
	if len(n) == 0 {
		return w
	}
	return quoteWriter{w: w, names: n}
}

type quoteWriter struct {
	w     io.Writer
	names Names
}

// Write writes p with the names quoted and reports p written whole when
// the quoted text was.
func (q quoteWriter) Write(p []byte) (int, error) {
	s := q.names.Quote(string(p))
	if _, err := io.WriteString(q.w, s); err != nil {
		return 0, err
	}
	return len(p), nil
}
