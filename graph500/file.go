// The Graph500 run on the user's own graph (RunFile), beside the
// Kronecker one (driver.go): the Graph500 specification's procedure — 64
// search keys of degree ≥ 1, timed searches, validation, TEPS over the
// input tuples of the searched component — on an edge list read as
// PageRank reads it (Kylix §VII): every rank reads its
// share of the file (or rank 0 spreads a stream), the distinct ids are
// relabelled densely (graph.RelabelShare), and kernel 1 builds the
// undirected view of the relabelled tuples (graph.BuildUndirectedFrom),
// each line one tuple, duplicates and self-loops kept for the TEPS count
// exactly as for Kronecker tuples. Kernel 1 reads the relabelled tuples
// twice from the file, as it regenerates Kronecker tuples (filetuples.go),
// so they are never held beside the CSR. Roots and the tree keep the
// file's ids.

package graph500

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"time"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/graph/edgelist"
	"github.com/graphrun/graphrun/internal/fielderr"
	"github.com/graphrun/graphrun/internal/parallel"
	"github.com/graphrun/graphrun/partition"
	"github.com/graphrun/graphrun/results"
	"github.com/graphrun/graphrun/spmv"
	"github.com/graphrun/graphrun/spmv/bfs"
)

// FileConfig is a Graph500 run on the graph of an edge list.
type FileConfig struct {
	// Config is the run as for a Kronecker graph, except that Graph is
	// unused but for Graph.Seed, which seeds the key sampling, and Root,
	// when ≥ 0, is a vertex id of the file (1-based for Matrix Market,
	// as in the file).
	Config
	// Input is the edge list.
	Input *edgelist.Input
	// Name is how the report names the input ("" for Input.Path).
	Name string
	// Directed follows out-edges only (directed.go): the 1D partition,
	// top-down with the push exchange, the directed validation.
	Directed bool
	// UnitWeights, with SSSP, gives every edge weight 1 instead of reading
	// the file's weights (filetuples_weights.go): a file without weights
	// can then be searched.
	UnitWeights bool
}

// InputError is a run the input cannot make: a graph without edges, or a
// root that is not one of its vertices. It is the user's input, not a
// failure of the run.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// Check reports the first invalid field of cfg.
func (cfg *FileConfig) Check() error {
	if err := cfg.CheckSettings(); err != nil {
		return err
	}
	if cfg.Input == nil {
		return fielderr.New("Input", "no edge list")
	}
	return nil
}

// CheckSettings is Check without the input, for a caller that opens the
// input only once the settings are known to be good: a run on an edge list
// has no fused blocks (the blocks of its placement always run one by one),
// a directed search is a 1D one, and a chosen Root is a vertex id, never
// negative.
func (cfg *FileConfig) CheckSettings() error {
	switch {
	case cfg.Unfused:
		return fielderr.New("Unfused", "concerns fused blocks, which only a Kronecker graph's run has: the blocks of an edge list always run one by one")
	case cfg.Directed && cfg.Partition2D:
		return fielderr.New("Partition2D", "a directed search needs the 1D partition")
	case cfg.SSSP && cfg.Directed:
		return fielderr.New("Directed", "shortest paths search the undirected view of the file")
	case cfg.UnitWeights && !cfg.SSSP:
		return fielderr.New("UnitWeights", "weighs the edges of the shortest path searches, which this run does not make")
	case cfg.Directed && cfg.Compress:
		return fielderr.New("Compress", "a directed search reads plain rows of out-edges")
	}
	if err := cfg.checkSearch(); err != nil {
		return err
	}
	if err := cfg.checkSSSP(); err != nil {
		return err
	}
	if cfg.RootSet && cfg.Root < 0 {
		return fielderr.New("Root", "%d is negative: vertex ids are not", cfg.Root)
	}
	return nil
}

func (cfg *FileConfig) name() string {
	if cfg.Name != "" {
		return cfg.Name
	}
	return cfg.Input.Path
}

// RunFile runs the benchmark on cfg.Ranks in-process ranks and returns
// rank 0's report. A failed validation is not an error: the report says
// so.
func RunFile(ctx context.Context, cfg FileConfig) (*results.Graph500Run, error) {
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	cfg.sharedProcess = cfg.Ranks > 1
	return runInProcess(ctx, cfg.Ranks, func(ctx context.Context, c comm.Comm) (*results.Graph500Run, error) {
		return RunFileRank(ctx, c, cfg)
	})
}

// RunFileRank is one rank's share of the benchmark on a file. Every rank
// of c must call it with the same cfg. It returns the report on rank 0
// and nil elsewhere.
//
// Loading the input (reading, relabelling, and staging the relabelled
// share for kernel 1) is reported as graph_generation, kernel 1 as
// construction_time.
func RunFileRank(ctx context.Context, c comm.Comm, cfg FileConfig) (*results.Graph500Run, error) {
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	f, err := loadFile(ctx, c, &cfg)
	if err != nil {
		return nil, err
	}
	defer f.close()
	if cfg.BlocksPerRank > 1 {
		return runFileBlocks(ctx, c, cfg, f)
	}
	return searchFile(ctx, c, cfg, f)
}

// loadFile reads the rank's share of cfg's input, relabels it densely and
// turns cfg.Root, if given, into its dense id. It is a collective.
func loadFile(ctx context.Context, c comm.Comm, cfg *FileConfig) (loadedFile, error) {
	var none loadedFile
	cfg.start(c, StageGenerate, 0, 1)
	if err := c.Barrier(ctx, "driver.sync"); err != nil {
		return none, err
	}
	t0 := time.Now()
	in := *cfg.Input
	// The undirected view counts each line as one tuple: a symmetric
	// matrix's entry once. A directed search needs both of its directions.
	in.Entries = !cfg.Directed
	share, labels, err := loadTuples(ctx, c, &in, cfg.SSSP && !cfg.UnitWeights)
	if err != nil {
		return none, err
	}
	f := loadedFile{share: share}
	defer func() {
		if err != nil {
			f.close()
		}
	}()
	if f.load, err = maxOverRanks(ctx, c, "driver.sync", time.Since(t0).Seconds()); err != nil {
		return none, err
	}
	tuples := []int64{share.Len()}
	if err = c.AllreduceInt64(ctx, "driver.sync", tuples, comm.Sum); err != nil {
		return none, err
	}
	n := labels.N
	if n == 0 {
		err = &InputError{fmt.Errorf("%s: no edges", cfg.name())}
		return none, err
	}
	ids := &fileIDs{original: labels.Original, offset: cfg.Input.IDOffset}
	if cfg.Root >= 0 {
		fileRoot := cfg.Root
		if cfg.Root, err = ids.denseID(ctx, c, n, fileRoot); err != nil {
			return none, err
		}
		if cfg.Root < 0 {
			err = &InputError{fmt.Errorf("root %d is not a vertex of %s (no edge has it)", fileRoot, cfg.name())}
			return none, err
		}
	}
	if err = ids.gatherAll(ctx, c); err != nil {
		return none, err
	}
	f.n, f.tuples, f.ids = n, tuples[0], ids
	return f, nil
}

// loadedFile is what RunFileRank read: the rank's share of the relabelled
// tuples (share, read by kernel 1), the vertex and tuple counts of the
// whole graph, the map back to the file's ids and the slowest rank's
// loading time.
type loadedFile struct {
	share     graph.TupleSource
	n, tuples int64
	ids       *fileIDs
	load      float64
}

// close releases the share's file, if it has one (a staged share's space
// on disk).
func (f loadedFile) close() {
	if c, ok := f.share.(io.Closer); ok {
		c.Close()
	}
}

// searchFile is RunFileRank once the file is loaded: kernel 1 on the
// rank's share of the tuples, then the searches.
func searchFile(ctx context.Context, c comm.Comm, cfg FileConfig, f loadedFile) (*results.Graph500Run, error) {
	rank, size := c.Rank(), c.Size()
	n, ids := f.n, f.ids
	part, err := partition.NewBlock1D(n, size)
	if err != nil {
		return nil, err
	}
	var grid partition.Grid
	if cfg.Partition2D {
		if grid, err = cfg.grid(n, size); err != nil {
			return nil, err
		}
		part = grid.Part
	}
	cfg.end(c, StageGenerate, f.load)
	var g *graph.CSR
	var blocks *graph.Block2D
	var times buildTimes
	if cfg.Directed {
		cfg.Exchange, cfg.Direction, cfg.Codec = spmv.ExchangePush, spmv.DirectionTopDown, "raw"
		t1 := time.Now()
		dense, err := packedOf(ctx, f.share)
		if err != nil {
			return nil, err
		}
		if g, err = buildDirected(ctx, c, part, dense); err != nil {
			return nil, err
		}
		if times.generation, err = maxOverRanks(ctx, c, "driver.sync", time.Since(t1).Seconds()); err != nil {
			return nil, err
		}
	} else if g, blocks, times, err = buildGraph(ctx, c, cfg.Config, part, grid, f.share); err != nil {
		return nil, err
	}
	b := &builtGraph{g: g, blocks: blocks, part: part, grid: grid, tuples: f.tuples, ids: ids, directed: cfg.Directed}
	if cfg.SSSP {
		if b.weights, err = fileWeights(f.share, cfg.UnitWeights); err != nil {
			return nil, err
		}
	}
	f.share = nil // the CSR (or the blocks) hold the graph now
	times.construction += times.generation
	times.generation = f.load
	b.times = times
	var head *results.Graph500Run
	if rank == 0 {
		head = &results.Graph500Run{
			Scale: bits.Len64(uint64(n - 1)), EdgeFactor: int(math.Round(float64(f.tuples) / float64(n))),
			Seed: cfg.Graph.Seed, Input: cfg.name(), Vertices: n, Tuples: f.tuples,
		}
	}
	run, err := searchGraph(ctx, c, cfg.Config, b, head)
	if run != nil {
		for i := range run.Searches {
			run.Searches[i].Root = ids.fileID(run.Searches[i].Root)
		}
	}
	return run, err
}

// loadTuples reads the rank's share of in: the distinct ids, relabelled
// densely (graph.RelabelShare, a collective), and the tuples with their
// dense ids as kernel 1 reads them. An undirected view's tuples are read
// from a .grb again at each pass (grbTuples), or parsed once more and
// staged on disk (stageTuples), with their weights when weighted
// (stageWeightedTuples: the source is then a graph.WeightSource); a
// directed search's are kept in memory, packed as u<<32 | v.
func loadTuples(ctx context.Context, c comm.Comm, in *edgelist.Input, weighted bool) (graph.TupleSource, *graph.Labels, error) {
	if weighted {
		return loadWeighted(ctx, c, in)
	}
	if in.Detected == edgelist.EdgeFormatGRB && !in.Stream {
		return loadGRB(ctx, c, in.Path, !in.Entries)
	}
	share, err := in.Share(ctx, c)
	if err != nil {
		return nil, nil, err
	}
	labels, err := graph.RelabelShare(ctx, c, share)
	if err != nil {
		return nil, nil, err
	}
	if in.Entries {
		staged, err := stageTuples(ctx, share, labels, in.Path)
		return staged, labels, err
	}
	dense := make([]uint64, labels.Edges)
	var pos int64
	err = share.Scan(ctx, func(es []graph.Edge) error {
		if pos+int64(len(es)) > labels.Edges {
			return fmt.Errorf("read edges %s: %w", in.Path, graph.ErrShareChanged)
		}
		if err := labels.Map(es, dense[pos:pos+int64(len(es))]); err != nil {
			return err
		}
		pos += int64(len(es))
		return nil
	})
	if err == nil && pos != labels.Edges {
		err = fmt.Errorf("read edges %s: %w", in.Path, graph.ErrShareChanged)
	}
	if err != nil {
		return nil, nil, err
	}
	return packedTuples(dense), labels, nil
}

// loadGRB reads the rank's share of a .grb graph, relabelled already: its
// block of the id map, and its near-equal range of tuples, which kernel 1
// reads from the file with positioned reads and no parsing (grbTuples;
// the share then holds the file open). With mirror, a symmetric graph's
// tuple (u, v), u ≠ v, also gives (v, u), and the share is read into
// memory.
func loadGRB(ctx context.Context, c comm.Comm, path string, mirror bool) (graph.TupleSource, *graph.Labels, error) {
	g, closer, err := edgelist.OpenGRB(path)
	if err != nil {
		return nil, nil, err
	}
	keep := false
	defer func() {
		if !keep {
			closer.Close()
		}
	}()
	rank, size := c.Rank(), c.Size()
	part, err := partition.NewBlock1D(g.Vertices, size)
	if err != nil {
		return nil, nil, err
	}
	labels := &graph.Labels{N: g.Vertices}
	if g.Vertices > 0 {
		labels.Original = make([]int64, part.Count(rank))
		if err := g.ReadIDs(ctx, part.First(rank), labels.Original); err != nil {
			return nil, nil, err
		}
	}
	lo, hi := graph.ShareStart(g.Tuples, rank, size), graph.ShareStart(g.Tuples, rank+1, size)
	if !mirror || !g.Symmetric {
		labels.Edges = hi - lo
		keep = true
		return openTuples{grbTuples{g: g, lo: lo, hi: hi}, closer}, labels, nil
	}
	dense := make([]uint64, 0, hi-lo)
	err = g.ScanTuples(ctx, lo, hi, func(packed []uint64) error {
		for _, k := range packed {
			dense = append(dense, k)
			if u, v := k>>32, k&math.MaxUint32; u != v {
				dense = append(dense, v<<32|u)
			}
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	labels.Edges = int64(len(dense))
	return packedTuples(dense), labels, nil
}

// packedTuples is a graph.TupleSource over tuples of dense ids packed as
// u<<32 | v.
type packedTuples []uint64

// Len returns the number of tuples.
func (p packedTuples) Len() int64 { return int64(len(p)) }

// Read unpacks tuples [first, first+len(out)).
func (p packedTuples) Read(ctx context.Context, first int64, out []graph.Edge) error {
	if first < 0 || first+int64(len(out)) > int64(len(p)) {
		return fmt.Errorf("graph500: read of tuples [%d, %d) from a share of %d", first, first+int64(len(out)), len(p))
	}
	for i, k := range p[first : first+int64(len(out))] {
		out[i] = graph.Edge{U: int64(k >> 32), V: int64(k & math.MaxUint32)}
	}
	return ctx.Err()
}

// fileIDs maps the dense vertices of a graph read from a file to the
// file's ids: original is the rank's share of the inverse map in the
// block partition (graph.Labels.Original), offset what the file adds to
// the reader's 0-based ids (1 for Matrix Market). On rank 0, after
// gatherAll, all holds the whole map.
type fileIDs struct {
	original []int64
	offset   int64
	all      []int64
}

// fileID returns how rank 0 names dense vertex v: the file's id once it
// has the whole map (gatherAll), else v itself (a generated graph's ids
// are its own: f is nil).
func (f *fileIDs) fileID(v int64) int64 {
	if f == nil {
		return v
	}
	if f.all != nil && v >= 0 && v < int64(len(f.all)) {
		return f.all[v] + f.offset
	}
	return v
}

// denseID returns the dense id of the file's id x, or −1 if no edge has
// it. It is a collective.
func (f *fileIDs) denseID(ctx context.Context, c comm.Comm, n int64, x int64) (int64, error) {
	part, err := partition.NewBlock1D(n, c.Size())
	if err != nil {
		return 0, err
	}
	found := []int64{-1}
	if i, ok := slices.BinarySearch(f.original, x-f.offset); ok {
		found[0] = part.First(c.Rank()) + int64(i)
	}
	if err := c.AllreduceInt64(ctx, "driver.sync", found, comm.Max); err != nil {
		return 0, err
	}
	return found[0], nil
}

// gatherAll gives rank 0 the whole map (the ranks' shares in rank order);
// the tree and the report print the file's ids with it. It is a
// collective.
func (f *fileIDs) gatherAll(ctx context.Context, c comm.Comm) error {
	if f.all != nil {
		return nil
	}
	if c.Size() == 1 {
		f.all = f.original // the whole map already: no copy
		return nil
	}
	send := make([][]byte, c.Size())
	send[0] = int64sToBytes(f.original)
	recv, err := c.Alltoallv(ctx, "driver.tree", send, nil)
	if err != nil {
		return fmt.Errorf("gathering the vertex ids: %w", err)
	}
	if c.Rank() == 0 {
		for _, b := range recv {
			f.all = append(f.all, bytesToInt64s(b)...)
		}
	}
	return nil
}

// sendFileTree delivers the "vertex parent level" lines of every vertex to
// sink on rank 0, in vertex order, with the file's ids: the ranks send
// their parents and levels, rank 0 maps them (gatherAll gave it the
// map) and formats them.
func sendFileTree(ctx context.Context, c comm.Comm, res *bfs.Result, ids *fileIDs, sink func([]byte) error) error {
	return sendTreeRecords(ctx, c, res.Parent, func(v int) uint32 { return uint32(res.Level[v]) }, ids, sink,
		func(b []byte, level uint32) []byte { return strconv.AppendInt(b, int64(int32(level)), 10) })
}

// sendTreeRecords delivers the lines "vertex parent third" of every vertex
// to sink on rank 0, in vertex order, with ids's ids: each rank sends its
// vertices' parents and the 32 bits third gives of each (a level, a
// distance), and rank 0 maps the ids and appends the third column with
// format.
func sendTreeRecords(ctx context.Context, c comm.Comm, parent []int64, third func(v int) uint32, ids *fileIDs, sink func([]byte) error, format func([]byte, uint32) []byte) error {
	rec := make([]byte, 0, 12*len(parent))
	for v, p := range parent {
		x := third(v)
		rec = appendInt64(rec, p)
		rec = append(rec, byte(x), byte(x>>8), byte(x>>16), byte(x>>24))
	}
	send := make([][]byte, c.Size())
	send[0] = rec
	recv, err := c.Alltoallv(ctx, "driver.tree", send, nil)
	if err != nil {
		return fmt.Errorf("gathering the search tree: %w", err)
	}
	var chunks [][]byte
	if c.Rank() == 0 {
		var v int64
		for _, b := range recv {
			lines := make([]byte, 0, 2*len(b))
			for i := 0; i+12 <= len(b); i += 12 {
				p := bytesToInt64s(b[i : i+8])[0]
				x := uint32(b[i+8]) | uint32(b[i+9])<<8 | uint32(b[i+10])<<16 | uint32(b[i+11])<<24
				if p >= 0 {
					p = ids.fileID(p)
				}
				lines = strconv.AppendInt(lines, ids.fileID(v), 10)
				lines = append(lines, ' ')
				lines = strconv.AppendInt(lines, p, 10)
				lines = append(lines, ' ')
				lines = format(lines, x)
				lines = append(lines, '\n')
				v++
			}
			chunks = append(chunks, lines)
		}
	}
	return deliverTree(ctx, c, chunks, sink)
}

// checkRootDegree warns when the root the user chose has no edge but
// self-loops: its search visits only the root, so its nedge and TEPS are
// 0. shown is how the warning names the root.
func checkRootDegree(ctx context.Context, c comm.Comm, cfg Config, part partition.Block1D, owned ownedVertices, root, shown int64) error {
	deg := []int64{0}
	if part.Owner(root) == c.Rank() {
		deg[0] = owned.degree(part.Local(root))
	}
	if err := c.AllreduceInt64(ctx, "driver.sync", deg, comm.Max); err != nil {
		return err
	}
	if deg[0] == 0 {
		cfg.warn(c, "root %d has no edges (not counting self-loops): its search visits only the root, so nedge and TEPS are 0", shown)
	}
	return nil
}

// runFileBlocks is RunFileRank with cfg.BlocksPerRank blocks per rank, as
// runBlocks is for a Kronecker graph: every block's entries are counted
// from the loaded tuples and summed over the ranks, the blocks are placed
// (placeBlocks; LSHS over their work measured by fileBlockWork) and each
// block this rank hosts builds and searches from an equal part of the
// rank's tuples (kernel 1 sends every tuple to its owner, so any split
// serves).
func runFileBlocks(ctx context.Context, c comm.Comm, cfg FileConfig, f loadedFile) (*results.Graph500Run, error) {
	grid, err := cfg.grid(f.n, c.Size())
	if err != nil {
		return nil, err
	}
	counts, err := blockEdges(ctx, c, f.share, grid)
	if err != nil {
		return nil, err
	}
	var work []int64
	if cfg.Placement == PlaceLSHS {
		if work, err = fileBlockWork(ctx, c, cfg, f, grid, counts); err != nil {
			return nil, err
		}
	}
	owner, err := partition.PlaceGridBlocks(c.Size(), cfg.Placement == PlaceLSHS, grid, counts, work)
	if err != nil {
		return nil, err
	}
	return runPlaced(ctx, c, cfg.Config, grid, owner, fileBlocks(cfg, f, owner, c.Rank()))
}

// fileBlockWork measures every block's work as pilotWork does, but on the
// file's graph itself, which has no smaller instance: the blocks, placed
// round-robin (what a block reads does not depend on where it lives), are
// built and searched from pilotRoots keys without validation, and rank 0
// sends every block's entries read plus its fixed cost to all ranks. The
// pilot's blocks are then dropped, and the run builds its own where LSHS
// places them: one more kernel 1 and pilotRoots searches, not timed.
func fileBlockWork(ctx context.Context, c comm.Comm, cfg FileConfig, f loadedFile, grid partition.Grid, counts []int64) ([]int64, error) {
	owner, err := partition.PlaceGridBlocks(c.Size(), false, grid, counts, nil)
	if err != nil {
		return nil, err
	}
	pilot := cfg
	pilot.NumRoots, pilot.Root, pilot.Validate = pilotRoots, -1, false
	pilot.Tree, pilot.Progress, pilot.Warn = nil, nil, nil
	runs, _, err := runHosted(ctx, c, pilot.Config, grid, owner, fileBlocks(pilot, f, owner, c.Rank()))
	if err != nil {
		return nil, fmt.Errorf("the placement's pilot searches: %w", err)
	}
	var msg []byte
	if c.Rank() == 0 {
		fixed := blockFixedWork(runs[0], grid)
		for _, l := range runs[0].RankLoads {
			msg = binary.LittleEndian.AppendUint64(msg, uint64(l.EdgesScanned+fixed))
		}
	}
	return shareWork(ctx, c, grid.P(), msg)
}

// fileBlocks runs a block-rank of a file: the k-th block this rank hosts
// (of those owner places on rank) builds and searches from the k-th equal
// part of the rank's tuples. Only the parts refer to the tuples, and each
// block lets go of its part once built, so that tuples held in memory (a
// directed search's) are freed when the last block is built, as with one
// block per rank.
func fileBlocks(cfg FileConfig, f loadedFile, owner []int, rank int) blockRun {
	hosted := 0
	for _, r := range owner {
		if r == rank {
			hosted++
		}
	}
	parts := make([]graph.TupleSource, hosted)
	for k := range parts {
		lo, hi := parallel.Span(int(f.share.Len()), k, hosted)
		parts[k] = spanTuples{src: f.share, lo: int64(lo), hi: int64(hi)}
	}
	f.share = nil
	return func(ctx context.Context, k int, bc comm.Comm, bcfg Config) (*results.Graph500Run, error) {
		share := f
		share.share, parts[k] = parts[k], nil
		fc := cfg
		fc.Config = bcfg
		return searchFile(ctx, bc, fc, share)
	}
}
