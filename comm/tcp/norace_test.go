//go:build !race

package tcp

// raceEnabled reports whether the race detector is on: it makes every byte
// a socket moves expensive, so the largest conformance job is skipped.
const raceEnabled = false
