package edgelist

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/inproc"
	"github.com/graphrun/graphrun/graph"
)

// randomWeightedText writes m random weighted edges as format (.wel, or a
// real or integer Matrix Market matrix, general or symmetric) with random
// spacing, comments and line ends, and returns the text, the edges and
// weights a weighted read must give (a symmetric entry's mirror beside
// it) and the formatted weights as written.
func randomWeightedText(rng *rand.Rand, format EdgeFormat, field string, symmetric bool, m int) ([]byte, []graph.Edge, []float32) {
	var b []byte
	var edges []graph.Edge
	var ws []float32
	n := int64(1 + rng.IntN(40))
	comment := byte('#')
	if format == EdgeFormatMTX {
		comment = '%'
		sym := "general"
		if symmetric {
			sym = "symmetric"
		}
		b = fmt.Appendf(b, "%%%%MatrixMarket matrix coordinate %s %s\n%% c\n%d %d %d\n", field, sym, n, n, m)
	}
	for i := 0; i < m; {
		if rng.IntN(6) == 0 {
			b = append(b, comment)
			b = append(b, " note\r\n"...)
			continue
		}
		u, v := rng.Int64N(n), rng.Int64N(n)
		var w float32
		var text string
		switch {
		case field == "integer":
			x := rng.Int64N(1000)
			w, text = float32(x), strconv.FormatInt(x, 10)
		case rng.IntN(5) == 0:
			w, text = 0, []string{"0", "-0", "0.0", "0e5"}[rng.IntN(4)]
		default:
			w = rng.Float32() * float32(math.Pow(10, float64(rng.IntN(9)-4)))
			text = strconv.FormatFloat(float64(w), "gGe"[rng.IntN(3)], -1, 32)
		}
		r, c := u, v
		if format == EdgeFormatMTX {
			r, c = u+1, v+1
		}
		b = fmt.Appendf(b, "%d%s%d\t%s", r, strings.Repeat(" ", 1+rng.IntN(2)), c, text)
		if rng.IntN(3) == 0 {
			b = append(b, '\r')
		}
		b = append(b, '\n')
		edges, ws = append(edges, graph.Edge{U: u, V: v}), append(ws, w)
		if symmetric && u != v {
			edges, ws = append(edges, graph.Edge{U: v, V: u}), append(ws, w)
		}
		i++
	}
	return b, edges, ws
}

// scanWeightedShares reads path on size ranks with FileShare.ScanWeighted
// (twice each, the second pass from the first's plan) and returns the
// concatenated edges and weights.
func scanWeightedShares(t *testing.T, path string, size int) ([]graph.Edge, []float32) {
	t.Helper()
	var edges []graph.Edge
	var ws []float32
	for r := range size {
		fs, err := NewFileShare(path, "", r, size)
		if err != nil {
			t.Fatal(err)
		}
		var passes [2][]float32
		for pass := range passes {
			err := fs.ScanWeighted(context.Background(), func(es []graph.Edge, w []float32) error {
				if len(es) != len(w) {
					return fmt.Errorf("%d edges with %d weights", len(es), len(w))
				}
				if pass == 1 {
					edges = append(edges, es...)
				}
				passes[pass] = append(passes[pass], w...)
				return nil
			})
			if err != nil {
				t.Fatalf("%s rank %d of %d pass %d: %v", path, r, size, pass, err)
			}
		}
		if !slices.Equal(passes[0], passes[1]) {
			t.Fatalf("%s rank %d of %d: the second pass's weights differ", path, r, size)
		}
		ws = append(ws, passes[1]...)
	}
	return edges, ws
}

// TestReadWeighted reads random weighted .wel and Matrix Market files,
// plain and gzipped, whole and on 1 to 4 ranks: the edges are the
// unweighted read's, each with the weight written, exactly (float32 text
// round-trips), −0 as 0.
func TestReadWeighted(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 1))
	cases := []struct {
		format    EdgeFormat
		field     string
		symmetric bool
	}{{EdgeFormatWEL, "", false}, {EdgeFormatMTX, "real", false}, {EdgeFormatMTX, "real", true}, {EdgeFormatMTX, "integer", true}}
	for iter := range 16 {
		c := cases[iter%len(cases)]
		data, want, wantW := randomWeightedText(rng, c.format, c.field, c.symmetric, rng.IntN(200))
		for _, gz := range []bool{false, true} {
			name, in := "g."+string(c.format), data
			if gz {
				name, in = name+".gz", gzipBytes(t, data)
			}
			path := writeFile(t, name, in)
			ef, err := ReadWeightedEdges(path, "")
			if err != nil {
				t.Fatalf("%s: %v\n%s", name, err, data)
			}
			plain, err := ReadEdges(path, "")
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(ef.Edges, want) || !slices.Equal(plain.Edges, want) {
				t.Fatalf("%s: edges %v, unweighted %v, want %v", name, ef.Edges, plain.Edges, want)
			}
			if !slices.Equal(ef.Weights, wantW) || slices.ContainsFunc(ef.Weights, func(w float32) bool { return math.Signbit(float64(w)) }) {
				t.Fatalf("%s: weights %v, want %v", name, ef.Weights, wantW)
			}
			for size := 1; size <= 4; size++ {
				es, ws := scanWeightedShares(t, path, size)
				if !slices.Equal(es, want) || !slices.Equal(ws, wantW) {
					t.Fatalf("%s on %d ranks: %v %v, want %v %v", name, size, es, ws, want, wantW)
				}
			}
			if ok, err := HasWeights(path, ""); !ok || err != nil {
				t.Fatalf("%s: HasWeights %v, %v", name, ok, err)
			}
		}
	}
}

// TestReadWeightedBad refuses bad weights naming file:line, for a
// weighted read; an unweighted read refuses what is not a finite number
// and accepts a negative weight, which it drops.
func TestReadWeightedBad(t *testing.T) {
	const mm = "%%MatrixMarket matrix coordinate real general\n3 3 2\n"
	for _, c := range []struct {
		name, text, want string
		unweightedOK     bool
	}{
		{"neg.wel", "0 1 0.5\n1 2 -0.25\n", "neg.wel:2: negative weight \"-0.25\"", true},
		{"nan.wel", "0 1 NaN\n", "nan.wel:1: bad weight \"NaN\": not a finite number", false},
		{"inf.wel", "# c\n0 1 +Inf\n", "inf.wel:2: bad weight \"+Inf\": not a finite number", false},
		{"big.wel", "0 1 1e39\n", "big.wel:1: bad weight \"1e39\"", true},
		{"word.wel", "0 1 heavy\n", "word.wel:1: bad weight \"heavy\"", false},
		{"missing.wel", "0 1\n", "missing.wel:1: want 3 columns (u v weight), got 2", false},
		{"neg.mtx", mm + "1 2 1\n2 3 -1e-3\n", "neg.mtx:4: negative weight \"-1e-3\"", true},
		{"nan.mtx", mm + "1 2 nan\n2 3 1\n", "nan.mtx:3: bad real value \"nan\": not a finite number", false},
		{"negint.mtx", strings.Replace(mm, "real", "integer", 1) + "1 2 -4\n2 3 1\n", "negint.mtx:3: negative weight \"-4\"", true},
	} {
		path := writeFile(t, c.name, []byte(c.text))
		_, err := ReadWeightedEdges(path, "")
		var ele *EdgeListError
		if err == nil || !errors.As(err, &ele) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: weighted read: %v, want %q", c.name, err, c.want)
		}
		if _, err := ReadEdges(path, ""); (err == nil) != c.unweightedOK {
			t.Errorf("%s: unweighted read: %v", c.name, err)
		}
		for _, size := range []int{2, 3} {
			var errs []string
			for r := range size {
				fs, err := NewFileShare(path, "", r, size)
				if err != nil {
					t.Fatal(err)
				}
				if err := fs.ScanWeighted(context.Background(), func([]graph.Edge, []float32) error { return nil }); err != nil {
					errs = append(errs, err.Error())
				}
			}
			if !slices.ContainsFunc(errs, func(s string) bool { return strings.Contains(s, c.want) }) {
				t.Errorf("%s on %d ranks: %v, want one with %q", c.name, size, errs, c.want)
			}
		}
	}
}

// TestReadUnweightedRefused: a weighted read of a format without weights
// (or of a pattern matrix) fails with ErrUnweighted, and HasWeights says
// no.
func TestReadUnweightedRefused(t *testing.T) {
	for name, text := range map[string]string{
		"a.el":   "0 1\n",
		"a.txt":  "0 1\n",
		"p.mtx":  "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2\n",
		"g.sg":   "",
		"g.bel":  "",
		"g.grb":  "",
		"e.wel":  "",
		"e.mtx":  "%%MatrixMarket matrix coordinate real general\n2 2 0\n",
		"gz.mtx": "",
	} {
		path := writeFile(t, name, []byte(text))
		if name == "g.sg" {
			path = filepath.Join("testdata", "gapbs", "small.sg")
		}
		weighted := name == "e.wel" || name == "e.mtx"
		if name == "gz.mtx" {
			path = writeFile(t, name+".gz", gzipBytes(t, []byte("%%MatrixMarket matrix coordinate integer symmetric\n2 2 0\n")))
			weighted = true
		}
		ok, err := HasWeights(path, "")
		if err != nil || ok != weighted {
			t.Errorf("%s: HasWeights %v, %v", name, ok, err)
		}
		ef, err := ReadWeightedEdges(path, "")
		switch {
		case weighted && (err != nil || len(ef.Weights) != 0 || ef.Weights == nil):
			t.Errorf("%s: %v", name, err)
		case !weighted && !errors.Is(err, ErrUnweighted):
			t.Errorf("%s: %v, want ErrUnweighted", name, err)
		}
	}
}

// TestReadWeightedWSG reads gapbs's weighted small.wsg (converter -w):
// the edges are the unweighted read's, each undirected edge has one weight
// both ways, within gapbs's [1, 255], the same on any rank count.
func TestReadWeightedWSG(t *testing.T) {
	path := filepath.Join("testdata", "gapbs", "small.wsg")
	ef, err := ReadWeightedEdges(path, "")
	if err != nil {
		t.Fatal(err)
	}
	plain, err := ReadEdges(path, "")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ef.Edges, plain.Edges) || len(ef.Weights) != len(ef.Edges) || len(ef.Edges) == 0 {
		t.Fatalf("%d edges with %d weights, unweighted %d", len(ef.Edges), len(ef.Weights), len(plain.Edges))
	}
	w := map[graph.Edge]float32{}
	for i, e := range ef.Edges {
		x := ef.Weights[i]
		if x < 1 || x > 255 || x != float32(int32(x)) {
			t.Fatalf("edge %v: weight %v", e, x)
		}
		w[e] = x
	}
	for e, x := range w {
		if y, ok := w[graph.Edge{U: e.V, V: e.U}]; !ok || y != x {
			t.Fatalf("edge %v weighs %v, its mirror %v (%v)", e, x, y, ok)
		}
	}
	for _, size := range []int{2, 3} {
		es, ws := scanWeightedShares(t, path, size)
		if !slices.Equal(es, ef.Edges) || !slices.Equal(ws, ef.Weights) {
			t.Fatalf("%d ranks: shares differ", size)
		}
	}
}

// TestSpreadWeighted spreads a weighted stream over 1 to 3 ranks: each
// rank's share has its edges' weights, and in rank order, round by
// round, they are the file's; a stream without weights is refused.
func TestSpreadWeighted(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 2))
	data, want, wantW := randomWeightedText(rng, EdgeFormatWEL, "", false, 100)
	for p := 1; p <= 3; p++ {
		edges := make([][]graph.Edge, p)
		ws := make([][]float32, p)
		err := inproc.Run(context.Background(), p, func(ctx context.Context, c comm.Comm) error {
			var r io.Reader
			if c.Rank() == 0 {
				r = bytes.NewReader(data)
			}
			share, err := spreadStream(ctx, c, r, "stdin", EdgeFormatWEL, 1000, false, true)
			if err != nil {
				return err
			}
			return share.ScanWeighted(ctx, func(es []graph.Edge, w []float32) error {
				edges[c.Rank()] = append(edges[c.Rank()], es...)
				ws[c.Rank()] = append(ws[c.Rank()], w...)
				return nil
			})
		})
		if err != nil {
			t.Fatal(err)
		}
		if got := slices.Concat(edges...); !slices.Equal(got, want) {
			t.Fatalf("%d ranks: edges %v, want %v", p, got, want)
		}
		if got := slices.Concat(ws...); !slices.Equal(got, wantW) {
			t.Fatalf("%d ranks: weights %v, want %v", p, got, wantW)
		}
	}
	err := inproc.Run(context.Background(), 2, func(ctx context.Context, c comm.Comm) error {
		var r io.Reader
		if c.Rank() == 0 {
			r = strings.NewReader("0 1\n")
		}
		_, err := spreadStream(ctx, c, r, "stdin", EdgeFormatSNAP, 1000, false, true)
		return err
	})
	if !errors.Is(err, ErrUnweighted) {
		t.Fatalf("spreading an unweighted stream with weights: %v", err)
	}
}

// FuzzReadWeighted feeds arbitrary text to the weighted readers (.wel,
// Matrix Market) whole and on 3 ranks: they never panic; an accepted
// input gives the unweighted read's edges, one finite weight ≥ 0 (never
// −0) per edge, the same on any rank count; a refused one is an
// *EdgeListError.
func FuzzReadWeighted(f *testing.F) {
	f.Add([]byte("0 1 0.5\n2 3 1e-3 # c\n4 5 -0\n"))
	f.Add([]byte("1 2 -1\n3 4 NaN\n"))
	f.Add([]byte("%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n2 1 0.5\n3 3 2\n"))
	f.Add([]byte("%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 2 7\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, format := range []EdgeFormat{EdgeFormatWEL, EdgeFormatMTX} {
			src := memSource("fuzz", data, format, false, 256)
			src.weighted = true
			p, err := src.read(0, 1)
			if err != nil {
				var ele *EdgeListError
				if !errors.As(err, &ele) {
					t.Fatalf("%s: error %v is not an *EdgeListError", format, err)
				}
				continue
			}
			if len(p.weights) != len(p.edges) {
				t.Fatalf("%s: %d edges with %d weights", format, len(p.edges), len(p.weights))
			}
			for _, w := range p.weights {
				if !(w >= 0) || math.IsInf(float64(w), 0) || math.Signbit(float64(w)) {
					t.Fatalf("%s: weight %v", format, w)
				}
			}
			plain, err := memSource("fuzz", data, format, false, 256).read(0, 1)
			if err != nil || !slices.Equal(plain.edges, p.edges) {
				t.Fatalf("%s: unweighted read %v (%v), weighted %v", format, plain, err, p.edges)
			}
			var es []graph.Edge
			var ws []float32
			for r := range 3 {
				src := memSource("fuzz", data, format, false, 256)
				src.weighted = true
				q, err := src.read(r, 3)
				if err != nil {
					t.Fatalf("%s rank %d of 3: %v, where one rank reads it", format, r, err)
				}
				es, ws = append(es, q.edges...), append(ws, q.weights...)
			}
			if !slices.Equal(es, p.edges) || !slices.Equal(ws, p.weights) {
				t.Fatalf("%s: 3 ranks read %v %v, one %v %v", format, es, ws, p.edges, p.weights)
			}
		}
	})
}

// TestWeightedEncoderRoundTrip writes float32 weights of every magnitude
// (zero, subnormal, 2^-24 steps, the largest) as a .wel and reads them
// back exactly; the encoder refuses a weighted list's Write, weights for
// an unweighted list, and a weight that is negative or not finite.
func TestWeightedEncoderRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 3))
	ws := []float32{0, math.SmallestNonzeroFloat32, 1 - 1.0/(1<<24), 1.0 / (1 << 24), math.MaxFloat32, 0.1, 1e-30}
	for len(ws) < 5000 {
		ws = append(ws, math.Float32frombits(rng.Uint32()&0x7f7fffff), float32(rng.IntN(1<<24))/(1<<24))
	}
	edges := make([]graph.Edge, len(ws))
	for i := range edges {
		edges[i] = graph.Edge{U: rng.Int64N(1 << 40), V: rng.Int64N(100)}
	}
	var buf bytes.Buffer
	enc, err := NewEdgeListEncoder(&buf, EdgeListWeighted, int64(len(edges)))
	if err != nil {
		t.Fatal(err)
	}
	for lo := 0; lo < len(edges); lo += 3000 {
		hi := min(lo+3000, len(edges))
		if err := enc.WriteWeighted(edges[lo:hi], ws[lo:hi]); err != nil {
			t.Fatal(err)
		}
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	path := writeFile(t, "g.wel", buf.Bytes())
	ef, err := ReadWeightedEdges(path, "")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ef.Edges, edges) || !slices.Equal(ef.Weights, ws) {
		t.Fatal("the weighted list does not read back exactly")
	}
	if f, err := EdgeListFormat("x.wel", ""); f != EdgeListWeighted || err != nil {
		t.Errorf("EdgeListFormat(x.wel): %q, %v", f, err)
	}
	one := []graph.Edge{{U: 1, V: 2}}
	for _, c := range []struct {
		format string
		write  func(*EdgeListEncoder) error
	}{
		{EdgeListWeighted, func(e *EdgeListEncoder) error { return e.Write(one) }},
		{EdgeListText, func(e *EdgeListEncoder) error { return e.WriteWeighted(one, []float32{1}) }},
		{EdgeListWeighted, func(e *EdgeListEncoder) error { return e.WriteWeighted(one, nil) }},
		{EdgeListWeighted, func(e *EdgeListEncoder) error { return e.WriteWeighted(one, []float32{-1}) }},
		{EdgeListWeighted, func(e *EdgeListEncoder) error { return e.WriteWeighted(one, []float32{float32(math.NaN())}) }},
		{EdgeListWeighted, func(e *EdgeListEncoder) error { return e.WriteWeighted(one, []float32{float32(math.Inf(1))}) }},
	} {
		var out bytes.Buffer
		enc, err := NewEdgeListEncoder(&out, c.format, 1)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.write(enc); err == nil || out.Len() != 0 || enc.Close() == nil {
			t.Errorf("%s: a bad write gave %v and wrote %q", c.format, err, out.String())
		}
	}
}
