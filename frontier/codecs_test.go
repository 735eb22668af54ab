package frontier

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zlib"
)

// randomBitmap returns a bitmap of words words whose bits are set
// independently with probability density.
func randomBitmap(rng *rand.Rand, words int, density float64) Bitmap {
	b := make(Bitmap, words)
	nbits := int64(words) * 64
	switch {
	case density <= 0:
	case density >= 1:
		for i := range b {
			b[i] = ^uint64(0)
		}
	case density == 0.5:
		for i := range b {
			b[i] = rng.Uint64()
		}
	default:
		// Geometric gaps between set bits.
		l := math.Log1p(-density)
		for i := int64(-1); ; {
			i += 1 + int64(math.Log(1-rng.Float64())/l)
			if i >= nbits || i < 0 {
				break
			}
			b.Set(i)
		}
	}
	return b
}

// kroneckerBitmap returns a frontier skewed like a Kronecker (R-MAT, Graph500
// initiator A+B = 0.76) graph's without the vertex permutation: vertex v is
// in it with probability proportional to 0.76^(zero bits of v)·0.24^(one
// bits), scaled to the given mean density and capped at 1.
func kroneckerBitmap(rng *rand.Rand, words int, density float64) Bitmap {
	b := make(Bitmap, words)
	nbits := words * 64
	scale := bits.Len(uint(nbits - 1))
	// The weight depends only on the number k of one bits; class k has
	// binomial(scale, k) members.
	weight := make([]float64, scale+1)
	members := make([]float64, scale+1)
	for k := range weight {
		weight[k] = math.Pow(2*0.24, float64(k)) * math.Pow(2*0.76, float64(scale-k))
		members[k] = math.Round(math.Exp(lgamma(scale+1) - lgamma(k+1) - lgamma(scale-k+1)))
	}
	// The cap at 1 lowers the mean: bisect for the factor giving the target.
	lo, hi := 0.0, float64(nbits)
	for range 100 {
		mid := (lo + hi) / 2
		var sum float64
		for k, w := range weight {
			sum += members[k] * min(1, w*mid)
		}
		if sum/float64(nbits) < density {
			lo = mid
		} else {
			hi = mid
		}
	}
	for v := range nbits {
		if rng.Float64() < weight[bits.OnesCount(uint(v))]*lo {
			b.Set(int64(v))
		}
	}
	return b
}

func lgamma(n int) float64 {
	v, _ := math.Lgamma(float64(n))
	return v
}

func mustNew(t testing.TB, name string) Codec {
	t.Helper()
	c, err := New(name)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func orOf(a, b Bitmap) Bitmap {
	out := slices.Clone(a)
	for i := range out {
		out[i] |= b[i]
	}
	return out
}

// exactLength reports whether the codec's decoder checks the bitmap length
// of src's encoding exactly. Roaring only checks that positions fit, and
// auto's one-byte empty message fits any length.
func exactLength(name string, src Bitmap) bool {
	return name != nameRoaring && (name != nameAuto || src.Count() > 0)
}

var (
	testLengths   = []int{0, 1, 2, 1000, 1 << 16}
	testDensities = []float64{0, 1e-5, 1e-3, 0.05, 0.5, 1}
)

func TestNamesAndNew(t *testing.T) {
	names := Names()
	if len(names) != 10 {
		t.Fatalf("Names() = %v", names)
	}
	for _, name := range names {
		c := mustNew(t, name)
		if c.Name() != name {
			t.Errorf("New(%q).Name() = %q", name, c.Name())
		}
		if _, ok := c.(Chooser); ok != (name == nameAuto) {
			t.Errorf("%s: implements Chooser = %v", name, ok)
		}
	}
	if _, err := New("gzip"); err == nil {
		t.Error("New(gzip) succeeded")
	}
	// Names returns a fresh slice each time.
	names[0] = "x"
	if Names()[0] != nameRaw {
		t.Error("Names shares its slice")
	}
}

func TestRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	type input struct {
		desc string
		bm   Bitmap
	}
	var inputs []input
	for _, words := range testLengths {
		for _, d := range testDensities {
			if testing.Short() && words > 1000 && d != 1e-3 {
				continue
			}
			inputs = append(inputs, input{fmt.Sprintf("words=%d/density=%g", words, d), randomBitmap(rng, words, d)})
		}
	}
	for _, name := range Names() {
		t.Run(name, func(t *testing.T) {
			// One encoder and one decoder instance for all inputs: state is
			// reset between messages.
			enc, dec := mustNew(t, name), mustNew(t, name)
			prefix := []byte("prefix")
			var buf []byte
			for _, in := range inputs {
				src := slices.Clone(in.bm)
				out, err := enc.Encode(append(buf[:0], prefix...), src)
				if err != nil {
					t.Fatalf("%s: Encode: %v", in.desc, err)
				}
				buf = out
				if !bytes.Equal(out[:len(prefix)], prefix) {
					t.Fatalf("%s: Encode clobbered dst's prefix", in.desc)
				}
				if !slices.Equal(src, in.bm) {
					t.Fatalf("%s: Encode modified src", in.desc)
				}
				msg := slices.Clone(out[len(prefix):])
				if again, _ := enc.Encode(nil, src); len(src) <= 1000 && !bytes.Equal(again, msg) {
					t.Fatalf("%s: second Encode differs", in.desc)
				}

				got := randomBitmap(rng, len(src), 0.5) // garbage to overwrite
				if err := dec.Decode(got, msg); err != nil {
					t.Fatalf("%s: Decode: %v", in.desc, err)
				}
				if !slices.Equal(got, src) {
					t.Fatalf("%s: Decode differs", in.desc)
				}
				base := randomBitmap(rng, len(src), 0.01)
				want := orOf(base, src)
				if err := dec.DecodeOr(base, msg); err != nil {
					t.Fatalf("%s: DecodeOr: %v", in.desc, err)
				}
				if !slices.Equal(base, want) {
					t.Fatalf("%s: DecodeOr differs", in.desc)
				}

				// Wrong destination lengths.
				for _, words := range []int{len(src) - 1, len(src) + 1} {
					if words < 0 || !exactLength(name, src) {
						continue
					}
					wrong := make(Bitmap, words)
					if err := dec.Decode(wrong, msg); err == nil {
						t.Fatalf("%s: Decode into %d words succeeded", in.desc, words)
					} else if !errors.Is(err, ErrCorrupt) {
						t.Fatalf("%s: Decode into %d words: %v does not wrap ErrCorrupt", in.desc, words, err)
					}
					if err := dec.DecodeOr(wrong, msg); err == nil {
						t.Fatalf("%s: DecodeOr into %d words succeeded", in.desc, words)
					}
				}
				if c, ok := enc.(Chooser); ok {
					if c.LastChoice() == "" {
						t.Fatalf("%s: no LastChoice", in.desc)
					}
				}
			}
		})
	}
}

// TestRoaringLength checks the range check of the decoder that cannot check
// the length exactly.
func TestRoaringLength(t *testing.T) {
	c := mustNew(t, nameRoaring)
	src := make(Bitmap, 10)
	src.Set(64*9 + 5)
	msg, err := c.Encode(nil, src)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Decode(make(Bitmap, 9), msg); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Decode into 9 words: %v", err)
	}
	got := make(Bitmap, 11)
	if err := c.Decode(got, msg); err != nil || !slices.Equal(got[:10], src) || got[10] != 0 {
		t.Fatalf("Decode into 11 words: %v", err)
	}
}

// TestTruncatedAndCorrupt feeds every prefix of a few encodings, and random
// byte flips, to every decoder: an error or a result, never a panic.
func TestTruncatedAndCorrupt(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	inputs := []Bitmap{
		randomBitmap(rng, 2, 0.05),
		randomBitmap(rng, 1000, 1e-3),
		randomBitmap(rng, 1000, 0.5),
		randomBitmap(rng, 300, 1),
	}
	for _, name := range Names() {
		t.Run(name, func(t *testing.T) {
			c := mustNew(t, name)
			for _, src := range inputs {
				msg, err := c.Encode(nil, src)
				if err != nil {
					t.Fatal(err)
				}
				dst := make(Bitmap, len(src))
				accepted := 0
				for n := range len(msg) {
					if c.Decode(dst, msg[:n]) == nil {
						accepted++
					}
					_ = c.DecodeOr(dst, msg[:n])
				}
				// Every format here records its length or checksums its
				// content, so no proper prefix may decode.
				if accepted > 0 {
					t.Errorf("%d proper prefixes of a %d-byte message decoded", accepted, len(msg))
				}
				bad := make([]byte, len(msg))
				for range 2000 {
					copy(bad, msg)
					for range 1 + rng.IntN(3) {
						bad[rng.IntN(len(bad))] ^= byte(1 + rng.IntN(255))
					}
					if c.Decode(dst, bad) == nil && len(dst) != len(src) {
						t.Fatal("length changed")
					}
					_ = c.DecodeOr(dst, bad)
				}
				// The codec still works after the garbage.
				if err := c.Decode(dst, msg); err != nil || !slices.Equal(dst, src) {
					t.Fatalf("round trip after corrupt input: %v", err)
				}
			}
		})
	}
}

// TestBombs checks that zlib and snappy streams inflating beyond the
// destination are errors, without allocating.
func TestBombs(t *testing.T) {
	huge := make([]byte, 64<<20) // 64 MiB of zeros
	var zb bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&zb, zlib.BestCompression)
	zw.Write(huge)
	zw.Close()
	zbomb := zb.Bytes()
	sbomb := s2.EncodeSnappy(nil, huge)
	dst := make(Bitmap, 1000)
	one := append(make([]byte, 8000), 0) // one byte too many
	zb.Reset()
	zw.Reset(&zb)
	zw.Write(one)
	zw.Close()
	zone := slices.Clone(zb.Bytes())
	cases := []struct {
		codec string
		msg   []byte
	}{
		{nameZlibBS, zbomb}, {nameZlibDF, zbomb}, {nameZlibBC, zbomb},
		{nameZlibDF, zone},
		{nameSnappy, sbomb},
		{nameSnappy, s2.EncodeSnappy(nil, one)},
		// A header claiming 4 GiB with nothing behind it.
		{nameSnappy, []byte{0xff, 0xff, 0xff, 0xff, 0x0f}},
	}
	for _, tc := range cases {
		c := mustNew(t, tc.codec)
		if err := c.Decode(dst, tc.msg); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: Decode of a %d-byte bomb: %v", tc.codec, len(tc.msg), err)
		}
		if err := c.DecodeOr(dst, tc.msg); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: DecodeOr of a %d-byte bomb: %v", tc.codec, len(tc.msg), err)
		}
		// Only the error value may be allocated, not the bomb's output.
		if b := bytesPerRun(5, func() { _ = c.Decode(dst, tc.msg) }); b > 2048 {
			t.Errorf("%s: Decode of a bomb allocates %d bytes", tc.codec, b)
		}
	}
}

// bytesPerRun returns the bytes allocated by one call of fn, averaged over
// runs calls after a warm-up call.
func bytesPerRun(runs int, fn func()) uint64 {
	fn()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range runs {
		fn()
	}
	runtime.ReadMemStats(&after)
	return (after.TotalAlloc - before.TotalAlloc) / uint64(runs)
}

// TestTrailing checks that bytes after a valid message are rejected.
func TestTrailing(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	src := randomBitmap(rng, 100, 0.01)
	for _, name := range Names() {
		c := mustNew(t, name)
		msg, _ := c.Encode(nil, src)
		if err := c.Decode(make(Bitmap, len(src)), append(msg, 0)); err == nil {
			t.Errorf("%s: a trailing byte is accepted", name)
		}
	}
}

// TestSteadyStateAllocs checks that, once dst has grown, Encode and Decode
// allocate nothing (roaring excepted: its containers are the library's).
func TestSteadyStateAllocs(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	srcs := []Bitmap{randomBitmap(rng, 1<<14, 1e-3), randomBitmap(rng, 1<<14, 0.2), randomBitmap(rng, 1<<14, 1)}
	for _, name := range Names() {
		c := mustNew(t, name)
		for _, src := range srcs {
			buf, err := c.Encode(nil, src)
			if err != nil {
				t.Fatal(err)
			}
			msg := slices.Clone(buf)
			dst := make(Bitmap, len(src))
			if err := c.Decode(dst, msg); err != nil {
				t.Fatal(err)
			}
			_ = c.DecodeOr(dst, msg)
			enc := testing.AllocsPerRun(10, func() { buf, _ = c.Encode(buf[:0], src) })
			dec := testing.AllocsPerRun(10, func() { _ = c.Decode(dst, msg) })
			or := testing.AllocsPerRun(10, func() { _ = c.DecodeOr(dst, msg) })
			if name == nameRoaring {
				t.Logf("%s: allocs per Encode %.0f, Decode %.0f, DecodeOr %.0f", name, enc, dec, or)
				continue
			}
			if enc+dec+or > 0 {
				t.Errorf("%s: allocs per Encode %.0f, Decode %.0f, DecodeOr %.0f", name, enc, dec, or)
			}
		}
	}
}

// TestCompressionSanity: a sparse frontier (density 1e-4 over 2^20 bits)
// compresses to under 10% of raw with every compressing codec.
func TestCompressionSanity(t *testing.T) {
	src := randomBitmap(rand.New(rand.NewPCG(9, 10)), 1<<14, 1e-4)
	raw := len(src) * 8
	for _, name := range Names() {
		if name == nameRaw {
			continue
		}
		msg, err := mustNew(t, name).Encode(nil, src)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%-8s %7d bytes (%.2f%% of raw)", name, len(msg), 100*float64(len(msg))/float64(raw))
		if len(msg)*10 >= raw {
			t.Errorf("%s: %d bytes, raw %d", name, len(msg), raw)
		}
	}
}

// TestAutoChoices checks auto's rule on clear-cut inputs.
func TestAutoChoices(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	clustered := make(Bitmap, 1<<14) // dense block in a sparse bitmap
	for i := 100; i < 300; i++ {
		clustered[i] = ^uint64(0)
	}
	for _, tc := range []struct {
		src  Bitmap
		want string
	}{
		{make(Bitmap, 100), "empty"},
		{Bitmap{}, "empty"},
		{randomBitmap(rng, 1<<14, 1e-3), nameList},
		{randomBitmap(rng, 1<<14, 0.5), nameRaw},
		{randomBitmap(rng, 1<<14, 1), nameWAH},
		{clustered, nameWAH},
	} {
		c := mustNew(t, nameAuto)
		msg, err := c.Encode(nil, tc.src)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.(Chooser).LastChoice(); got != tc.want {
			t.Errorf("choice %s, want %s", got, tc.want)
		}
		if tc.want == "empty" && len(msg) != 1 {
			t.Errorf("empty message of %d bytes", len(msg))
		}
		dst := make(Bitmap, len(tc.src))
		if err := c.Decode(dst, msg); err != nil || !slices.Equal(dst, tc.src) {
			t.Errorf("%s: round trip: %v", tc.want, err)
		}
	}
	if got := mustNew(t, nameAuto).(Chooser).LastChoice(); got != "" {
		t.Errorf("LastChoice before Encode = %q", got)
	}
}

// TestAutoSizes measures the encodings over random frontiers of 2^20 bits
// (uniform, as after Graph500's vertex permutation, and Kronecker-skewed)
// and checks that auto is within 10% (plus its tag byte) of the smallest of
// list, wah and raw. Run with -v for the table behind autoListDensity.
func TestAutoSizes(t *testing.T) {
	densities := []float64{1e-6, 1e-5, 1e-4, 1e-3, 0.01, 0.03, 0.05, 0.07, 0.08, 0.09, 0.1, 0.11, 0.12, 0.15, 0.2, 0.3, 0.5, 0.9, 0.99, 0.999}
	models := []struct {
		name string
		gen  func(*rand.Rand, int, float64) Bitmap
	}{{"uniform", randomBitmap}, {"kronecker", kroneckerBitmap}}
	names := []string{nameRaw, nameList, nameWAH, nameAuto, nameZlibBS, nameSnappy, nameRoaring}
	if testing.Short() {
		names = names[:4]
	}
	codecs := make([]Codec, len(names))
	for i, n := range names {
		codecs[i] = mustNew(t, n)
	}
	rng := rand.New(rand.NewPCG(13, 14))
	var buf []byte
	for _, m := range models {
		t.Logf("%s model, 2^20 bits, sizes in bytes (raw = 131072):", m.name)
		t.Logf("%9s %9s %s", "density", "actual", fmt.Sprint(names))
		for _, d := range densities {
			src := m.gen(rng, 1<<14, d)
			sizes := make([]int, len(names))
			var choice string
			for i, c := range codecs {
				var err error
				buf, err = c.Encode(buf[:0], src)
				if err != nil {
					t.Fatal(err)
				}
				sizes[i] = len(buf)
				if ch, ok := c.(Chooser); ok {
					choice = ch.LastChoice()
				}
			}
			t.Logf("%9g %9.2g %v auto=%s", d, float64(src.Count())/float64(1<<20), sizes, choice)
			best := min(sizes[0], sizes[1], sizes[2])
			if auto := sizes[3]; float64(auto-1) > 1.1*float64(best) {
				t.Errorf("%s density %g: auto %d bytes, best of list/wah/raw %d", m.name, d, auto, best)
			}
		}
	}
}
