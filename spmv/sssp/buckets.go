package sssp

// The buckets of Δ-stepping (Meyer and Sanders §2: B[i] holds the vertices
// whose tentative distance lies in [iΔ, (i+1)Δ)), kept lazily as gapbs
// keeps its bins: a vertex is appended to the bucket of every new distance
// and never removed; an entry is live while the vertex's distance is still
// in that bucket and its light edges have not been relaxed at it.

// nearBins is how many buckets from the current one are held in the ring;
// entries further ahead wait in the far list (only a Δ far below the
// weights sends them there).
const nearBins = 1024

// buckets is the buckets of one owner thread's vertices (the engine gives
// each thread a contiguous range of the rank's vertices, whose requests it
// applies): a ring of nearBins bins for buckets cur … cur+nearBins−1 and a
// far list for the rest.
type buckets struct {
	cur  int64      // the current bucket, held by near[cur % nearBins]
	near [][]uint32 // the ring of bins, of local vertex ids
	far  []uint32   // vertices of buckets beyond the ring
}

func (b *buckets) init() { b.near = make([][]uint32, nearBins) }

// reset empties every bucket and makes bucket 0 current.
func (b *buckets) reset() {
	b.cur = 0
	for i := range b.near {
		b.near[i] = b.near[i][:0]
	}
	b.far = b.far[:0]
}

// insert adds vertex v to bucket k (≥ cur: distances found while bucket
// cur is emptied are never below it).
func (b *buckets) insert(v uint32, k int64) {
	k = max(k, b.cur)
	if k-b.cur >= nearBins {
		b.far = append(b.far, v)
		return
	}
	i := k % nearBins
	b.near[i] = append(b.near[i], v)
}

// bucketOf is the bucket of distance d for 1/Δ = inv: ⌊d/Δ⌋, monotone in
// d.
func bucketOf(d float32, inv float64) int64 {
	q := float64(d) * inv
	if q >= 1<<62 {
		return 1 << 62
	}
	return int64(q)
}

// live reports whether v's entry in bucket k is live.
func live(v uint32, k int64, dist, lightDone []float32, inv float64) bool {
	d := dist[v]
	return d < lightDone[v] && bucketOf(d, inv) == k
}

// lowest returns the lowest bucket with a live entry (noBucket if none),
// dropping the dead entries of the bins it looks at.
func (b *buckets) lowest(dist, lightDone []float32, inv float64) int64 {
	for j := range int64(nearBins) {
		k := b.cur + j
		bin := b.near[k%nearBins]
		kept := bin[:0]
		for _, v := range bin {
			if live(v, k, dist, lightDone, inv) {
				kept = append(kept, v)
			}
		}
		b.near[k%nearBins] = kept
		if len(kept) > 0 {
			return k
		}
	}
	low := int64(noBucket)
	for _, v := range b.far {
		if d := dist[v]; d < lightDone[v] {
			low = min(low, bucketOf(d, inv))
		}
	}
	return low
}

// advance makes bucket k current. Every bucket below k is empty on this
// rank (k is at most the lowest live bucket here), so their bins are
// cleared for reuse, and far entries now within the ring move into it.
func (b *buckets) advance(k int64, dist, lightDone []float32, inv float64) {
	for j := b.cur; j < k && j < b.cur+nearBins; j++ {
		b.near[j%nearBins] = b.near[j%nearBins][:0]
	}
	b.cur = k
	kept := b.far[:0]
	for _, v := range b.far {
		d := dist[v]
		switch {
		case !(d < lightDone[v]):
		case bucketOf(d, inv)-k < nearBins:
			b.insert(v, bucketOf(d, inv))
		default:
			kept = append(kept, v)
		}
	}
	b.far = kept
}

// take empties the current bucket and returns its entries, valid until
// the next insert.
func (b *buckets) take() []uint32 {
	i := b.cur % nearBins
	bin := b.near[i]
	b.near[i] = bin[:0]
	return bin
}
