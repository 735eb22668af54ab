// Package sizeclaims holds no code: its test feeds every reader of
// external bytes that takes a count or a length from its input — graph
// file headers, Matrix Market size lines, wire frames, packed rows, run
// JSON files — a claim of 2^40 and checks that each fails with an error
// having allocated a bounded amount: sizes from outside are checked
// before they size an allocation, and growth follows the data actually
// read. A new reader of that kind adds a case to its table. It implements
// no paper section.
package sizeclaims
