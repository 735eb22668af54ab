// Fuzz test of the real-edge-list parsers (read.go) behind the PageRank runs
// of Kylix §VII: arbitrary bytes read as SNAP, .el, .wel and Matrix
// Market give edges or an *EdgeListError, never a panic, and the same answer
// whole, split by byte ranges, split by line shares, streamed in two passes
// as FileShare reads (PageRank's set-up), and with tiny buffers.
// The seed corpus is in testdata/fuzz/FuzzParseEdges.

package edgelist

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/graphrun/graphrun/graph"
)

// fuzzFormats are the text formats FuzzParseEdges reads every input as.
var fuzzFormats = []EdgeFormat{EdgeFormatSNAP, EdgeFormatEL, EdgeFormatWEL, EdgeFormatMTX}

// readShares reads data as format on size ranks, by byte range (stream
// false) or line share (stream true), and returns the concatenated edges
// and every rank's error.
func readShares(data []byte, format EdgeFormat, size, bufSize int, stream bool) ([]graph.Edge, []error) {
	src := memSource("fuzz", data, format, false, bufSize)
	var all []graph.Edge
	var errs []error
	for r := range size {
		var p *edgeParser
		var err error
		if stream {
			p, err = src.readStream(r, size)
		} else {
			p, err = src.readSplit(r, size)
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		all = append(all, p.edges...)
	}
	return all, errs
}

// streamShares reads data as format on size ranks as a FileShare does:
// each rank's share twice, streamed to an emit, the second pass from what
// the first learnt. It returns the second pass's concatenated edges (the
// first pass must give the same) and every rank's error.
func streamShares(data []byte, format EdgeFormat, size, bufSize int) ([]graph.Edge, []error) {
	var all []graph.Edge
	var errs []error
	for r := range size {
		plan := &sharePlan{}
		var passes [2][]graph.Edge
		var err error
		for pass := range passes {
			src := memSource("fuzz", data, format, false, bufSize)
			src.ctx, src.plan = context.Background(), plan
			src.emit = func(es []graph.Edge) error {
				passes[pass] = append(passes[pass], es...)
				return nil
			}
			if _, err = src.read(r, size); err != nil {
				break
			}
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if !slices.Equal(passes[0], passes[1]) {
			errs = append(errs, fmt.Errorf("rank %d of %d: the two passes differ", r, size))
		}
		all = append(all, passes[1]...)
	}
	return all, errs
}

// longestLine returns the length of the longest line of data, '\n'
// excluded.
func longestLine(data []byte) int {
	n := 0
	for line := range bytes.SplitSeq(data, []byte{'\n'}) {
		n = max(n, len(line))
	}
	return n
}

// checkParse reads data as format in every way and checks that the answers
// agree.
func checkParse(t *testing.T, data []byte, format EdgeFormat) {
	whole, werr := memSource("fuzz", data, format, false, edgeReadBufSize).read(0, 1)
	if werr != nil {
		var ele *EdgeListError
		if !errors.As(werr, &ele) || ele.Line < 1 || !strings.HasPrefix(werr.Error(), "fuzz:") {
			t.Fatalf("%s: error %q is not an *EdgeListError naming file and line", format, werr)
		}
	} else {
		for _, e := range whole.edges {
			if e.U < 0 || e.V < 0 || e.U > whole.maxID || e.V > whole.maxID {
				t.Fatalf("%s: edge %v out of range (max id %d)", format, e, whole.maxID)
			}
			if format == EdgeFormatMTX && (e.U >= whole.mtx.rows || e.V >= whole.mtx.cols) {
				t.Fatalf("mtx: edge %v outside the %d×%d matrix", e, whole.mtx.rows, whole.mtx.cols)
			}
		}
		if format == EdgeFormatMTX {
			diag := 0
			for _, e := range whole.edges {
				if e.U == e.V {
					diag++
				}
			}
			want := whole.mtx.nnz
			if whole.mtx.symmetric {
				want = 2*want - int64(diag)
			}
			if int64(len(whole.edges)) != want {
				t.Fatalf("mtx: %d edges for %d entries (symmetric %v)", len(whole.edges), whole.mtx.nnz, whole.mtx.symmetric)
			}
		}
	}
	// Split every way: the same edges, or the same error on some rank.
	type way struct {
		size, bufSize    int
		stream, streamed bool
	}
	ways := []way{{2, edgeReadBufSize, false, false}, {3, edgeReadBufSize, false, false}, {2, edgeReadBufSize, true, false}, {3, edgeReadBufSize, true, false},
		{1, edgeReadBufSize, false, true}, {3, edgeReadBufSize, false, true}}
	if longestLine(data) < 24 {
		ways = append(ways, way{1, 24, false, false}, way{2, 24, false, false}, way{3, 24, true, false}, way{2, 24, false, true})
	}
	for _, w := range ways {
		var got []graph.Edge
		var errs []error
		if w.streamed {
			got, errs = streamShares(data, format, w.size, w.bufSize)
		} else {
			got, errs = readShares(data, format, w.size, w.bufSize, w.stream)
		}
		if werr == nil {
			if len(errs) > 0 {
				t.Fatalf("%s %+v: error %v, whole read succeeded", format, w, errs[0])
			}
			if !slices.Equal(got, whole.edges) {
				t.Fatalf("%s %+v: %v, whole read gives %v", format, w, got, whole.edges)
			}
			continue
		}
		if !slices.ContainsFunc(errs, func(err error) bool { return err.Error() == werr.Error() }) {
			t.Fatalf("%s %+v: errors %v do not include the whole read's %q", format, w, errs, werr)
		}
	}
	// .el reads as the line-by-line oracle (edgelist_oracle_test.go) reads it.
	if format == EdgeFormatEL {
		var ref []graph.Edge
		rerr := oracleDecodeText(bytes.NewReader(data), "fuzz", func(es []graph.Edge) error {
			ref = append(ref, es...)
			return nil
		})
		var a, b *EdgeListError
		switch {
		case (werr == nil) != (rerr == nil):
			t.Fatalf("el: error %v, the oracle's %v", werr, rerr)
		case werr == nil && !slices.Equal(whole.edges, ref) && len(ref)+len(whole.edges) > 0:
			t.Fatalf("el: %v, the oracle gives %v", whole.edges, ref)
		case werr != nil && errors.As(werr, &a) && errors.As(rerr, &b) && a.Line != b.Line:
			t.Fatalf("el: error %q, the oracle's %q", werr, rerr)
		}
	}
}

func FuzzParseEdges(f *testing.F) {
	f.Add([]byte("# c\r\n0\t1\r\n2 3\n\n4\t5 # t\n6 7"))
	f.Add([]byte("1 2 0.5\n3 4 -1e3\n"))
	f.Add([]byte("%%MatrixMarket matrix coordinate pattern symmetric\n% c\n3 3 3\n2 1\n3 3\n1 3\n"))
	f.Add([]byte("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 2 0.5\n2 1 3\n"))
	f.Add([]byte("%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 2 7\n% extra\n2 1 3\n"))
	f.Add([]byte("1 9223372036854775807\n-1 2\n9223372036854775808 0\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, format := range fuzzFormats {
			checkParse(t, data, format)
		}
	})
}
