package allreduce

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/graphrun/graphrun/allreduce/internal/agree"
	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/internal/enum"
)

// ErrInvalid is wrapped by every error about invalid arguments: a malformed
// index set, an unknown kind, degrees that do not multiply to the rank count,
// value slices of the wrong length, or ranks that disagree on n, the kind or
// the degrees.
var ErrInvalid = agree.ErrInvalid

// Kind is the network of a sparse allreduce.
type Kind int

// Kinds of network.
const (
	KindKylix  Kind = iota // nested heterogeneous-degree butterfly (given or auto degrees)
	KindDirect             // one layer of degree P (Kylix Fig. 1b)
	KindBinary             // degrees 2×…×2 (prime factors when P is not a power of two)
)

// kindNames are the names ParseKind accepts and String prints.
var kindNames = [...]string{KindKylix: "kylix", KindDirect: "direct", KindBinary: "binary"}

func (k Kind) String() string { return enum.Name(kindNames[:], "kind", k) }

// ParseKind turns a name (kylix, direct or binary) into a Kind.
func ParseKind(s string) (Kind, error) {
	return enum.Parse[Kind](kindNames[:], "kind", "kylix, direct or binary", s)
}

// Sparse is one rank's configured sparse allreduce: the position maps of its
// in- and out-sets through the network, and the buffers a reduction reuses.
// It is not safe for concurrent use; Reduce is a collective and every rank
// must call it the same number of times.
type Sparse interface {
	// Reduce contributes out[t] for index out-set[t] and stores in in[t] the
	// sum over all ranks for index in-set[t]. len(out) and len(in) must be
	// the sizes of the sets given to New. If apply is not nil it runs on
	// every rank once the down pass is complete, with home the rank's home
	// indices (sorted: every index some rank contributes or wants whose home
	// is this rank) and sums their sums (0 for an index no rank contributes).
	// apply may overwrite sums in place — the up pass then delivers the
	// transformed values (PageRank computes its update there) — but must not
	// modify home or keep either slice after it returns.
	Reduce(ctx context.Context, out []float64, in []float64, apply func(home []int64, sums []float64)) error
	// ReduceScalars is Reduce that also sums a few scalars over all ranks
	// in the same pass, so that a caller needs no separate allreduce for
	// them. scalars holds this rank's contributions; apply, if not nil, may
	// still change them (it runs before they are read, so quantities that
	// are computed at home, such as PageRank's L1 change, can be summed).
	// The up pass carries them: at every layer a rank sends its running sum
	// to each member of its group along with the values, and adds the d
	// running sums of the group in member order, so after the top layer
	// every rank holds the same sum, bit for bit. On return scalars holds
	// the sums over all ranks. Every rank must pass the same number of
	// scalars; with P = 1 they are left as they are.
	ReduceScalars(ctx context.Context, out, in, scalars []float64, apply func(home []int64, sums []float64)) error
	// Layers is the number of layers of the network (0 when P = 1).
	Layers() int
	// Degrees is a copy of the degree vector, one degree per layer.
	Degrees() []int
	// Name is the kind and degrees, e.g. "kylix 8x4x2", "direct 64".
	Name() string
	// Home is this rank's home list (the home argument of apply); read only.
	Home() []int64
	// Arrange tells where the caller keeps its values from now on: the
	// value of out-set element t at out[outAt[t]], and the sum of in-set
	// element t delivered to in[inAt[t]]. Both must be permutations (of the
	// out-set's and the in-set's positions); the sums and their order of
	// addition do not change, so results are bit-identical to an
	// unarranged Reduce on vectors permuted by hand. A caller whose kernel
	// keeps its vectors in another order than the sets' (PageRank: x by
	// degree slot, y by column position) saves the copy through that order
	// on every call: the first layer's maps are composed with it once. It
	// is local (no collective), may be called once, and holds for every
	// Reduce after it; it keeps no reference to outAt and inAt.
	Arrange(outAt, inAt []int32) error
}

// New configures a sparse allreduce of an n-vector on c (Kylix §III-A).
// It is a collective: every rank calls it with the same kind, degrees and n
// and its own IN set (indices whose sums it wants) and OUT set (indices it
// contributes), both sorted, unique and in [0, n). kind is KindKylix,
// KindDirect or KindBinary; degrees apply to kylix only (nil means auto:
// AutoDegrees with DefaultMinPacket; an empty, non-nil vector means no layers,
// valid for P = 1) and must be nil for the other kinds. New keeps no
// reference to in and out.
//
// If any rank's arguments are invalid, or the ranks disagree, New returns an
// error wrapping ErrInvalid on every rank.
func New(ctx context.Context, c comm.Comm, kind Kind, degrees []int, n int64, in, out []int64) (Sparse, error) {
	p, err := setup(ctx, c, kind, degrees, n, in, out, nil)
	if err != nil {
		return nil, err
	}
	if err := p.configure(ctx, in, out, nil, false); err != nil {
		return nil, err
	}
	return p, nil
}

// ConfigReduce configures and reduces in one down-up pass (Kylix §III-C),
// for index sets that change on every call: the arguments are those of New,
// followed by those of Reduce. outVals must have len(out) values and inVals
// len(in). The results are bit-identical to New followed by Reduce. Auto
// degrees (kylix, degrees nil) are designed on every call; callers that call
// often should design them once with AutoDegrees.
func ConfigReduce(ctx context.Context, c comm.Comm, kind Kind, degrees []int, n int64, in, out []int64,
	outVals, inVals []float64, apply func(home []int64, sums []float64)) error {
	check := func() error {
		if len(outVals) != len(out) || len(inVals) != len(in) {
			return fmt.Errorf("%w: %d out values for %d out indices, room for %d in values for %d in indices",
				ErrInvalid, len(outVals), len(out), len(inVals), len(in))
		}
		return nil
	}
	p, err := setup(ctx, c, kind, degrees, n, in, out, check)
	if err != nil {
		return err
	}
	if err := p.configure(ctx, in, out, outVals, true); err != nil {
		return err
	}
	cur := outVals
	if l := len(p.layers); l > 0 {
		cur = p.outVals[l]
	}
	return p.finish(ctx, cur, inVals, nil, apply, false)
}

// AutoDegrees designs kylix degrees for the job from the measured mean
// densities of the in- and out-sets (one AllreduceInt64 in phase
// PhaseDesign) with DesignDegrees and the minimum efficient packet size
// minPacket in bytes. It is a collective and returns the same degrees on
// every rank.
func AutoDegrees(ctx context.Context, c comm.Comm, n int64, in, out []int64, minPacket int) ([]int, error) {
	sizes := []int64{int64(len(in)), int64(len(out))}
	if err := c.AllreduceInt64(ctx, PhaseDesign, sizes, comm.Sum); err != nil {
		return nil, fmt.Errorf("allreduce: measuring densities: %w", err)
	}
	p := c.Size()
	var inD, outD float64
	if n > 0 {
		total := float64(p) * float64(n)
		inD, outD = float64(sizes[0])/total, float64(sizes[1])/total
	}
	return DesignDegrees(p, inD, outD, n, minPacket), nil
}

// plan is the Sparse of one rank.
type plan struct {
	c       comm.Comm
	kind    Kind
	degrees []int
	n       int64
	nIn     int // size of the caller's in-set
	nOut    int // size of the caller's out-set
	layers  []layer

	home        []int64   // union of in^L and out^L
	homeFromOut []int32   // position in home of each element of out^L
	homeFromIn  []int32   // position in home of each element of in^L
	inOnly      []int32   // positions in home of no element of out^L: their sum is 0
	sums        []float64 // values of home
	outVals     [][]float64
	inVals      [][]float64 // outVals[l], inVals[l]: values of out^l, in^l (l ≥ 1; 0 is the caller's)
	scalarSums  []float64   // ReduceScalars' running sums of one layer
	arranged    bool        // Arrange has composed the caller's order into the maps
}

// layer is one layer of the butterfly as seen by one rank.
type layer struct {
	index   int   // 1-based
	degree  int   // d
	stride  int   // product of the degrees below
	self    int   // this rank's digit: its position in members
	members []int // ranks of the group, by digit

	// Sender side: part k of the list of node layer index−1 is at positions
	// perm[off[k]:off[k+1]] of that list.
	outPerm []int32
	outOff  []int
	inPerm  []int32
	inOff   []int
	// Receiver side: g_k and f_k of the paper, from positions in the part
	// received from member k to positions in the union.
	outMap [][]int32
	inMap  [][]int32
	// On the top layer (the last of the down pass), the same maps composed
	// with the home list's: from positions in member k's part straight to
	// positions in home, so Reduce sums into the home sums and the up pass
	// reads them there, with no copy through the values of out^L and in^L.
	outHome, inHome [][]int32

	send, recv [][]byte // by rank, reused by every call
	payload    [][]byte // by member: the values of the message in hand

	configPhase, crPhase, downPhase, upPhase string
}

// setup validates the arguments, checks that the ranks agree, resolves the
// degrees and lays out the layers. extra, if not nil, adds a local check.
func setup(ctx context.Context, c comm.Comm, kind Kind, degrees []int, n int64, in, out []int64, extra func() error) (*plan, error) {
	size := c.Size()
	deg, sig, err := resolveKind(kind, degrees, size)
	if err == nil {
		err = validateSets(in, out, n)
	}
	if err == nil && extra != nil {
		err = extra()
	}
	if err := agreeArgs(ctx, c, n, sig, err); err != nil {
		return nil, err
	}
	if deg == nil {
		deg, err = AutoDegrees(ctx, c, n, in, out, DefaultMinPacket)
		if err != nil {
			return nil, err
		}
	}
	return newPlan(c, kind, deg, n, len(in), len(out)), nil
}

// resolveKind returns the degrees of kind (nil for auto) and a signature of
// the choice that every rank must share.
func resolveKind(kind Kind, degrees []int, p int) ([]int, int64, error) {
	var deg []int
	desc := kind.String() + " "
	switch kind {
	case KindKylix:
		if degrees == nil {
			desc += "auto"
			break
		}
		var err error
		if deg, err = normalizeDegrees(degrees, p); err != nil {
			return nil, 0, err
		}
		desc += FormatDegrees(deg)
	case KindDirect, KindBinary:
		if degrees != nil {
			return nil, 0, fmt.Errorf("%w: kind %q takes no degrees (got %s)", ErrInvalid, kind, FormatDegrees(degrees))
		}
		if kind == KindDirect {
			deg = DirectDegrees(p)
		} else {
			deg = BinaryDegrees(p)
		}
		desc += FormatDegrees(deg)
	default:
		return nil, 0, fmt.Errorf("%w: unknown kind %v (want %q, %q or %q)", ErrInvalid, kind, KindKylix, KindDirect, KindBinary)
	}
	return deg, agree.Hash62(desc), nil
}

// validateSets checks that n ≥ 0 and that in and out are sorted, unique, in
// [0, n) and short enough for int32 positions.
func validateSets(in, out []int64, n int64) error {
	if n < 0 {
		return fmt.Errorf("%w: vector length n = %d", ErrInvalid, n)
	}
	for _, s := range []struct {
		name string
		set  []int64
	}{{"in", in}, {"out", out}} {
		if len(s.set) > math.MaxInt32 {
			return fmt.Errorf("%w: %s-set of %d indices, at most 2^31-1", ErrInvalid, s.name, len(s.set))
		}
		for t, x := range s.set {
			if x < 0 || x >= n {
				return fmt.Errorf("%w: %s-set index %d (position %d) outside [0, %d)", ErrInvalid, s.name, x, t, n)
			}
			if t > 0 && x <= s.set[t-1] {
				return fmt.Errorf("%w: %s-set not sorted and unique at position %d (%d after %d)", ErrInvalid, s.name, t, x, s.set[t-1])
			}
		}
	}
	return nil
}

// agreeArgs is a collective: every rank learns whether some rank's arguments are
// invalid and whether all ranks share n and the kind signature. The invalid
// rank returns its own error, every other rank an error wrapping ErrInvalid.
func agreeArgs(ctx context.Context, c comm.Comm, n, sig int64, localErr error) error {
	i, lo, hi, err := agree.On(ctx, c, PhaseCheck, localErr, n, sig)
	switch {
	case err != nil:
		return err
	case i == 0:
		return fmt.Errorf("%w: ranks disagree on n (from %d to %d)", ErrInvalid, lo, hi)
	case i == 1:
		return fmt.Errorf("%w: ranks disagree on the kind or the degrees", ErrInvalid)
	}
	return nil
}

// newPlan lays out the layers of deg for this rank.
func newPlan(c comm.Comm, kind Kind, deg []int, n int64, nIn, nOut int) *plan {
	p := &plan{
		c: c, kind: kind, degrees: deg, n: n, nIn: nIn, nOut: nOut,
		layers:  make([]layer, len(deg)),
		outVals: make([][]float64, len(deg)+1),
		inVals:  make([][]float64, len(deg)+1),
	}
	size, rank := c.Size(), c.Rank()
	stride := size
	for i, d := range deg {
		stride /= d
		digit := rank / stride % d
		members := make([]int, d)
		for k := range members {
			members[k] = rank + (k-digit)*stride
		}
		p.layers[i] = layer{
			index: i + 1, degree: d, stride: stride, self: digit, members: members,
			send: make([][]byte, size), recv: make([][]byte, size), payload: make([][]byte, d),
			configPhase: PhaseName(PassConfig, i+1),
			crPhase:     PhaseName(PassConfigReduce, i+1),
			downPhase:   PhaseName(PassDown, i+1),
			upPhase:     PhaseName(PassUp, i+1),
		}
	}
	return p
}

// configure runs the configuration down pass (§III-A): partition, send,
// tree-merge, keep the maps. With combined set (ConfigReduce) the messages
// also carry vals, the values of their OUT parts, which are reduced on the
// way down exactly as Reduce would; outVals[L] then holds the bottom sums.
func (p *plan) configure(ctx context.Context, in, out []int64, vals []float64, combined bool) error {
	size := p.c.Size()
	curIn, curOut, cur := in, out, vals
	for i := range p.layers {
		ly := &p.layers[i]
		d := ly.degree
		outFlat, outPerm, outOff := partition(curOut, size, ly.stride, d)
		inFlat, inPerm, inOff := partition(curIn, size, ly.stride, d)
		ly.outPerm, ly.outOff, ly.inPerm, ly.inOff = outPerm, outOff, inPerm, inOff
		for k, dst := range ly.members {
			if k == ly.self {
				continue
			}
			buf := appendConfig(ly.send[dst][:0], outFlat[outOff[k]:outOff[k+1]], inFlat[inOff[k]:inOff[k+1]])
			if combined {
				buf = appendValues(buf, cur, outPerm[outOff[k]:outOff[k+1]])
			}
			ly.send[dst] = buf
		}
		phase := ly.configPhase
		if combined {
			phase = ly.crPhase
		}
		recv, err := p.c.Alltoallv(ctx, phase, ly.send, ly.recv)
		if err != nil {
			return fmt.Errorf("allreduce: configuring layer %d: %w", ly.index, err)
		}
		ly.recv = recv
		outParts := make([][]int64, d)
		inParts := make([][]int64, d)
		for k, src := range ly.members {
			if k == ly.self {
				outParts[k] = outFlat[outOff[k]:outOff[k+1]]
				inParts[k] = inFlat[inOff[k]:inOff[k+1]]
				continue
			}
			o, in, rest, err := decodeConfig(recv[src], p.n)
			if err == nil {
				if combined {
					err = checkValues(rest, len(o))
				} else if len(rest) != 0 {
					err = fmt.Errorf("%w: %d bytes after the index lists", ErrCorrupt, len(rest))
				}
			}
			if err != nil {
				return fmt.Errorf("allreduce: layer %d configuration message from rank %d: %w", ly.index, src, err)
			}
			outParts[k], inParts[k], ly.payload[k] = o, in, rest
		}
		nextOut, outMap, err := treeMerge(outParts)
		if err != nil {
			return fmt.Errorf("allreduce: layer %d: %w", ly.index, err)
		}
		nextIn, inMap, err := treeMerge(inParts)
		if err != nil {
			return fmt.Errorf("allreduce: layer %d: %w", ly.index, err)
		}
		ly.outMap, ly.inMap = outMap, inMap
		p.outVals[i+1] = make([]float64, len(nextOut))
		p.inVals[i+1] = make([]float64, len(nextIn))
		if combined {
			ly.accumulate(p.outVals[i+1], cur, ly.outMap)
			cur = p.outVals[i+1]
		}
		clear(ly.payload)
		curIn, curOut = nextIn, nextOut
	}
	if len(curOut)+len(curIn) > math.MaxInt32 {
		return fmt.Errorf("%w: %d home indices, more than 2^31-1", ErrInvalid, len(curOut)+len(curIn))
	}
	p.homeFromOut = make([]int32, len(curOut))
	p.homeFromIn = make([]int32, len(curIn))
	p.home = merge2(make([]int64, 0, len(curOut)+len(curIn)), curOut, curIn, p.homeFromOut, p.homeFromIn)
	p.inOnly = make([]int32, 0, len(p.home)-len(curOut))
	for h, t := 0, 0; h < len(p.home); h++ {
		if t < len(p.homeFromOut) && int(p.homeFromOut[t]) == h {
			t++
			continue
		}
		p.inOnly = append(p.inOnly, int32(h))
	}
	if l := len(p.layers); l > 0 {
		ly := &p.layers[l-1]
		ly.outHome, ly.inHome = composeMaps(ly.outMap, p.homeFromOut), composeMaps(ly.inMap, p.homeFromIn)
	}
	p.sums = make([]float64, len(p.home))
	return nil
}

// accumulate adds the values of the layer's d parts into next, the values of
// the union, through the maps g_k (ly.outMap, or ly.outHome into the home
// sums), in member order (by ascending source rank) and list order, so sums
// are deterministic. cur holds the values of this rank's own list (its own
// part never goes on the wire) and ly.payload[k] the values received from
// member k, whose lengths the caller has checked.
func (ly *layer) accumulate(next, cur []float64, maps [][]int32) {
	clear(next)
	for k, m := range maps {
		if k == ly.self {
			for t, pos := range ly.outPerm[ly.outOff[k]:ly.outOff[k+1]] {
				next[m[t]] += cur[pos]
			}
			continue
		}
		addValues(next, m, ly.payload[k])
	}
}

// composeMaps is maps followed by home: position t of part k goes to
// home[maps[k][t]].
func composeMaps(maps [][]int32, home []int32) [][]int32 {
	out := make([][]int32, len(maps))
	for k, m := range maps {
		out[k] = make([]int32, len(m))
		for t, pos := range m {
			out[k][t] = home[pos]
		}
	}
	return out
}

// Reduce runs the scatter-reduce down pass and the allgather up pass
// (§III-B); see Sparse.
func (p *plan) Reduce(ctx context.Context, out []float64, in []float64, apply func(home []int64, sums []float64)) error {
	return p.reduce(ctx, out, in, nil, apply)
}

// ReduceScalars is Reduce with scalars summed on the up pass; see Sparse.
func (p *plan) ReduceScalars(ctx context.Context, out, in, scalars []float64, apply func(home []int64, sums []float64)) error {
	return p.reduce(ctx, out, in, scalars, apply)
}

// reduce is Reduce and ReduceScalars (scalars nil for Reduce).
func (p *plan) reduce(ctx context.Context, out, in, scalars []float64, apply func(home []int64, sums []float64)) error {
	if len(out) != p.nOut || len(in) != p.nIn {
		return fmt.Errorf("%w: Reduce with %d out values and room for %d in values, configured for %d and %d",
			ErrInvalid, len(out), len(in), p.nOut, p.nIn)
	}
	cur := out
	for i := range p.layers {
		ly := &p.layers[i]
		for k, dst := range ly.members {
			if k != ly.self {
				ly.send[dst] = appendValues(ly.send[dst][:0], cur, ly.outPerm[ly.outOff[k]:ly.outOff[k+1]])
			}
		}
		recv, err := p.c.Alltoallv(ctx, ly.downPhase, ly.send, ly.recv)
		if err != nil {
			return fmt.Errorf("allreduce: reducing layer %d: %w", ly.index, err)
		}
		ly.recv = recv
		for k, src := range ly.members {
			if k == ly.self {
				continue
			}
			if err := checkValues(recv[src], len(ly.outMap[k])); err != nil {
				return fmt.Errorf("allreduce: layer %d values from rank %d: %w", ly.index, src, err)
			}
			ly.payload[k] = recv[src]
		}
		if i == len(p.layers)-1 { // the top layer sums straight into home
			ly.accumulate(p.sums, cur, ly.outHome)
			clear(ly.payload)
			return p.finish(ctx, nil, in, scalars, apply, true)
		}
		ly.accumulate(p.outVals[i+1], cur, ly.outMap)
		clear(ly.payload)
		cur = p.outVals[i+1]
	}
	return p.finish(ctx, cur, in, scalars, apply, false)
}

// finish puts the bottom sums cur (values of out^L) into the home list, runs
// apply, and runs the up pass into in. composed says the down pass summed
// straight into the home list (the top layer's outHome; cur is then
// unused), and the up pass then reads it through inHome. The up messages
// also carry the running sums of scalars (none when it is empty), which
// every layer combines over its group in member order.
func (p *plan) finish(ctx context.Context, cur []float64, in []float64, scalars []float64, apply func(home []int64, sums []float64), composed bool) error {
	if !composed {
		for t, h := range p.homeFromOut {
			p.sums[h] = cur[t]
		}
		for _, h := range p.inOnly { // apply may have left anything there
			p.sums[h] = 0
		}
	}
	if apply != nil {
		apply(p.home, p.sums)
	}
	vin := p.sums // composed: the top layer's maps lead into home
	if !composed {
		vin = in
		if l := len(p.layers); l > 0 {
			vin = p.inVals[l]
		}
		for t, h := range p.homeFromIn {
			vin[t] = p.sums[h]
		}
	}
	ns := len(scalars)
	if cap(p.scalarSums) < ns {
		p.scalarSums = make([]float64, ns)
	}
	acc := p.scalarSums[:ns]
	for i := len(p.layers) - 1; i >= 0; i-- {
		ly := &p.layers[i]
		inMap := ly.inMap
		if composed && i == len(p.layers)-1 {
			inMap = ly.inHome
		}
		for k, dst := range ly.members {
			if k != ly.self {
				buf := appendValues(ly.send[dst][:0], vin, inMap[k])
				ly.send[dst] = appendFloats(buf, scalars)
			}
		}
		recv, err := p.c.Alltoallv(ctx, ly.upPhase, ly.send, ly.recv)
		if err != nil {
			return fmt.Errorf("allreduce: gathering layer %d: %w", ly.index, err)
		}
		ly.recv = recv
		prev := in
		if i > 0 {
			prev = p.inVals[i]
		}
		clear(acc)
		for k, src := range ly.members {
			pos := ly.inPerm[ly.inOff[k]:ly.inOff[k+1]]
			if k == ly.self {
				m := inMap[k]
				for t, q := range pos {
					prev[q] = vin[m[t]]
				}
				for j, x := range scalars {
					acc[j] += x
				}
				continue
			}
			data := recv[src]
			if err := checkValues(data, len(pos)+ns); err != nil {
				return fmt.Errorf("allreduce: layer %d values from rank %d: %w", ly.index, src, err)
			}
			for t, q := range pos {
				prev[q] = value(data, t)
			}
			for j := range acc {
				acc[j] += value(data, len(pos)+j)
			}
		}
		copy(scalars, acc)
		vin = prev
	}
	return nil
}

// Arrange composes the caller's order into the maps that read and write
// the caller's vectors; see Sparse. Those are the first layer's partition
// maps, or, with no layer (P = 1), the home list's.
func (p *plan) Arrange(outAt, inAt []int32) error {
	if p.arranged {
		return fmt.Errorf("%w: Arrange called twice", ErrInvalid)
	}
	if err := checkPermutation("out", outAt, p.nOut); err != nil {
		return err
	}
	if err := checkPermutation("in", inAt, p.nIn); err != nil {
		return err
	}
	if len(p.layers) == 0 {
		p.homeFromOut = permuteMap(p.homeFromOut, outAt)
		p.homeFromIn = permuteMap(p.homeFromIn, inAt)
	} else {
		ly := &p.layers[0]
		for i, pos := range ly.outPerm {
			ly.outPerm[i] = outAt[pos]
		}
		for i, pos := range ly.inPerm {
			ly.inPerm[i] = inAt[pos]
		}
	}
	p.arranged = true
	return nil
}

// checkPermutation reports whether at is a permutation of [0, n).
func checkPermutation(set string, at []int32, n int) error {
	if len(at) != n {
		return fmt.Errorf("%w: Arrange: %d positions for an %s-set of %d", ErrInvalid, len(at), set, n)
	}
	seen := make([]bool, n)
	for t, q := range at {
		if q < 0 || int(q) >= n || seen[q] {
			return fmt.Errorf("%w: Arrange: %s-set element %d goes to position %d: not a permutation of [0, %d)", ErrInvalid, set, t, q, n)
		}
		seen[q] = true
	}
	return nil
}

// permuteMap returns m with entry t moved to position at[t]: a loop over
// the result by position reads the caller's vector in its own order.
func permuteMap(m, at []int32) []int32 {
	out := make([]int32, len(m))
	for t, h := range m {
		out[at[t]] = h
	}
	return out
}

func (p *plan) Layers() int    { return len(p.layers) }
func (p *plan) Degrees() []int { return slices.Clone(p.degrees) }
func (p *plan) Home() []int64  { return p.home }
func (p *plan) Name() string   { return p.kind.String() + " " + FormatDegrees(p.degrees) }
