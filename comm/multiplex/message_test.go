package multiplex

import (
	"bytes"
	"testing"
)

// checkReencoded re-encodes the payloads splitMessage accepted from
// msg (source i's send to local rank k is out[k][srcs[i]]; sendGroups are
// the sources' groups of a round of group calls, groups the local ranks'),
// splits them again and fails t unless they come back the same.
func checkReencoded(t *testing.T, msg []byte, srcs []int, out [][][]byte, groups, sendGroups [][]int) {
	t.Helper()
	sends := make([][][]byte, len(srcs))
	dsts := make([]int, len(out))
	for i, src := range srcs {
		sends[i] = make([][]byte, len(out))
		for k := range out {
			sends[i][k] = out[k][src]
			dsts[k] = k
		}
	}
	again := appendMessage(nil, sends, dsts, sendGroups)
	back := make([][][]byte, len(out))
	for k := range back {
		back[k] = make([][]byte, 2*len(srcs))
	}
	if err := splitMessage(again, srcs, back, groups); err != nil {
		t.Fatalf("re-encoding of accepted %x rejected: %v", msg, err)
	}
	for k := range out {
		for _, src := range srcs {
			if !bytes.Equal(back[k][src], out[k][src]) {
				t.Fatalf("accepted %x: payload %d→%d is %x, after re-encoding %x", msg, src, k, out[k][src], back[k][src])
			}
		}
	}
}

// FuzzSplitMessage: the decoder of the aggregated messages between
// processes never panics on arbitrary bytes, and what it accepts re-encodes
// to the same payloads (a length may arrive in a non-minimal varint).
func FuzzSplitMessage(f *testing.F) {
	f.Add([]byte{}, uint8(1), uint8(1))
	f.Add(appendMessage(nil, [][][]byte{{nil, []byte("ab")}, {[]byte("c"), nil}}, []int{0, 1}, nil), uint8(2), uint8(2))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, uint8(1), uint8(1))
	f.Fuzz(func(t *testing.T, msg []byte, nsrc, nlocal uint8) {
		srcs := make([]int, 1+int(nsrc)%4)
		for i := range srcs {
			srcs[i] = 2 * i // ranks of the sending process
		}
		out := make([][][]byte, 1+int(nlocal)%4)
		for k := range out {
			out[k] = make([][]byte, 2*len(srcs))
		}
		if err := splitMessage(msg, srcs, out, nil); err != nil {
			return
		}
		checkReencoded(t, msg, srcs, out, nil, nil)
	})
}
