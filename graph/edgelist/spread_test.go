// Tests of spread.go: a stream read once by rank 0 and spread gives every
// edge once, its errors reach every rank, and a FIFO without a writer never
// blocks a cancelled open.

package edgelist

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/graphrun/graphrun/graph"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/inproc"
)

// spreadAll spreads data (read as a stream by rank 0) over p ranks in
// rounds of round edges and returns every rank's share.
func spreadAll(t *testing.T, data []byte, name string, format EdgeFormat, p, round int) ([][]graph.Edge, error) {
	t.Helper()
	shares := make([][]graph.Edge, p)
	err := inproc.Run(context.Background(), p, func(ctx context.Context, c comm.Comm) error {
		var r io.Reader
		if c.Rank() == 0 {
			r = bytes.NewReader(data)
		}
		share, err := spreadStream(ctx, c, r, name, format, round, false, false)
		if err != nil {
			return err
		}
		for _, part := range share.edges {
			shares[c.Rank()] = append(shares[c.Rank()], part...)
		}
		return nil
	})
	return shares, err
}

// TestSpreadStream reads random edge lists of every format as streams
// (plain, gzipped, .bel) on 1 to 4 ranks, in one round and in many: every
// edge reaches exactly one rank, in order within a rank, and one round's
// shares in rank order are the whole list.
func TestSpreadStream(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for iter := range 12 {
		format := []EdgeFormat{EdgeFormatSNAP, EdgeFormatEL, EdgeFormatWEL, EdgeFormatMTX}[iter%4]
		data, want := randomEdgeText(rng, format, 1+rng.IntN(300))
		var bel bytes.Buffer
		w := &bel
		w.WriteString(EdgeListMagic)
		w.Write(binaryHeader(int64(len(want)))[8:])
		for _, e := range want {
			w.Write(appendSpread(nil, []graph.Edge{e}, nil, false, false)[1:])
		}
		inputs := []struct {
			data   []byte
			format EdgeFormat
		}{{data, format}, {gzipBytes(t, data), format + ".gz"}, {bel.Bytes(), EdgeFormatBEL}}
		for _, in := range inputs {
			for p := 1; p <= 4; p++ {
				for _, round := range []int{spreadRound, 7} {
					shares, err := spreadAll(t, in.data, "stdin", in.format, p, round)
					if err != nil {
						t.Fatalf("iter %d %s on %d ranks: %v", iter, in.format, p, err)
					}
					got := slices.Concat(shares...)
					if round == spreadRound && !slices.Equal(got, want) {
						t.Fatalf("iter %d %s on %d ranks: the shares are not the list", iter, in.format, p)
					}
					sortEdges(got)
					sorted := slices.Clone(want)
					sortEdges(sorted)
					if !slices.Equal(got, sorted) {
						t.Fatalf("iter %d %s on %d ranks, rounds of %d: not every edge once", iter, in.format, p, round)
					}
				}
			}
		}
	}
}

func sortEdges(es []graph.Edge) {
	slices.SortFunc(es, func(a, b graph.Edge) int { return cmp.Or(cmp.Compare(a.U, b.U), cmp.Compare(a.V, b.V)) })
}

// TestSpreadStreamErrors checks that a malformed stream fails with the
// reader's file:line error, a gzip stream not named so is refused, and an
// unnamed format is an error.
func TestSpreadStreamErrors(t *testing.T) {
	_, err := spreadAll(t, []byte("1 2\n3 x\n"), "pipe", EdgeFormatSNAP, 3, 1)
	var le *EdgeListError
	if !errors.As(err, &le) || !strings.Contains(err.Error(), "pipe:2:") {
		t.Errorf("malformed stream: %v, want pipe:2: …", err)
	}
	_, err = spreadAll(t, gzipBytes(t, []byte("1 2\n")), "pipe", EdgeFormatSNAP, 2, 1)
	if !errors.As(err, &le) || !strings.Contains(err.Error(), "gzip") {
		t.Errorf("unannounced gzip: %v", err)
	}
	if _, err := ReadStream(context.Background(), strings.NewReader("1 2\n"), "-", ""); err == nil {
		t.Error("a stream without a format was read")
	}
	got, err := ReadStream(context.Background(), strings.NewReader("# c\n1 2\n3 4"), "-", EdgeFormatSNAP)
	if err != nil || !slices.Equal(got, []graph.Edge{{U: 1, V: 2}, {U: 3, V: 4}}) {
		t.Errorf("ReadStream = %v, %v", got, err)
	}
}

// TestIsStreamAndOpenStream checks which inputs are streams, and opening a
// FIFO: a cancelled open of a FIFO without a writer returns, and with a
// writer the data comes through.
func TestIsStreamAndOpenStream(t *testing.T) {
	dir := t.TempDir()
	regular := writeFile(t, "r.txt", []byte("1 2\n"))
	fifo := filepath.Join(dir, "f.txt")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	for _, c := range []struct {
		path   string
		stream bool
		bad    bool
	}{{StdinName, true, false}, {regular, false, false}, {fifo, true, false}, {os.DevNull, true, false}, {dir, false, true}, {filepath.Join(dir, "none"), false, true}} {
		got, err := IsStream(c.path)
		if (err != nil) != c.bad || got != c.stream {
			t.Errorf("IsStream(%s) = %v, %v", c.path, got, err)
		}
	}

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := OpenStream(ctx, fifo, nil)
		done <- err
	}()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled open of a FIFO without a writer: %v", err)
	}

	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err == nil {
			w.WriteString("5 6\n7 8\n")
			w.Close()
		}
	}()
	r, err := OpenStream(context.Background(), fifo, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got, err := ReadStream(context.Background(), r, fifo, EdgeFormatSNAP)
	if err != nil || !slices.Equal(got, []graph.Edge{{U: 5, V: 6}, {U: 7, V: 8}}) {
		t.Errorf("FIFO: %v, %v", got, err)
	}
	in, err := OpenStream(context.Background(), StdinName, strings.NewReader("9 9\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := ReadStream(context.Background(), in, "-", EdgeFormatEL); err != nil || !slices.Equal(got, []graph.Edge{{U: 9, V: 9}}) {
		t.Errorf("stdin: %v, %v", got, err)
	}

	// A pipe whose writer sends one line and then nothing: a cancelled
	// read returns.
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pw.Close()
	defer pr.Close()
	if _, err := pw.WriteString("1 2\n"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel = context.WithCancel(context.Background())
	in, err = OpenStream(ctx, StdinName, pr)
	if err != nil {
		t.Fatal(err)
	}
	read := make(chan error, 1)
	go func() {
		_, err := ReadStream(ctx, in, "-", EdgeFormatSNAP)
		read <- err
	}()
	cancel()
	if err := <-read; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled read of an idle pipe: %v", err)
	}
}

// FuzzDecodeSpread feeds arbitrary messages to the decoder of a spread
// round (bytes from another process): it never panics, and what it
// accepts encodes back to the same bytes.
func FuzzDecodeSpread(f *testing.F) {
	f.Add(appendSpread(nil, []graph.Edge{{U: 1, V: 2}, {U: 3, V: 4}}, nil, false, false))
	f.Add(appendSpread(nil, nil, nil, false, true))
	f.Add(appendSpread(nil, []graph.Edge{{U: 1, V: 2}}, []float32{0.5}, true, true))
	f.Add([]byte{2})
	f.Add([]byte{0, 1, 2, 3})
	f.Fuzz(func(t *testing.T, m []byte) {
		edges, ws, last, err := decodeSpread(m)
		if err != nil {
			return
		}
		if ws != nil && len(ws) != len(edges) {
			t.Fatalf("decoded %d edges with %d weights", len(edges), len(ws))
		}
		if back := appendSpread(nil, edges, ws, ws != nil, last); !bytes.Equal(back, m) {
			t.Fatalf("decoded %d edges (last %v) that encode to other bytes", len(edges), last)
		}
	})
}
