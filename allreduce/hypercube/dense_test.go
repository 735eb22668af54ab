package hypercube

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/inproc"
)

// denseInput is rank r's element i: small integers, so that float sums are
// exact whatever the order of addition.
func denseInput(r, i int) float64 { return float64((r*7919+i*104729)%2001 - 1000) }

// runDense runs alg on p in-process ranks with vectors of n elements of
// denseInput, reduced with op, and returns every rank's result.
func runDense[T Elem](t *testing.T, p, n int, alg Algorithm, opts Options, op Op[T], input func(r, i int) T) [][]T {
	t.Helper()
	out := make([][]T, p)
	err := inproc.Run(context.Background(), p, func(ctx context.Context, c comm.Comm) error {
		d, err := New[T](ctx, c, alg, opts)
		if err != nil {
			return err
		}
		vec := make([]T, n)
		for i := range vec {
			vec[i] = input(c.Rank(), i)
		}
		if err := d.Allreduce(ctx, vec, op); err != nil {
			return err
		}
		out[c.Rank()] = vec
		return nil
	})
	if err != nil {
		t.Fatalf("%s on %d ranks, n = %d: %v", alg, p, n, err)
	}
	return out
}

// serialReduce is the reference: op over the ranks' inputs, rank 0 first.
func serialReduce[T Elem](p, n int, op Op[T], input func(r, i int) T) []T {
	acc := make([]T, n)
	x := make([]T, n)
	for r := range p {
		for i := range x {
			x[i] = input(r, i)
		}
		if r == 0 {
			copy(acc, x)
		} else {
			op(acc, x)
		}
	}
	return acc
}

func checkAll[T Elem](t *testing.T, what string, got [][]T, want []T) {
	t.Helper()
	for r, v := range got {
		if !slices.Equal(v, want) {
			for i := range want {
				if v[i] != want[i] {
					t.Fatalf("%s: rank %d element %d = %v, want %v", what, r, i, v[i], want[i])
				}
			}
			t.Fatalf("%s: rank %d has %d elements, want %d", what, r, len(v), len(want))
		}
	}
}

// TestDenseEveryP: every algorithm, every p in 1..33, vectors shorter and
// longer than the number of chunk classes.
func TestDenseEveryP(t *testing.T) {
	for _, alg := range Algorithms() {
		for p := 1; p <= 33; p++ {
			for _, n := range []int{0, 1, 7, 300} {
				got := runDense(t, p, n, alg, Options{}, Sum[float64], denseInput)
				checkAll(t, fmt.Sprintf("%s p=%d n=%d", alg, p, n), got, serialReduce(p, n, Sum[float64], denseInput))
			}
		}
	}
}

// TestDenseOps: built-in min and max, a user function, integer and 32-bit
// types, workers and pipelining.
func TestDenseOps(t *testing.T) {
	bitOr := func(acc, x []uint64) {
		for i := range acc {
			acc[i] |= x[i]
		}
	}
	for _, alg := range Algorithms() {
		for _, p := range []int{2, 5, 8, 13} {
			for _, opts := range []Options{{}, {Workers: 3}, {Pieces: 3, Workers: 2}} {
				n := 3*minPieceElems + 17
				what := fmt.Sprintf("%s p=%d workers=%d pieces=%d", alg, p, opts.Workers, opts.Pieces)
				checkAll(t, what+" min", runDense(t, p, n, alg, opts, Min[float64], denseInput),
					serialReduce(p, n, Min[float64], denseInput))
				i64 := func(r, i int) int64 { return int64(denseInput(r, i)) << 20 }
				checkAll(t, what+" max int64", runDense(t, p, n, alg, opts, Max[int64], i64),
					serialReduce(p, n, Max[int64], i64))
				f32 := func(r, i int) float32 { return float32(denseInput(r, i)) }
				checkAll(t, what+" sum float32", runDense(t, p, n, alg, opts, Sum[float32], f32),
					serialReduce(p, n, Sum[float32], f32))
				bits := func(r, i int) uint64 { return 1 << ((r + i) % 64) }
				checkAll(t, what+" or", runDense(t, p, n, alg, opts, bitOr, bits),
					serialReduce(p, n, bitOr, bits))
			}
		}
	}
}

// TestDenseTopologies runs both hypercube algorithms on random
// memberships (freed ids anywhere).
func TestDenseTopologies(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	runs := 120
	if testing.Short() {
		runs = 40
	}
	for step := range runs {
		ids := randomMembers(rng, 1+rng.IntN(30))
		if len(ids) == 0 || len(ids) > 24 {
			continue
		}
		topo, err := TopologyOf(ids)
		if err != nil {
			t.Fatal(err)
		}
		p := topo.Len()
		n := 1 + rng.IntN(200)
		opts := Options{Topology: topo}
		for _, alg := range []Algorithm{AlgHypercube, AlgChunked} {
			got := runDense(t, p, n, alg, opts, Sum[float64], denseInput)
			checkAll(t, fmt.Sprintf("step %d %s on %v (rebalanced %v)", step, alg, topo.Members(), topo.Rebalanced()),
				got, serialReduce(p, n, Sum[float64], denseInput))
		}
	}
}

// TestDenseBitsAgree: with random floats, tree, butterfly and chunked give
// every rank the same bits, and a second run the same bits again.
func TestDenseBitsAgree(t *testing.T) {
	input := func(r, i int) float64 {
		rng := rand.New(rand.NewPCG(uint64(r), uint64(i)))
		return rng.NormFloat64() * math.Exp(rng.Float64()*20-10)
	}
	for _, alg := range []Algorithm{AlgTree, AlgButterfly, AlgChunked} {
		for _, p := range []int{3, 6, 8, 11} {
			first := runDense(t, p, 500, alg, Options{}, Sum[float64], input)
			again := runDense(t, p, 500, alg, Options{Pieces: 2, Workers: 2}, Sum[float64], input)
			for r := range first {
				if !slices.Equal(first[r], first[0]) {
					t.Errorf("%s p=%d: rank %d differs from rank 0", alg, p, r)
				}
				if !slices.Equal(again[r], first[0]) {
					t.Errorf("%s p=%d: rank %d of the second run differs", alg, p, r)
				}
			}
			want := serialReduce(p, 500, Sum[float64], input)
			for i, v := range first[0] {
				if math.Abs(v-want[i]) > 1e-9*math.Max(1, math.Abs(want[i])) {
					t.Fatalf("%s p=%d element %d: %v, want %v", alg, p, i, v, want[i])
				}
			}
		}
	}
}

// TestDenseCounters: the chunked hypercube on 8 ranks sends three messages
// in each direction, halving each time; the tree's root receives the
// whole vector log₂ p times.
func TestDenseCounters(t *testing.T) {
	const p, n = 8, 800
	w, _ := inproc.NewWorld(p)
	err := onRanks(w, p, func(c comm.Comm) error {
		for _, alg := range []Algorithm{AlgChunked, AlgTree} {
			d, err := New[float64](context.Background(), c, alg, Options{})
			if err != nil {
				return err
			}
			if err := d.Allreduce(context.Background(), make([]float64, n), Sum[float64]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for r := range p {
		st := w.Comm(r).Stats()
		for d, want := range []int64{n / 2, n / 4, n / 8} {
			for _, pass := range []string{"rs", "ag"} {
				got := st.Phase(fmt.Sprintf("dense.chunked.%s.%d", pass, d))
				if got.Messages != 1 || got.BytesSent != 8*want || got.BytesRecv != 8*want {
					t.Errorf("rank %d %s dim %d: %+v, want 1 message of %d bytes each way", r, pass, d, got, 8*want)
				}
			}
		}
	}
	root := w.Comm(0).Stats()
	for k := range 3 {
		if got := root.Phase(fmt.Sprintf("dense.tree.reduce.%d", k)); got.BytesRecv != 8*n || got.BytesSent != 0 {
			t.Errorf("tree root round %d: %+v", k, got)
		}
	}
	names, err := PhaseNames(AlgChunked, p, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"dense.chunked.rs.0", "dense.chunked.rs.1", "dense.chunked.rs.2",
		"dense.chunked.ag.2", "dense.chunked.ag.1", "dense.chunked.ag.0"}; !slices.Equal(names, want) {
		t.Errorf("PhaseNames = %v, want %v", names, want)
	}
}

// TestDenseAllocations: once the buffers have grown, a call allocates a
// bounded number of objects whatever the vector length.
func TestDenseAllocations(t *testing.T) {
	measure := func(n int, opts Options) uint64 {
		var mallocs uint64
		err := inproc.Run(context.Background(), 4, func(ctx context.Context, c comm.Comm) error {
			d, err := New[float64](ctx, c, AlgChunked, opts)
			if err != nil {
				return err
			}
			vec := make([]float64, n)
			for range 2 {
				if err := d.Allreduce(ctx, vec, Sum[float64]); err != nil {
					return err
				}
			}
			if err := c.Barrier(ctx, "t"); err != nil {
				return err
			}
			var before, after runtime.MemStats
			if c.Rank() == 0 {
				runtime.ReadMemStats(&before)
			}
			if err := c.Barrier(ctx, "t"); err != nil {
				return err
			}
			for range 5 {
				if err := d.Allreduce(ctx, vec, Sum[float64]); err != nil {
					return err
				}
			}
			if err := c.Barrier(ctx, "t"); err != nil {
				return err
			}
			if c.Rank() == 0 {
				runtime.ReadMemStats(&after)
				mallocs = after.Mallocs - before.Mallocs
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return mallocs
	}
	for _, opts := range []Options{{}, {Workers: 2, Pieces: 4}} {
		small, large := measure(1<<14, opts), measure(1<<18, opts)
		t.Logf("workers %d pieces %d: %d mallocs for 2^14 elements, %d for 2^18", opts.Workers, opts.Pieces, small, large)
		if large > 2*small+200 {
			t.Errorf("workers %d pieces %d: allocations grow with the vector: %d for 2^14 elements, %d for 2^18",
				opts.Workers, opts.Pieces, small, large)
		}
	}
}

// runErrs runs fn on p ranks and returns every rank's error.
func runErrs(p int, fn func(ctx context.Context, c comm.Comm) error) []error {
	errs := make([]error, p)
	var mu sync.Mutex
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_ = inproc.Run(ctx, p, func(ctx context.Context, c comm.Comm) error {
		err := fn(ctx, c)
		mu.Lock()
		errs[c.Rank()] = err
		mu.Unlock()
		return err
	})
	return errs
}

// expectAll checks that every rank failed, with local or with the abort
// another rank's failure caused.
func expectAll(t *testing.T, what string, errs []error, local error) {
	t.Helper()
	for r, err := range errs {
		if err == nil || (!errors.Is(err, local) && !errors.Is(err, comm.ErrAborted)) {
			t.Errorf("%s: rank %d: %v", what, r, err)
		}
	}
}

// TestDenseErrors: invalid or disagreeing arguments fail on every rank
// with ErrInvalid.
func TestDenseErrors(t *testing.T) {
	const p = 4
	// Ranks disagree on the algorithm.
	errs := runErrs(p, func(ctx context.Context, c comm.Comm) error {
		alg := AlgChunked
		if c.Rank() == 2 {
			alg = AlgTree
		}
		_, err := New[float64](ctx, c, alg, Options{})
		return err
	})
	expectAll(t, "disagreeing algorithms", errs, ErrInvalid)
	// An unknown algorithm on one rank, a topology of the wrong size.
	errs = runErrs(p, func(ctx context.Context, c comm.Comm) error {
		alg := AlgChunked
		if c.Rank() == 1 {
			alg = Algorithm(9)
		}
		_, err := New[float64](ctx, c, alg, Options{})
		return err
	})
	expectAll(t, "unknown algorithm", errs, ErrInvalid)
	topo, _ := NewTopology(3)
	errs = runErrs(p, func(ctx context.Context, c comm.Comm) error {
		_, err := New[float64](ctx, c, AlgHypercube, Options{Topology: topo})
		return err
	})
	expectAll(t, "topology of 3 nodes on 4 ranks", errs, ErrInvalid)
	// Vectors of different lengths, on every algorithm.
	for _, alg := range Algorithms() {
		errs = runErrs(p, func(ctx context.Context, c comm.Comm) error {
			d, err := New[float64](ctx, c, alg, Options{})
			if err != nil {
				return err
			}
			return d.Allreduce(ctx, make([]float64, 100+c.Rank()%2), Sum[float64])
		})
		expectAll(t, alg.String()+" with different lengths", errs, ErrInvalid)
	}
	// A nil reduction.
	errs = runErrs(p, func(ctx context.Context, c comm.Comm) error {
		d, err := New[float64](ctx, c, AlgButterfly, Options{})
		if err != nil {
			return err
		}
		return d.Allreduce(ctx, make([]float64, 10), nil)
	})
	expectAll(t, "nil reduction", errs, ErrInvalid)
}

// TestDenseFailures: a reduction that panics or a rank whose context ends
// fails the call on every rank, and nobody hangs.
func TestDenseFailures(t *testing.T) {
	const p = 4
	for _, opts := range []Options{{}, {Workers: 2, Pieces: 2}} {
		errs := runErrs(p, func(ctx context.Context, c comm.Comm) error {
			d, err := New[float64](ctx, c, AlgChunked, opts)
			if err != nil {
				return err
			}
			return d.Allreduce(ctx, make([]float64, 20000), func(acc, x []float64) { panic("reduction failed") })
		})
		var pe *comm.PanicError
		panicked := false
		for r, err := range errs {
			if err == nil {
				t.Errorf("panicking reduction: rank %d: no error", r)
			}
			if errors.As(err, &pe) && strings.Contains(fmt.Sprint(pe.Value), "reduction failed") {
				panicked = true
			}
		}
		if !panicked {
			t.Errorf("panicking reduction (pieces %d): no rank reports the panic: %v", opts.Pieces, errs)
		}
	}
	// A rank whose context is cancelled mid-way: everyone fails, nobody hangs.
	for _, opts := range []Options{{}, {Workers: 2, Pieces: 4}} {
		errs := runErrs(p, func(ctx context.Context, c comm.Comm) error {
			d, err := New[float64](ctx, c, AlgTree, opts)
			if err != nil {
				return err
			}
			if c.Rank() == 3 {
				cctx, cancel := context.WithCancel(ctx)
				cancel()
				ctx = cctx
			}
			return d.Allreduce(ctx, make([]float64, 50000), Sum[float64])
		})
		if !errors.Is(errs[3], context.Canceled) {
			t.Errorf("cancelled rank (pieces %d): %v", opts.Pieces, errs[3])
		}
		// The others see the abort, or the cancellation inproc.Run passes on.
		for r, err := range errs[:3] {
			if !errors.Is(err, comm.ErrAborted) && !errors.Is(err, context.Canceled) {
				t.Errorf("cancelled rank 3 (pieces %d): rank %d: %v", opts.Pieces, r, err)
			}
		}
	}
}

// TestDensePortable runs every algorithm with the element-by-element
// encoding of a big-endian host (and the decode path of unaligned receive
// buffers).
func TestDensePortable(t *testing.T) {
	const p = 5
	n := 2*minPieceElems + 5
	for _, alg := range Algorithms() {
		for _, opts := range []Options{{}, {Pieces: 2, Workers: 2}} {
			got := make([][]int32, p)
			err := inproc.Run(context.Background(), p, func(ctx context.Context, c comm.Comm) error {
				d, err := New[int32](ctx, c, alg, opts)
				if err != nil {
					return err
				}
				d.native = false
				vec := make([]int32, n)
				for i := range vec {
					vec[i] = int32(denseInput(c.Rank(), i))
				}
				if err := d.Allreduce(ctx, vec, Sum[int32]); err != nil {
					return err
				}
				got[c.Rank()] = vec
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			in := func(r, i int) int32 { return int32(denseInput(r, i)) }
			checkAll(t, fmt.Sprintf("%s portable pieces %d", alg, opts.Pieces), got, serialReduce(p, n, Sum[int32], in))
		}
	}
}

func TestElemCodec(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	roundTrip := func(name string, encode func() []byte, check func([]byte) bool) {
		if b := encode(); !check(b) {
			t.Errorf("%s: round trip failed", name)
		}
	}
	f64 := []float64{0, -1.5, math.Inf(1), math.SmallestNonzeroFloat64, rng.NormFloat64()}
	roundTrip("float64", func() []byte { b := make([]byte, 8*len(f64)); encodeElems(b, f64); return b }, func(b []byte) bool {
		back := make([]float64, len(f64))
		decodeElems(back, b)
		return slices.Equal(back, f64) && (!hostLittleEndian || slices.Equal(b, asBytes(f64)))
	})
	f32 := []float32{1, -2.25, float32(rng.NormFloat64())}
	roundTrip("float32", func() []byte { b := make([]byte, 4*len(f32)); encodeElems(b, f32); return b }, func(b []byte) bool {
		back := make([]float32, len(f32))
		decodeElems(back, b)
		return slices.Equal(back, f32)
	})
	i64 := []int64{math.MinInt64, -1, 0, math.MaxInt64}
	roundTrip("int64", func() []byte { b := make([]byte, 8*len(i64)); encodeElems(b, i64); return b }, func(b []byte) bool {
		back := make([]int64, len(i64))
		decodeElems(back, b)
		return slices.Equal(back, i64)
	})
	u64 := []uint64{0, math.MaxUint64, 12345}
	roundTrip("uint64", func() []byte { b := make([]byte, 8*len(u64)); encodeElems(b, u64); return b }, func(b []byte) bool {
		back := make([]uint64, len(u64))
		decodeElems(back, b)
		return slices.Equal(back, u64)
	})
	i32 := []int32{math.MinInt32, -7, math.MaxInt32}
	roundTrip("int32", func() []byte { b := make([]byte, 4*len(i32)); encodeElems(b, i32); return b }, func(b []byte) bool {
		back := make([]int32, len(i32))
		decodeElems(back, b)
		return slices.Equal(back, i32)
	})
	u32 := []uint32{0, math.MaxUint32}
	roundTrip("uint32", func() []byte { b := make([]byte, 4*len(u32)); encodeElems(b, u32); return b }, func(b []byte) bool {
		back := make([]uint32, len(u32))
		decodeElems(back, b)
		return slices.Equal(back, u32)
	})
	buf := make([]byte, 24)
	if hostLittleEndian {
		buf = asBytes(make([]float64, 3)) // 8-byte aligned
	}
	if _, ok := asElems[float64](buf[1:17]); ok {
		t.Error("asElems accepted an unaligned buffer")
	}
	if _, ok := asElems[float64](buf[:12]); ok {
		t.Error("asElems accepted a partial element")
	}
	if v, ok := asElems[float64](buf[8:24]); !ok || len(v) != 2 {
		t.Error("asElems rejected an aligned buffer")
	}
	if elemName[uint32]() != "uint32" || elemSize[int32]() != 4 || elemSize[uint64]() != 8 {
		t.Error("element names or sizes")
	}
}

// TestParseNames: every algorithm parses from the name it prints (the
// hypercube algorithms from their short forms too), and an unknown name is
// refused naming the accepted ones.
func TestParseNames(t *testing.T) {
	for _, a := range Algorithms() {
		if got, err := ParseAlgorithm(a.String()); err != nil || got != a {
			t.Errorf("ParseAlgorithm(%q) = %v, %v", a.String(), got, err)
		}
	}
	if a, err := ParseAlgorithm("chunked"); err != nil || a != AlgChunked || a.String() != "hypercube-chunked" {
		t.Errorf("ParseAlgorithm(chunked) = %v, %v", a, err)
	}
	if a, err := ParseAlgorithm("unsplittable"); err != nil || a != AlgHypercube {
		t.Errorf("ParseAlgorithm(unsplittable) = %v, %v", a, err)
	}
	_, err := ParseAlgorithm("ring")
	if want := ErrInvalid.Error() + `: unknown dense allreduce algorithm "ring" (want tree, butterfly, hypercube-unsplittable, hypercube-chunked)`; !errors.Is(err, ErrInvalid) || err.Error() != want {
		t.Errorf("ParseAlgorithm(ring): %v, want %s", err, want)
	}
}
