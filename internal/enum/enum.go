// Package enum is the one way graphrun's integer enums print and parse: a
// table of names indexed by value (empty for a value with no name), read
// by the type's String method and, for the enums a configuration takes by
// name (spmv.Exchange, spmv.Direction, graph500.Placement, allreduce.Kind,
// hypercube.Algorithm, pagerank.Partition, pagerank.Allreduce), its Parse
// function, so that a name is written once.
package enum

import "fmt"

// Integer is the underlying types of graphrun's enums.
type Integer interface{ ~int | ~uint8 }

// Name returns names[v], or "kind(v)" for a value without a name.
func Name[T Integer](names []string, kind string, v T) string {
	if int(v) >= 0 && int(v) < len(names) && names[v] != "" {
		return names[v]
	}
	return fmt.Sprintf("%s(%d)", kind, int(v))
}

// Parse returns the value named s, or an error naming the kind, s and want
// (the accepted names as the error lists them).
func Parse[T Integer](names []string, kind, want, s string) (T, error) {
	for i, n := range names {
		if n != "" && n == s {
			return T(i), nil
		}
	}
	return 0, fmt.Errorf("unknown %s %q (want %s)", kind, s, want)
}
