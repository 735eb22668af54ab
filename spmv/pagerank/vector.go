package pagerank

// PageRank's optional vectors over the vertices, NetworkX's personalization,
// dangling and nstart arguments: sparse (vertex, weight) lists by the
// input's ids, checked by Config.Check, resolved to dense ids by one
// collective once the vertices are numbered, and normalised to sum 1.

import (
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
	"slices"

	"github.com/graphrun/graphrun/comm"
)

// PhaseVector is the phase of the collective that finds the dense ids of
// the vectors' vertices.
const PhaseVector = "pagerank.vector"

// Vector is a sparse vector over the vertices: Weights[i] is the weight of
// the vertex whose input id is IDs[i]; a vertex not listed has weight 0.
// The weights need not sum to 1 (PageRank divides them by their sum), but
// they must be finite, non-negative and not all zero, and an id must
// occur in some edge and be listed once.
type Vector struct {
	IDs     []int64
	Weights []float64
	// Name and Lines, if set, say where the entries were read (ReadVector):
	// an error about entry i names Name:Lines[i].
	Name  string
	Lines []int
	// IDOffset is added to an id in an error, to show the file's id
	// (ReadVector subtracted it).
	IDOffset int64
}

// UniformVector is the vector of weight 1 on each of ids: a uniform seed
// set.
func UniformVector(ids []int64) *Vector {
	w := make([]float64, len(ids))
	for i := range w {
		w[i] = 1
	}
	return &Vector{IDs: ids, Weights: w}
}

// where names entry i: its file and line, or its index.
func (v *Vector) where(i int) string {
	if v.Name != "" && i < len(v.Lines) {
		return fmt.Sprintf("%s:%d", v.Name, v.Lines[i])
	}
	return fmt.Sprintf("entry %d", i)
}

// check validates the vector's entries.
func (v *Vector) check() error {
	if len(v.IDs) != len(v.Weights) {
		return fmt.Errorf("%d ids and %d weights", len(v.IDs), len(v.Weights))
	}
	if len(v.IDs) == 0 {
		return fmt.Errorf("%sno vertex", v.prefix())
	}
	var sum float64
	for i, w := range v.Weights {
		if math.IsNaN(w) || math.IsInf(w, 0) || w < 0 {
			return fmt.Errorf("%s: vertex %d: weight %v is not a finite non-negative number", v.where(i), v.id(i), w)
		}
		sum += w
	}
	if !(sum > 0) || math.IsInf(sum, 0) {
		return fmt.Errorf("%sthe weights sum to %v: want a positive finite sum", v.prefix(), sum)
	}
	order := make([]int, len(v.IDs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(v.IDs[a], v.IDs[b]) })
	for k := 1; k < len(order); k++ {
		if i, j := order[k-1], order[k]; v.IDs[i] == v.IDs[j] {
			return fmt.Errorf("%s: vertex %d is listed again (first at %s)", v.where(j), v.id(j), v.where(i))
		}
	}
	return nil
}

// digest is an FNV-1a hash of the entries (ids and weights' bits), the
// same on every process that read the same vector.
func (v *Vector) digest() uint64 {
	h := fnv.New64a()
	var b [16]byte
	for i, id := range v.IDs {
		binary.LittleEndian.PutUint64(b[:8], uint64(id))
		binary.LittleEndian.PutUint64(b[8:], math.Float64bits(v.Weights[i]))
		h.Write(b[:])
	}
	return h.Sum64()
}

// id is entry i's id as its file shows it.
func (v *Vector) id(i int) int64 { return v.IDs[i] + v.IDOffset }

// prefix is "name: " for a vector read from a file, else "".
func (v *Vector) prefix() string {
	if v.Name != "" {
		return v.Name + ": "
	}
	return ""
}

// denseVector is a Vector over dense ids, ascending, with weights that sum
// to 1 (up to rounding); nil when the Vector was not given.
type denseVector struct {
	ids []int64
	w   []float64
}

// resolveVector finds the dense id of each of v's vertices (first and
// original are this rank's block of the relabelling: dense id first+k is
// original[k]) with one collective, and returns v normalised, by dense id.
// An id in no edge is an error on every rank, naming field.
func resolveVector(ctx context.Context, c comm.Comm, field string, v *Vector, first int64, original []int64) (*denseVector, error) {
	if v == nil {
		return nil, nil
	}
	dense := make([]int64, len(v.IDs))
	for i, id := range v.IDs {
		dense[i] = -1
		if k, ok := slices.BinarySearch(original, id); ok {
			dense[i] = first + int64(k)
		}
	}
	if err := c.AllreduceInt64(ctx, PhaseVector, dense, comm.Max); err != nil {
		return nil, fmt.Errorf("pagerank: %s: %w", field, err)
	}
	var sum float64
	for i, d := range dense {
		if d < 0 {
			return nil, configError(field, "%s: vertex %d occurs in no edge", v.where(i), v.id(i))
		}
		sum += v.Weights[i]
	}
	order := make([]int, len(dense))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(dense[a], dense[b]) })
	dv := &denseVector{ids: make([]int64, len(order)), w: make([]float64, len(order))}
	for k, i := range order {
		dv.ids[k], dv.w[k] = dense[i], v.Weights[i]/sum
	}
	return dv, nil
}

// at writes the weight of each of ids (ascending) into dst, 0 for a vertex
// not listed; a nil vector is uniform over n vertices.
func (d *denseVector) at(ids []int64, dst []float64, n int64) {
	if d == nil {
		for i := range dst {
			dst[i] = 1 / float64(n)
		}
		return
	}
	j := 0
	for i, u := range ids {
		for j < len(d.ids) && d.ids[j] < u {
			j++
		}
		dst[i] = 0
		if j < len(d.ids) && d.ids[j] == u {
			dst[i] = d.w[j]
		}
	}
}

// prVectors are a run's vectors by dense id (nil where not given).
type prVectors struct {
	pers, dang, start *denseVector
}

// resolveVectors resolves cfg's vectors (resolveVector).
func resolveVectors(ctx context.Context, c comm.Comm, cfg Config, first int64, original []int64) (prVectors, error) {
	var vs prVectors
	var err error
	if vs.pers, err = resolveVector(ctx, c, "Personalization", cfg.Personalization, first, original); err != nil {
		return vs, err
	}
	if vs.dang, err = resolveVector(ctx, c, "Dangling", cfg.Dangling, first, original); err != nil {
		return vs, err
	}
	vs.start, err = resolveVector(ctx, c, "NStart", cfg.NStart, first, original)
	return vs, err
}

// teleport returns the teleport and dangling distributions of the vertices
// ids (ascending) of a run on n vertices, or nils when both are uniform
// (the scalar update). The dangling distribution is the personalization
// unless given, as in NetworkX; then the two share one array.
func (vs prVectors) teleport(ids []int64, n int64) (pers, dang []float64) {
	if vs.pers == nil && vs.dang == nil {
		return nil, nil
	}
	pers = make([]float64, len(ids))
	vs.pers.at(ids, pers, n)
	if vs.dang == nil {
		return pers, pers
	}
	dang = make([]float64, len(ids))
	vs.dang.at(ids, dang, n)
	return pers, dang
}

// forVertices returns ids 0..n−1, the vertices of a dense-mode rank.
func forVertices(n int64) []int64 {
	ids := make([]int64, n)
	for i := range ids {
		ids[i] = int64(i)
	}
	return ids
}
