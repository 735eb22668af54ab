// Package partition decides which rank owns which vertex or edge and maps
// global vertex ids (int64) to rank-local ids (uint32) and back.
//
// Block1D is the 1D vertex-block partition of Lv et al. §III-B: the adjacency
// matrix is cut into row blocks, rank i owning rows [i·B, (i+1)·B). Blocks are
// a multiple of 64 vertices so that the ranks' frontier bitmaps concatenate
// word by word into the global frontier without shifting.
//
// Grid is the 2D partition (Yoo et al.; Lv et al. §VIII–IX name it as the
// step after compression and sieve), EdgeOwner the random edge partition
// of Kylix §II-B, and PlaceLSHS, PlaceLSHSGrid and PlaceLSHSFusable place
// the blocks of a finer block grid on ranks by NumS's load-simulated
// hierarchical scheduling (§5, Alg. 1; objective eq. 2 of §5.1);
// PlaceGridBlocks chooses among them for a 2D run, and FusedLayout runs a
// grid-aligned placement as one block per process.
//
// # References
//
//   - Huiwei Lv, Guangming Tan, Mingyu Chen and Ninghui Sun. "Compression and
//     Sieve: Reducing Communication in Parallel Breadth First Search on
//     Distributed Memory Systems". arXiv preprint (Institute of Computing
//     Technology, CAS), 2012. Cited as Lv et al.
//   - Melih Elibol, Vinamra Benara, Samyu Yagati, Lianmin Zheng, Alvin
//     Cheung, Michael I. Jordan and Ion Stoica. "NumS: Scalable Array
//     Programming for the Cloud". arXiv preprint, 2022. Cited as NumS.
//   - Huasha Zhao and John Canny. "Kylix: A Sparse Allreduce for Commodity
//     Clusters". 43rd International Conference on Parallel Processing
//     (ICPP), IEEE, 2014. Cited as Kylix.
//   - Andy Yoo, Edmond Chow, Keith Henderson, William McLendon, Bruce
//     Hendrickson and Ümit Çatalyürek. "A Scalable Distributed Parallel
//     Breadth-First Search Algorithm on BlueGene/L". SC'05, ACM/IEEE, 2005.
//     Cited as Yoo et al.
//
// REFERENCES.md at the repository root lists every source under the same
// keys.
package partition

import "fmt"

// maxBlock is the most vertices a rank can own: local ids are uint32.
const maxBlock = 1 << 32

// Block1D is a 1D block distribution of N vertices over P ranks.
type Block1D struct {
	N     int64 // global vertex count
	P     int   // rank count
	Block int64 // vertices per rank (the last ranks may own fewer, even none)
}

// NewBlock1D returns the block distribution of n vertices over p ranks.
func NewBlock1D(n int64, p int) (Block1D, error) {
	if n < 1 {
		return Block1D{}, fmt.Errorf("partition: vertex count %d < 1", n)
	}
	if p < 1 {
		return Block1D{}, fmt.Errorf("partition: rank count %d < 1", p)
	}
	block := (n + int64(p) - 1) / int64(p)
	block = (block + 63) &^ 63
	if block > maxBlock {
		return Block1D{}, fmt.Errorf("partition: %d vertices per rank exceed uint32 local ids; use at least %d ranks",
			block, (n+maxBlock-1)/maxBlock)
	}
	return Block1D{N: n, P: p, Block: block}, nil
}

// Owner returns the rank that owns global vertex g.
func (b Block1D) Owner(g int64) int { return int(g / b.Block) }

// Local returns g's id on its owner.
func (b Block1D) Local(g int64) uint32 { return uint32(g % b.Block) }

// Global returns the global id of local vertex l on rank r.
func (b Block1D) Global(r int, l uint32) int64 { return int64(r)*b.Block + int64(l) }

// First returns the global id of rank r's first vertex (may be ≥ N for ranks that own nothing).
func (b Block1D) First(r int) int64 { return min(int64(r)*b.Block, b.N) }

// Count returns how many vertices rank r owns.
func (b Block1D) Count(r int) int {
	lo := b.First(r)
	hi := min(lo+b.Block, b.N)
	return int(hi - lo)
}

// Words returns how many 64-bit words rank r's bitmap of owned vertices needs.
func (b Block1D) Words(r int) int { return (b.Count(r) + 63) / 64 }
