package frontier

import (
	"math/bits"

	"github.com/graphrun/graphrun/wah"
)

// Tags of the auto encoding: the first byte of every message.
const (
	autoEmpty byte = iota // no payload: the bitmap is empty
	autoList              // list payload
	autoWAH               // wah payload
	autoRaw               // raw payload
)

// autoChoice names a tag, as LastChoice reports it.
func autoChoice(tag byte) string {
	switch tag {
	case autoEmpty:
		return "empty"
	case autoList:
		return nameList
	case autoWAH:
		return nameWAH
	}
	return nameRaw
}

// The thresholds of auto's rule (see New). Sizes measured over frontiers of
// 2^20 bits (TestAutoSizes logs the table, bytes; raw is 131072):
//
//	            uniform                         Kronecker-skewed
//	density     list     wah  zlib-bs  best     list     wah  zlib-bs  best
//	1e-4         225    1629      919  list      277    2037      912  list
//	1e-2       13354   95181    19575  list    11822   44501    12282  list
//	0.05       52403  132973    51218  list    53953   88213    30927  list
//	0.10      104824  133165    69344  list   106117  106957    42665  list
//	0.12      126034  133165    74631  list   127131  113125    48712  wah
//	0.15      157662  133165   105944  raw    157768  117813    54483  wah
//	0.5       525685  133165   131095  raw    524218  129541    66448  wah
//	0.99     1038274   94109    19342  wah   1038020   26309     7626  wah
//
// ("best" is among list, wah and raw, auto's candidates; auto matched it at
// every measured density, plus its tag byte.) zlib-bs is smaller still at
// mid densities but costs an order of magnitude more time (BenchmarkCodecs).
//
// Uniform frontiers are what a run with Graph500's vertex permutation sees;
// the skewed ones (vertex v drawn with weight 0.76^zeros(v)·0.24^ones(v))
// model an unpermuted Kronecker graph, whose sparse high ids leave runs of
// empty words for WAH.
const (
	// autoListDensity: a list costs at least one byte per set bit, so it can
	// only beat raw's 8·W bytes below a density of 1/8. The measurements put
	// the uniform crossover at 0.12–0.125, so the bound is also the threshold.
	autoListDensity = 8
	// autoWAHUniform: a WAH stream is 64/63 of raw plus one word per fill, so
	// it can only beat raw when at least 1/64 of the words are uniform (all
	// zeros or all ones). Uniform frontiers of density ≥ 0.07 have almost no
	// uniform words, and auto then never spends time on WAH.
	autoWAHUniform = 64
	// autoWAHMixedBytes: WAH spends one 8-byte literal on each non-uniform
	// 63-bit group, and a mixed (non-uniform) word makes at least one of the
	// two groups it overlaps non-uniform unless its bits split exactly at a
	// group boundary: about 4 bytes per mixed word at the least. A list
	// shorter than that is not worth trying WAH against.
	// Random sparse frontiers (list ≈ 1–3 bytes per mixed word) stop there;
	// clustered or skewed ones encode WAH too and keep the shorter.
	autoWAHMixedBytes = 4
)

// autoCodec picks per message the smallest of empty, list, wah and raw with
// the rule documented on New.
type autoCodec struct {
	last byte
	used bool
}

func (*autoCodec) Name() string { return nameAuto }

// LastChoice names the encoding the last Encode used: "empty", "list", "wah"
// or "raw" ("" before the first Encode).
func (c *autoCodec) LastChoice() string {
	if !c.used {
		return ""
	}
	return autoChoice(c.last)
}

func (c *autoCodec) Encode(dst []byte, src Bitmap) ([]byte, error) {
	var count, mixed int // set bits; words neither all zeros nor all ones
	for _, w := range src {
		count += bits.OnesCount64(w)
		if w+1 > 1 { // w != 0 && w != ^0
			mixed++
		}
	}
	c.used = true
	if count == 0 {
		c.last = autoEmpty
		return append(dst, autoEmpty), nil
	}
	// Candidates go to dst one after the other; the shortest is moved to
	// start. Raw is the fallback and is only written at the end.
	start := len(dst)
	best, bestLen := autoRaw, 8*len(src) // payload length of the best so far
	tryWAH := (len(src)-mixed)*autoWAHUniform >= len(src)
	if count*autoListDensity < len(src)*64 {
		dst = appendList(append(dst, autoList), src, int64(count))
		if n := len(dst) - start - 1; n < bestLen {
			best, bestLen = autoList, n
			tryWAH = tryWAH && n > autoWAHMixedBytes*mixed
		} else {
			dst = dst[:start]
		}
	}
	if tryWAH {
		mid := len(dst)
		dst = wah.Encode(append(dst, autoWAH), src)
		if n := len(dst) - mid - 1; n < bestLen {
			best, bestLen = autoWAH, n
			dst = dst[:start+copy(dst[start:], dst[mid:])]
		} else {
			dst = dst[:mid]
		}
	}
	c.last = best
	if best == autoRaw {
		return src.AppendBytes(append(dst[:start], autoRaw)), nil
	}
	return dst[:start+1+bestLen], nil
}

func (c *autoCodec) Decode(dst Bitmap, src []byte) error {
	return c.decode(dst, src, false)
}

func (c *autoCodec) DecodeOr(dst Bitmap, src []byte) error {
	return c.decode(dst, src, true)
}

func (c *autoCodec) decode(dst Bitmap, src []byte, or bool) error {
	if len(src) == 0 {
		return corrupt(nameAuto, "empty message")
	}
	tag, payload := src[0], src[1:]
	switch tag {
	case autoEmpty:
		if len(payload) != 0 {
			return corrupt(nameAuto, "%d bytes after the empty tag", len(payload))
		}
		if !or {
			clear(dst)
		}
		return nil
	case autoList:
		if !or {
			clear(dst)
		}
		return decodeList(nameAuto+"/"+nameList, dst, payload)
	case autoWAH:
		return decodeWAH(nameAuto+"/"+nameWAH, dst, payload, or)
	case autoRaw:
		return decodeRaw(nameAuto+"/"+nameRaw, dst, payload, or)
	}
	return corrupt(nameAuto, "unknown tag %d", tag)
}
