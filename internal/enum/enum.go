// Package enum is the one way graphrun's int enums with flag values
// (spmv.Exchange, spmv.Direction, graph500.Placement) print and parse: a
// table of names indexed by value, read by the type's String and Parse
// functions, so a name is written once.
package enum

import "fmt"

// Name returns names[v], or "kind(v)" for a value outside the table.
func Name[T ~int](names []string, kind string, v T) string {
	if int(v) >= 0 && int(v) < len(names) {
		return names[v]
	}
	return fmt.Sprintf("%s(%d)", kind, int(v))
}

// Parse returns the value named s, or an error naming the kind, s and want
// (the accepted names as the error lists them).
func Parse[T ~int](names []string, kind, want, s string) (T, error) {
	for i, n := range names {
		if n == s {
			return T(i), nil
		}
	}
	return 0, fmt.Errorf("unknown %s %q (want %s)", kind, s, want)
}
