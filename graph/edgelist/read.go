// This file reads the real-world edge lists that PageRank runs on, as
// Kylix §VII does with the Twitter and Yahoo graphs given as edge lists: a
// single-process reader (ReadEdges) and a per-rank parallel reader that
// splits the file between the ranks (ReadEdgesRange). The same readers
// stream a rank's share in chunks for PageRank's set-up (FileShare,
// fileshare.go) and read a pipe or standard input once (spread.go); the
// distributed dense relabelling of the sparse original vertex ids to
// 0..n−1 is package graph's (graph.Relabel, graph.RelabelShare).
//
// # Formats
//
// The format comes from the file name (DetectEdgeFormat) or is named
// explicitly; a ".gz" suffix means gzip compression, for every format.
//
//   - EdgeFormatSNAP (".txt", ".edges", ".tsv"): SNAP text. One directed edge
//     "u v" per line, the ids non-negative decimal integers below 2^63,
//     separated by spaces or tabs. '#' starts a comment that runs to the end
//     of the line (SNAP's header lines); blank lines are skipped; CRLF line
//     ends are accepted. Ids may be sparse: Relabel makes them dense.
//   - EdgeFormatEL (".el"): graphrun's own text edge list (see
//     edgelist_write.go), the same grammar as SNAP text (a test keeps a
//     line-by-line oracle of it, edgelist_oracle_test.go).
//   - EdgeFormatWEL (".wel"): weighted text, "u v w" per line. The weight must
//     be a finite number (strconv.ParseFloat syntax); it is validated and
//     dropped, or read as a float32 by a weighted read (weights.go).
//   - EdgeFormatMTX (".mtx"): Matrix Market, banner
//     "%%MatrixMarket matrix coordinate pattern|real|integer general|symmetric",
//     then '%' comment lines, then the size line "rows cols nnz", then exactly
//     nnz entries "i j [value]" with 1-based indices (1 ≤ i ≤ rows,
//     1 ≤ j ≤ cols) that become the edge (i−1, j−1). A real or integer value
//     is validated and dropped, or read as the edge's weight by a weighted
//     read. For a symmetric matrix every off-diagonal
//     entry (i, j) also gives the edge (j, i), right after it; a diagonal
//     entry gives one self-loop. Array (dense) matrices and the complex,
//     hermitian and skew-symmetric kinds are rejected with a clear error.
//     Blank and '%' lines are also skipped among the entries.
//   - EdgeFormatBEL (".bel"): graphrun's binary edge list (edgelist_write.go).
//   - EdgeFormatGRB (".grb"): graphrun's binary graph (grb.go), relabelled
//     once; its edges come out with their original ids.
//   - EdgeFormatSG, EdgeFormatWSG (".sg", ".wsg"): gapbs's serialized
//     graphs (sg.go), one edge per out-entry. Neither binary graph can be
//     gzipped or read from a stream.
//
// An empty text file, or one of comments only, is a valid graph with no
// edges; so is a Matrix Market file whose size line says 0 entries. A Matrix Market file needs its banner and size line: an
// empty .mtx is an error.
//
// # Errors
//
// Malformed text gives an *EdgeListError whose message is "file:line: what is
// wrong", with the global 1-based line number also when the file was split
// between ranks; callers find it with errors.As. A corrupt or truncated gzip
// stream gives an *EdgeListError naming the file and the line being read that
// wraps the decompressor's error (io.ErrUnexpectedEOF for a truncated file).
// A line longer than 1 MiB (its '\n' excluded) is an error.
//
// # Speed
//
// Lines are parsed by a hand-written byte scanner over 1 MiB buffers. The
// common line "u v\n" takes a fast path that converts eight digits at a time
// (SWAR); everything else, errors included, goes through a general parser.
// Nothing is allocated per line or per token (only a .wel weight or a Matrix
// Market value goes through strconv).

package edgelist

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"

	"github.com/graphrun/graphrun/graph"
)

// EdgeFormat names an edge-list file format; see the file comment above.
type EdgeFormat string

// The edge-list formats ReadEdges and ReadEdgesRange read.
const (
	EdgeFormatSNAP EdgeFormat = "snap" // SNAP text: "u v" lines, '#' comments
	EdgeFormatEL   EdgeFormat = "el"   // graphrun text: "u v" lines, '#' comments
	EdgeFormatWEL  EdgeFormat = "wel"  // weighted text: "u v w" lines
	EdgeFormatMTX  EdgeFormat = "mtx"  // Matrix Market coordinate
	EdgeFormatBEL  EdgeFormat = "bel"  // graphrun binary
	EdgeFormatGRB  EdgeFormat = "grb"  // graphrun binary graph (grb.go)
	EdgeFormatSG   EdgeFormat = "sg"   // gapbs serialized graph (sg.go)
	EdgeFormatWSG  EdgeFormat = "wsg"  // gapbs weighted serialized graph
)

// edgeReadBufSize is the size of every read buffer, and one more than the
// longest line accepted.
const edgeReadBufSize = 1 << 20

// DetectEdgeFormat resolves the format of the edge list at path. explicit
// names the format ("snap" or "txt", "el" or "text", "wel", "mtx" or
// "matrixmarket", "bel" or "binary", optionally followed by ".gz", "grb",
// "sg", "wsg"); when it is empty or "auto" the format comes from the
// extension of path (".txt", ".edges" and ".tsv" are SNAP text, ".el",
// ".wel", ".mtx", ".bel", ".grb", ".sg", ".wsg"). gzipped
// is true when path or explicit ends in ".gz".
func DetectEdgeFormat(path, explicit string) (format EdgeFormat, gzipped bool, err error) {
	name := strings.ToLower(path)
	if strings.HasSuffix(name, ".gz") {
		gzipped = true
		name = strings.TrimSuffix(name, ".gz")
	}
	ex := strings.ToLower(strings.TrimSpace(explicit))
	if strings.HasSuffix(ex, ".gz") {
		gzipped = true
		ex = strings.TrimSuffix(ex, ".gz")
	}
	ex = strings.TrimPrefix(ex, ".")
	switch ex {
	case "snap", "txt":
		return EdgeFormatSNAP, gzipped, nil
	case "el", "text":
		return EdgeFormatEL, gzipped, nil
	case "wel":
		return EdgeFormatWEL, gzipped, nil
	case "mtx", "mm", "matrixmarket":
		return EdgeFormatMTX, gzipped, nil
	case "bel", "binary":
		return EdgeFormatBEL, gzipped, nil
	case "grb":
		return EdgeFormatGRB, gzipped, nil
	case "sg":
		return EdgeFormatSG, gzipped, nil
	case "wsg":
		return EdgeFormatWSG, gzipped, nil
	case "", "auto":
	default:
		return "", false, fmt.Errorf("unknown edge format %q: want snap, el, wel, mtx, bel (optionally with .gz), grb, sg or wsg, or auto", explicit)
	}
	switch filepath.Ext(name) {
	case ".txt", ".edges", ".tsv":
		return EdgeFormatSNAP, gzipped, nil
	case ".el":
		return EdgeFormatEL, gzipped, nil
	case ".wel":
		return EdgeFormatWEL, gzipped, nil
	case ".mtx":
		return EdgeFormatMTX, gzipped, nil
	case ".bel":
		return EdgeFormatBEL, gzipped, nil
	case ".grb":
		return EdgeFormatGRB, gzipped, nil
	case ".sg":
		return EdgeFormatSG, gzipped, nil
	case ".wsg":
		return EdgeFormatWSG, gzipped, nil
	}
	return "", false, fmt.Errorf("%s: cannot tell the edge format from the name: use .txt/.edges (SNAP), .el, .wel, .mtx or .bel, optionally .gz, .grb, .sg or .wsg, or name the format", path)
}

// EdgeFile is a whole edge list read by ReadEdges.
type EdgeFile struct {
	// Edges are the edges in file order with their original ids (0-based
	// for Matrix Market), a symmetric matrix's entries mirrored.
	Edges []graph.Edge
	// Directed is false only for a symmetric Matrix Market matrix, whose
	// Edges hold both directions of each undirected edge; text and binary
	// edge lists are taken as directed (SNAP marks undirected graphs only in
	// comments; such a list gives one direction per pair).
	Directed bool
	// Vertices is the size of the id space: max(rows, cols) for Matrix
	// Market, else 1 + the largest id (0 without edges, saturating at
	// math.MaxInt64). It is only a bound for sparse ids: Relabel counts the
	// vertices that occur.
	Vertices int64
	// Format is the format that was read.
	Format EdgeFormat
	// Weights, set by ReadWeightedEdges only, holds Edges[i]'s weight at i.
	Weights []float32
	// Symmetric is set when the Edges are a symmetric matrix's entries
	// read once each (ReadEntries): each (u, v), u ≠ v, also stands for
	// (v, u), which Edges then do not hold.
	Symmetric bool
}

// ReadEdges reads the whole edge list at path. format "" detects it from
// the name (see DetectEdgeFormat, which also accepts the aliases).
func ReadEdges(path string, format EdgeFormat) (*EdgeFile, error) {
	return readEdgeFile(path, format, false)
}

// ReadEntries is ReadEdges with one edge per entry: a symmetric Matrix
// Market entry (or a symmetric .grb tuple) gives its edge once, not also
// its mirror, and the EdgeFile says Symmetric. It is what an undirected
// view needs, whose tuple count is the file's entries (graphrun bfs), and
// what a .grb stores (graphrun convert).
func ReadEntries(path string, format EdgeFormat) (*EdgeFile, error) {
	return readEdgeFile(path, format, true)
}

func readEdgeFile(path string, format EdgeFormat, entries bool) (*EdgeFile, error) {
	src, err := openEdgeSource(path, format)
	if err != nil {
		return nil, err
	}
	defer src.close()
	src.entries = entries
	p, err := src.read(0, 1)
	if err != nil {
		return nil, err
	}
	return edgeFileOf(src, p), nil
}

// edgeFileOf is what a whole read of src by p found.
func edgeFileOf(src *edgeSource, p *edgeParser) *EdgeFile {
	ef := &EdgeFile{Edges: p.edges, Directed: true, Format: src.format}
	switch {
	case p.directedSet:
		ef.Directed = p.directed
		ef.Symmetric = p.symmetric && src.entries
		ef.Vertices = p.maxID + 1
	case src.format == EdgeFormatMTX:
		ef.Directed = !p.mtx.symmetric
		ef.Symmetric = p.mtx.symmetric && src.entries
		ef.Vertices = max(p.mtx.rows, p.mtx.cols)
	case p.maxID == math.MaxInt64:
		ef.Vertices = math.MaxInt64
	default:
		ef.Vertices = p.maxID + 1
	}
	return ef
}

// ReadEdgesRange reads rank's share of the edge list at path when size
// ranks read it together; concatenated in rank order, the shares are exactly
// ReadEdges' Edges, for any size. It needs no communication.
//
// An uncompressed file is split into size near-equal byte ranges of its data
// (after the Matrix Market header, which every rank reads first); a line
// belongs to the rank whose range holds its first byte. To give global line
// numbers a rank counts the newlines before its range, and for Matrix Market
// it also counts the entries outside its range (a light scan, no parsing),
// so that every rank checks the entry count against the size line.
//
// A gzip stream cannot be split by bytes: every rank decompresses it twice,
// first to count its lines (and check the whole stream), then to parse the
// lines whose index falls in its share of near-equal line ranges, stopping
// after them. Each rank thus decompresses up to twice the file; parsing, the
// expensive part, is still divided. .bel files are split by tuple.
//
// Errors are those of ReadEdges for the lines the rank parses, plus, on
// every rank, errors of the header, the entry count, and the gzip stream.
// An input that ReadEdges rejects makes at least one rank fail, with
// ReadEdges' error.
func ReadEdgesRange(path string, format EdgeFormat, rank, size int) ([]graph.Edge, error) {
	if size < 1 || rank < 0 || rank >= size {
		return nil, fmt.Errorf("read edges %s: rank %d of %d ranks", path, rank, size)
	}
	src, err := openEdgeSource(path, format)
	if err != nil {
		return nil, err
	}
	defer src.close()
	p, err := src.read(rank, size)
	if err != nil {
		return nil, err
	}
	return p.edges, nil
}
