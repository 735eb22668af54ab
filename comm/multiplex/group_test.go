package multiplex

import "testing"

// FuzzSplitGroupMessage: in a round of group calls, the decoder of the
// aggregated messages between processes never panics on arbitrary bytes,
// accepts a payload only between ranks that list each other, and what it
// accepts re-encodes to the same payloads. Local rank k lists source i
// when bit (i+k) mod 7 of pairs is set.
func FuzzSplitGroupMessage(f *testing.F) {
	f.Add([]byte{}, uint8(1), uint8(1), uint8(0))
	f.Add([]byte{3, 'a', 'b', 0, 1, 0}, uint8(2), uint8(2), uint8(0x09))
	f.Add(appendMessage(nil, [][][]byte{{nil, []byte("ab")}, {[]byte("c"), nil}}, []int{0, 1}, [][]int{{1}, {0, 1}}), uint8(2), uint8(2), uint8(0x06))
	f.Fuzz(func(t *testing.T, msg []byte, nsrc, nlocal, pairs uint8) {
		srcs := make([]int, 1+int(nsrc)%4)
		for i := range srcs {
			srcs[i] = 2 * i // ranks of the sending process
		}
		out := make([][][]byte, 1+int(nlocal)%4)
		groups, sendGroups := make([][]int, len(out)), make([][]int, len(srcs))
		for k := range out {
			out[k] = make([][]byte, 2*len(srcs))
			for i, src := range srcs {
				if pairs>>((i+k)%7)&1 != 0 {
					groups[k] = append(groups[k], src)
					sendGroups[i] = append(sendGroups[i], k)
				}
			}
		}
		if err := splitMessage(msg, srcs, out, groups); err != nil {
			return
		}
		for i, src := range srcs {
			for k := range out {
				if len(out[k][src]) > 0 && pairs>>((i+k)%7)&1 == 0 {
					t.Fatalf("accepted %x: a payload %d→%d between ranks that do not list each other", msg, src, k)
				}
			}
		}
		checkReencoded(t, msg, srcs, out, groups, sendGroups)
	})
}
