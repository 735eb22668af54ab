package multiplex

// The aggregated message between two processes of a round.

import (
	"encoding/binary"
	"fmt"
	"slices"
)

// appendSignature starts a message to another process: the round's
// signature, uvarint length and bytes.
func appendSignature(msg []byte, sig string) []byte {
	msg = binary.AppendUvarint(msg, uint64(len(sig)))
	return append(msg, sig...)
}

// splitFrom checks that process s's message msg is of the same collective
// (signature sig) and splits its payloads into out (splitMessage, with
// the local ranks' groups in a round of group calls).
func (h *Hub) splitFrom(s int, msg []byte, sig string, out [][][]byte, groups [][]int) error {
	me := h.real.Rank()
	n, m := binary.Uvarint(msg)
	if m <= 0 || n > uint64(len(msg)-m) {
		return fmt.Errorf("ranks of process %d: message from process %d: truncated signature", me, s)
	}
	if string(msg[m:m+int(n)]) != sig { // compared in place: no copy of the bytes per round
		return fmt.Errorf("ranks of process %d call %q while those of process %d call %q", me, sig, s, msg[m:m+int(n)])
	}
	if err := splitMessage(msg[m+int(n):], h.hosts[s], out, groups); err != nil {
		return fmt.Errorf("ranks of process %d: message from process %d: %w", me, s, err)
	}
	return nil
}

// appendMessage appends to msg, for every source rank's send (in
// order) and every destination rank of dsts, a uvarint length and the
// payload: the aggregated message of one process to another. In a round of
// group calls, groups[i] is source i's group: the length is then written
// plus one when the source lists the destination, and as 0 (no payload)
// when it does not, so that the receiver checks that the membership is
// symmetric.
func appendMessage(msg []byte, sends [][][]byte, dsts []int, groups [][]int) []byte {
	for i, send := range sends {
		for _, w := range dsts {
			n := uint64(len(send[w]))
			if groups != nil {
				if !slices.Contains(groups[i], w) {
					msg = append(msg, 0)
					continue
				}
				n++
			}
			msg = binary.AppendUvarint(msg, n)
			msg = append(msg, send[w]...)
		}
	}
	return msg
}

// splitMessage reads a message appendMessage wrote on the process
// hosting the source ranks srcs, for this process's len(out) ranks: the
// payload from srcs[i] to local rank k goes to out[k][srcs[i]], copied (out
// is indexed by local rank, then by rank). In a round of group calls
// groups[k] is local rank k's group, and a source must list k exactly
// when k lists it. A truncated or overlong message is an error.
func splitMessage(msg []byte, srcs []int, out [][][]byte, groups [][]int) error {
	for _, src := range srcs {
		for k := range out {
			n, m := binary.Uvarint(msg)
			if m > 0 && groups != nil {
				if listed := slices.Contains(groups[k], src); listed != (n > 0) {
					return fmt.Errorf("collective mismatch: rank %d's group call and local rank %d's disagree on whether they are in one group", src, k)
				}
				if n > 0 {
					n-- // the length plus one of a listed pair
				}
			}
			if m <= 0 || n > uint64(len(msg)-m) {
				return fmt.Errorf("truncated at the payload from rank %d to local rank %d", src, k)
			}
			out[k][src] = append(out[k][src][:0], msg[m:m+int(n)]...)
			msg = msg[m+int(n):]
		}
	}
	if len(msg) != 0 {
		return fmt.Errorf("%d stray bytes", len(msg))
	}
	return nil
}
