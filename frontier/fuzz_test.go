package frontier

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
)

// fuzzMaxWords bounds the destination of a fuzz input: words % fuzzMaxWords,
// which reaches three Roaring containers.
const fuzzMaxWords = 2100

// fuzzSeeds returns encodings by c of a few bitmaps, with their lengths.
func fuzzSeeds(t testing.TB, c Codec) (words []uint16, msgs [][]byte) {
	rng := rand.New(rand.NewPCG(15, 16))
	for _, n := range []int{0, 1, 2, 5, 64, 1025, 2099} {
		for _, d := range []float64{0, 0.001, 0.02, 0.3, 1} {
			if n > 64 && d != 0.001 && d != 1 {
				continue
			}
			msg, err := c.Encode(nil, randomBitmap(rng, n, d))
			if err != nil {
				t.Fatal(err)
			}
			words, msgs = append(words, uint16(n)), append(msgs, msg)
		}
	}
	return words, msgs
}

// fuzzDecode checks the decoder of the named codec on arbitrary input: no
// panic, errors wrap ErrCorrupt, Decode and DecodeOr agree, and an accepted
// bitmap survives a round trip through the same codec instance.
func fuzzDecode(f *testing.F, name string) {
	c := mustNew(f, name)
	words, msgs := fuzzSeeds(f, c)
	for i := range msgs {
		f.Add(words[i], msgs[i])
	}
	f.Add(uint16(3), []byte{})
	f.Add(uint16(3), []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
	var dst, or, again Bitmap
	var enc []byte
	f.Fuzz(func(t *testing.T, words uint16, msg []byte) {
		n := int(words) % fuzzMaxWords
		dst, or, again = slices.Grow(dst[:0], n)[:n], slices.Grow(or[:0], n)[:n], slices.Grow(again[:0], n)[:n]
		clear(or)
		err := c.Decode(dst, msg)
		errOr := c.DecodeOr(or, msg)
		if (err == nil) != (errOr == nil) {
			t.Fatalf("Decode: %v, DecodeOr: %v", err, errOr)
		}
		if err != nil {
			if !errors.Is(err, ErrCorrupt) || !errors.Is(errOr, ErrCorrupt) {
				t.Fatalf("errors do not wrap ErrCorrupt: %v; %v", err, errOr)
			}
			return
		}
		if !slices.Equal(dst, or) {
			t.Fatal("Decode and DecodeOr into zeros differ")
		}
		enc, err = c.Encode(enc[:0], dst)
		if err != nil {
			t.Fatalf("re-encoding: %v", err)
		}
		if err := c.Decode(again, enc); err != nil || !slices.Equal(again, dst) {
			t.Fatalf("round trip of an accepted bitmap: %v", err)
		}
	})
}

func FuzzDecodeRaw(f *testing.F)     { fuzzDecode(f, nameRaw) }
func FuzzDecodeList(f *testing.F)    { fuzzDecode(f, nameList) }
func FuzzDecodeWAH(f *testing.F)     { fuzzDecode(f, nameWAH) }
func FuzzDecodeWAH32(f *testing.F)   { fuzzDecode(f, nameWAH32) }
func FuzzDecodeZlibBS(f *testing.F)  { fuzzDecode(f, nameZlibBS) }
func FuzzDecodeZlibDF(f *testing.F)  { fuzzDecode(f, nameZlibDF) }
func FuzzDecodeZlibBC(f *testing.F)  { fuzzDecode(f, nameZlibBC) }
func FuzzDecodeSnappy(f *testing.F)  { fuzzDecode(f, nameSnappy) }
func FuzzDecodeRoaring(f *testing.F) { fuzzDecode(f, nameRoaring) }
func FuzzDecodeAuto(f *testing.F)    { fuzzDecode(f, nameAuto) }
