package wah

import "fmt"

// runReader walks the regular words of one operand as runs: a literal is a
// run of one group, a fill a run of n groups of a constant pattern.
type runReader[W word] struct {
	body []byte
	i    int    // next word to load
	nreg int    // number of regular words
	n    uint64 // groups left in the current run; 0: load the next word
	v    uint64 // the current literal, or the fill's group pattern (0 or all ones)
	fill bool   // the current run is a fill
}

// next loads the next run; left is the number of groups the bitmap still has,
// which bounds the run.
func (r *runReader[W]) next(left uint64) error {
	g, flag, fillOne, runMask := wordBits[W]()
	if r.i >= r.nreg {
		return errShort(r.i, left)
	}
	x := load[W](r.body, r.i)
	r.i++
	if x&flag == 0 {
		r.v, r.n, r.fill = x, 1, false
		return nil
	}
	n := x & runMask
	if n == 0 || n > left {
		return errRun(r.i-1, n, left)
	}
	r.v, r.n, r.fill = 0, n, true
	if x&fillOne != 0 {
		r.v = uint64(1)<<g - 1
	}
	return nil
}

// appender writes canonical WAH words: literals that are all zeros or all
// ones become fills, and a fill extends the previous word when that is a fill
// of the same bit with room left in its counter.
type appender[W word] struct {
	dst    []byte
	last   int // byte offset in dst of the last word if it is a fill, else −1
	maxRun uint64
}

func (a *appender[W]) fill(b, n uint64) {
	g := groupBits[W]()
	f := uint64(1)<<g | b<<(g-1)
	if a.last >= 0 {
		x := load[W](a.dst[a.last:], 0)
		if cur := x & (uint64(1)<<(g-1) - 1); x-cur == f && cur < a.maxRun {
			add := min(n, a.maxRun-cur)
			store[W](a.dst, a.last, x+add)
			n -= add
		}
	}
	for n > 0 {
		k := min(n, a.maxRun)
		a.last = len(a.dst)
		a.dst = appendWord[W](a.dst, f|k)
		n -= k
	}
}

func (a *appender[W]) literal(v uint64) {
	g := groupBits[W]()
	switch v {
	case 0:
		a.fill(0, 1)
	case uint64(1)<<g - 1:
		a.fill(1, 1)
	default:
		a.dst = appendWord[W](a.dst, v)
		a.last = -1
	}
}

// merge appends to dst the canonical encoding of a AND b (or a OR b) for two
// word sections of nbits bits each. Two fills combine in one step over their
// common length; otherwise one group is combined. On error dst is returned
// unchanged in length.
func merge[W word](dst []byte, a, b []byte, nbits uint64, and bool, maxRun uint64) ([]byte, error) {
	nra, left, r, err := layout[W](a, nbits)
	if err != nil {
		return dst, fmt.Errorf("first operand: %w", err)
	}
	nrb, _, _, err := layout[W](b, nbits)
	if err != nil {
		return dst, fmt.Errorf("second operand: %w", err)
	}
	start := len(dst)
	out := appender[W]{dst: appendHeader(dst, wordBytes[W](), nbits), last: -1, maxRun: maxRun}
	ra := runReader[W]{body: a, nreg: nra}
	rb := runReader[W]{body: b, nreg: nrb}
	for left > 0 {
		if ra.n == 0 {
			if err := ra.next(left); err != nil {
				return out.dst[:start], fmt.Errorf("first operand: %w", err)
			}
		}
		if rb.n == 0 {
			if err := rb.next(left); err != nil {
				return out.dst[:start], fmt.Errorf("second operand: %w", err)
			}
		}
		v := ra.v | rb.v
		if and {
			v = ra.v & rb.v
		}
		if ra.fill && rb.fill {
			k := min(ra.n, rb.n)
			out.fill(v&1, k)
			ra.n -= k
			rb.n -= k
			left -= k
			continue
		}
		out.literal(v)
		ra.n--
		rb.n--
		left--
	}
	if ra.i != nra {
		return out.dst[:start], fmt.Errorf("first operand: %w", errLong(ra.i, nra))
	}
	if rb.i != nrb {
		return out.dst[:start], fmt.Errorf("second operand: %w", errLong(rb.i, nrb))
	}
	if r > 0 {
		xa, xb := load[W](a, nra), load[W](b, nrb)
		if xa>>r != 0 {
			return out.dst[:start], fmt.Errorf("first operand: %w", errActive(xa, r))
		}
		if xb>>r != 0 {
			return out.dst[:start], fmt.Errorf("second operand: %w", errActive(xb, r))
		}
		v := xa | xb
		if and {
			v = xa & xb
		}
		out.dst = appendWord[W](out.dst, v)
	}
	return out.dst, nil
}
