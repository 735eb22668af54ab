// This file reads an edge list that cannot be read twice or by several
// ranks — standard input, a pipe, a FIFO, a character device — for a
// distributed run such as PageRank's (Kylix §VII): rank 0 reads it as
// one stream and spreads its edges over the ranks in rounds, each rank
// keeping what it receives (EdgeChunks), which later passes read from
// memory.

package edgelist

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"syscall"
	"time"

	"github.com/graphrun/graphrun/graph"

	"github.com/graphrun/graphrun/comm"
)

// StdinName is the path that names standard input.
const StdinName = "-"

// IsStream reports whether the input at path must be read as a stream:
// "-" (standard input) or anything that is not a regular file (a pipe, a
// FIFO, a character device such as /dev/stdin on a pipe, a socket). It
// does not open path, so a FIFO without a writer does not block it. A
// directory or a missing path is an error.
func IsStream(path string) (bool, error) {
	if path == StdinName {
		return true, nil
	}
	st, err := os.Stat(path)
	if err != nil {
		return false, err
	}
	if st.IsDir() {
		return false, fmt.Errorf("%s: is a directory", path)
	}
	return !st.Mode().IsRegular(), nil
}

// openResult is the outcome of OpenStream's open in another goroutine.
type openResult struct {
	f   *os.File
	err error
}

// OpenStream opens the stream input at path for reading: stdin for "-".
// Opening a FIFO blocks until it has a writer; OpenStream waits in another
// goroutine and returns ctx's error as soon as ctx is done, after making
// the blocked open return (by opening the FIFO for writing for a moment)
// and closing what it opened. Reads of the stream return ctx's error once
// ctx is done, even while the writer writes nothing.
func OpenStream(ctx context.Context, path string, stdin io.Reader) (io.ReadCloser, error) {
	if path == StdinName {
		return &ctxReader{ctx: ctx, r: stdin, closer: io.NopCloser(nil)}, nil
	}
	done := make(chan openResult, 1)
	go func() {
		f, err := os.Open(path)
		done <- openResult{f, err}
	}()
	select {
	case o := <-done:
		if o.err != nil {
			return nil, o.err
		}
		return &ctxReader{ctx: ctx, r: o.f, closer: o.f}, nil
	case <-ctx.Done():
	}
	releaseBlockedOpen(path, done)
	return nil, fmt.Errorf("open %s: %w", path, ctx.Err())
}

// releaseBlockedOpen ends OpenStream's abandoned open of a FIFO and closes
// what it opened: it opens the FIFO for writing for a moment (without
// blocking) until the open returns, which is at once if the open had
// already started and waits for a writer, and otherwise as soon as it
// starts. Without the retry an open that had not yet reached the kernel
// stayed blocked and later took the next writer of the FIFO for itself.
// It waits at most releaseWait; after that the open is left to return
// when a writer comes, and to be closed then.
func releaseBlockedOpen(path string, done <-chan openResult) {
	closeOpened := func(o openResult) {
		if o.f != nil {
			o.f.Close()
		}
	}
	st, err := os.Stat(path)
	fifo := err == nil && st.Mode()&os.ModeNamedPipe != 0
	deadline := time.Now().Add(releaseWait)
	for fifo && time.Now().Before(deadline) {
		if w, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close() // the blocked open returns, and reads EOF
		}
		select {
		case o := <-done:
			closeOpened(o)
			return
		case <-time.After(releasePoll):
		}
	}
	go func() { closeOpened(<-done) }()
}

// How long and how often releaseBlockedOpen tries to end an abandoned open.
const (
	releaseWait = 2 * time.Second
	releasePoll = 2 * time.Millisecond
)

// ctxReader reads r in another goroutine, into a buffer of its own, so
// that a read blocked in the kernel (a pipe whose writer is idle) does not
// hold the caller once ctx is done: Read then returns ctx's error, and the
// abandoned read ends with the stream or the process.
type ctxReader struct {
	ctx     context.Context
	r       io.Reader
	closer  io.Closer
	buf     []byte
	pending []byte // read, not yet returned
	err     error  // to return once pending is drained
	results chan ctxRead
	busy    bool // a read is in flight
}

type ctxRead struct {
	n   int
	err error
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if len(c.pending) == 0 && c.err != nil {
		return 0, c.err
	}
	if len(c.pending) == 0 {
		if !c.busy {
			if c.buf == nil {
				c.buf = make([]byte, edgeReadBufSize)
				c.results = make(chan ctxRead, 1)
			}
			c.busy = true
			go func() {
				n, err := c.r.Read(c.buf)
				c.results <- ctxRead{n, err}
			}()
		}
		select {
		case res := <-c.results:
			c.busy = false
			c.pending, c.err = c.buf[:res.n], res.err
		case <-c.ctx.Done():
			return 0, c.ctx.Err()
		}
	}
	n := copy(p, c.pending)
	c.pending = c.pending[n:]
	if len(c.pending) == 0 && c.err != nil {
		return n, c.err
	}
	return n, nil
}

// Close closes the stream (standard input is left open).
func (c *ctxReader) Close() error { return c.closer.Close() }

// openStreamSource is an edgeSource over a stream, read once by one reader.
func openStreamSource(r io.Reader, name string, format EdgeFormat) (*edgeSource, error) {
	fmtName, gz, err := DetectEdgeFormat(name, string(format))
	if err != nil {
		return nil, fmt.Errorf("read edges: %w", err)
	}
	br := bufio.NewReaderSize(r, edgeReadBufSize)
	if !gz {
		if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
			return nil, &EdgeListError{Name: name, Line: 1, Err: errors.New("the input is gzip-compressed: give the format with .gz")}
		}
	}
	return &edgeSource{name: name, format: fmtName, gzipped: gz, stream: br, bufSize: edgeReadBufSize}, nil
}

// ReadStream reads the whole edge list from the stream r (name names it in
// errors) in format, which must be given (the name of a stream says
// nothing), as ReadEdges reads a file.
func ReadStream(ctx context.Context, r io.Reader, name string, format EdgeFormat) ([]graph.Edge, error) {
	ef, err := ReadStreamFile(ctx, r, name, format)
	if err != nil {
		return nil, err
	}
	return ef.Edges, nil
}

// ReadStreamFile is ReadStream with what ReadEdges says of a file: the
// edges, whether they are directed, the id space and the format.
func ReadStreamFile(ctx context.Context, r io.Reader, name string, format EdgeFormat) (*EdgeFile, error) {
	return readStreamFile(ctx, r, name, format, false)
}

// ReadStreamEntries is ReadStreamFile with one edge per Matrix Market
// entry or .grb tuple, as ReadEntries reads a file.
func ReadStreamEntries(ctx context.Context, r io.Reader, name string, format EdgeFormat) (*EdgeFile, error) {
	return readStreamFile(ctx, r, name, format, true)
}

func readStreamFile(ctx context.Context, r io.Reader, name string, format EdgeFormat, entries bool) (*EdgeFile, error) {
	src, err := openStreamSource(r, name, format)
	if err != nil {
		return nil, err
	}
	src.ctx, src.entries = ctx, entries
	p, err := src.read(0, 1)
	if err != nil {
		return nil, err
	}
	return edgeFileOf(src, p), nil
}

// spreadRound is the number of edges rank 0 spreads per round.
const spreadRound = 1 << 20

// PhaseSpread is the phase of the Alltoallv rounds of SpreadStream.
const PhaseSpread = "read.spread"

// SpreadStream reads an edge list that only rank 0 can read, once, and
// spreads it over the ranks: rank 0 reads the stream r (the others pass
// nil) in format, in rounds of spreadRound edges, and gives every rank a
// near-equal consecutive part of each round (one Alltoallv per round).
// Every rank returns the edges it received, in the stream's order; in rank
// order, round by round, they are the whole list. It is a collective.
// Errors of the input are ReadStream's, on rank 0; rank 0 then leaves the
// collective, which fails the others' calls (the transport's abort).
func SpreadStream(ctx context.Context, c comm.Comm, r io.Reader, name string, format EdgeFormat) (graph.EdgeChunks, error) {
	s, err := spreadStream(ctx, c, r, name, format, spreadRound, false, false)
	return s.edges, err
}

// spreadStream is SpreadStream with rounds of roundEdges edges, reading
// one edge per entry when entries is set (Input.Entries), and the edges'
// weights beside them when weighted is.
func spreadStream(ctx context.Context, c comm.Comm, r io.Reader, name string, format EdgeFormat, roundEdges int, entries, weighted bool) (weightedChunks, error) {
	return spreadStreamBounded(ctx, c, r, name, format, roundEdges, entries, weighted, 0)
}

// spreadStreamBounded is spreadStream failing on every rank, in the same
// round, once a rank has received more than maxEdges edges (0: no bound;
// Input.MaxEdges): a stream's parts are held in memory as they arrive.
func spreadStreamBounded(ctx context.Context, c comm.Comm, r io.Reader, name string, format EdgeFormat, roundEdges int, entries, weighted bool, maxEdges int64) (weightedChunks, error) {
	p, rank := c.Size(), c.Rank()
	var share weightedChunks
	var received int64
	send := make([][]byte, p)
	var recv [][]byte
	// round sends pending (rank 0) and keeps this rank's part; it reports
	// whether it was the last round.
	round := func(pending []graph.Edge, weights []float32, last bool) (bool, error) {
		if rank == 0 {
			for d := range p {
				lo, hi := graph.ShareStart(int64(len(pending)), d, p), graph.ShareStart(int64(len(pending)), d+1, p)
				var ws []float32
				if weighted {
					ws = weights[lo:hi]
				}
				send[d] = appendSpread(send[d][:0], pending[lo:hi], ws, weighted, last)
			}
		}
		var err error
		if recv, err = c.Alltoallv(ctx, PhaseSpread, send, recv); err != nil {
			return false, fmt.Errorf("read edges %s: spreading over the ranks: %w", name, err)
		}
		edges, ws, last, err := decodeSpread(recv[0])
		switch {
		case err != nil:
			return false, fmt.Errorf("read edges %s: spreading over the ranks: from rank 0: %w", name, err)
		case (ws != nil) != weighted:
			return false, fmt.Errorf("read edges %s: spreading over the ranks: from rank 0: weights where none are read, or none where they are", name)
		}
		if received += int64(len(edges)); maxEdges > 0 && received > maxEdges {
			return false, tooManyEdges(name, maxEdges)
		}
		if len(edges) > 0 {
			share.edges = append(share.edges, edges)
			share.weights = append(share.weights, ws)
		}
		return last, nil
	}
	if rank != 0 {
		for {
			last, err := round(nil, nil, false)
			if err != nil {
				return weightedChunks{}, err
			}
			if last {
				return share, nil
			}
		}
	}
	src, err := openStreamSource(r, name, format)
	if err != nil {
		return weightedChunks{}, err
	}
	pending := make([]graph.Edge, 0, roundEdges)
	var weights []float32
	if weighted {
		weights = make([]float32, 0, roundEdges)
	}
	src.ctx, src.entries, src.weighted = ctx, entries, weighted
	src.emitWeighted = func(es []graph.Edge, ws []float32) error {
		for len(es) > 0 {
			n := min(len(es), roundEdges-len(pending))
			pending = append(pending, es[:n]...)
			es = es[n:]
			if weighted {
				weights = append(weights, ws[:n]...)
				ws = ws[n:]
			}
			if len(pending) == roundEdges {
				if _, err := round(pending, weights, false); err != nil {
					return err
				}
				pending, weights = pending[:0], weights[:0]
			}
		}
		return nil
	}
	if !weighted {
		src.emit = func(es []graph.Edge) error { return src.emitWeighted(es, nil) }
	}
	if _, err := src.read(0, 1); err != nil {
		return weightedChunks{}, err
	}
	if _, err := round(pending, weights, true); err != nil {
		return weightedChunks{}, err
	}
	return share, nil
}

// A spread message is one flag byte (spreadMore, or spreadLast in the last
// round, with spreadWeighted set when weights follow) and the edges as
// little-endian int64 pairs, then their weights as little-endian float32
// bits.
const (
	spreadMore     byte = 0
	spreadLast     byte = 1
	spreadWeighted byte = 2
)

// appendSpread appends the message of one round carrying edges (and their
// weights ws when weighted) to buf.
func appendSpread(buf []byte, edges []graph.Edge, ws []float32, weighted, last bool) []byte {
	flag := spreadMore
	if last {
		flag = spreadLast
	}
	if weighted {
		flag |= spreadWeighted
	}
	buf = append(buf, flag)
	for _, e := range edges {
		buf = binary.LittleEndian.AppendUint64(buf, uint64(e.U))
		buf = binary.LittleEndian.AppendUint64(buf, uint64(e.V))
	}
	for _, w := range ws {
		buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(w))
	}
	return buf
}

// decodeSpread decodes a message of appendSpread into new edges, and their
// weights when the message carries them (else ws is nil).
func decodeSpread(m []byte) (edges []graph.Edge, ws []float32, last bool, err error) {
	if len(m) == 0 || m[0]&^(spreadLast|spreadWeighted) != 0 {
		return nil, nil, false, fmt.Errorf("message of %d bytes is not a flag and edges", len(m))
	}
	rec := 16
	if m[0]&spreadWeighted != 0 {
		rec = 20
	}
	if (len(m)-1)%rec != 0 {
		return nil, nil, false, fmt.Errorf("message of %d bytes is not a flag and edges", len(m))
	}
	n := (len(m) - 1) / rec
	edges = make([]graph.Edge, n)
	for i := range edges {
		r := m[1+16*i:]
		edges[i] = graph.Edge{U: int64(binary.LittleEndian.Uint64(r)), V: int64(binary.LittleEndian.Uint64(r[8:]))}
	}
	if rec == 20 {
		ws = make([]float32, n)
		for i := range ws {
			ws[i] = math.Float32frombits(binary.LittleEndian.Uint32(m[1+16*n+4*i:]))
		}
	}
	return edges, ws, m[0]&spreadLast != 0, nil
}

// weightedChunks is a share spread from a stream, held in memory: parts of
// edges in order, and when weighted each part's weights.
type weightedChunks struct {
	edges   graph.EdgeChunks
	weights [][]float32
}

// Scan hands the edges to emit as graph.EdgeChunks does.
func (s weightedChunks) Scan(ctx context.Context, emit func([]graph.Edge) error) error {
	return s.edges.Scan(ctx, emit)
}

// ScanWeighted hands the edges and their weights to emit in chunks of at
// most graph.ScanChunk edges.
func (s weightedChunks) ScanWeighted(ctx context.Context, emit func([]graph.Edge, []float32) error) error {
	for k, part := range s.edges {
		if k >= len(s.weights) || len(s.weights[k]) != len(part) {
			return fmt.Errorf("read edges: %w", ErrUnweighted)
		}
		ws := s.weights[k]
		for len(part) > 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
			n := min(len(part), graph.ScanChunk)
			if err := emit(part[:n], ws[:n]); err != nil {
				return err
			}
			part, ws = part[n:], ws[n:]
		}
	}
	return ctx.Err()
}
