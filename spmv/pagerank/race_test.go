//go:build race

package pagerank

// raceEnabled reports whether the race detector is on: it makes every
// memory access of the kernels expensive, so the real-graph PageRank test
// keeps its concurrent combinations and drops the serial one.
const raceEnabled = true
