package bfs

import (
	"context"
	"fmt"
	"time"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/frontier"
	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/internal/fielderr"
	"github.com/graphrun/graphrun/internal/parallel"
	"github.com/graphrun/graphrun/partition"
	"github.com/graphrun/graphrun/sieve"
	"github.com/graphrun/graphrun/spmv"
)

// publisher carries a rank's new frontier to the other ranks before a
// bottom-up step, as Lv et al.'s three algorithms do:
//
//   - allgather + raw codec: Alg. 1 (BIT), the bitmap by Allgatherv;
//   - allgather + another codec: Alg. 2, the bitmap compressed before and
//     uncompressed after the Allgatherv;
//   - sieve + a codec: Alg. 3, the bitmap sieved with each peer's cross
//     directory, compressed, and sent by Alltoallv;
//   - packed + a codec: Alg. 3 with the sieved bitmap packed down to the
//     directory positions not yet sent (sieve.Packer) before compression.
//
// Encoding and decoding run on `threads` goroutines, one codec instance each
// (codecs keep state and are not safe for concurrent use).
type publisher struct {
	sieve   bool
	codecs  []frontier.Codec // one per thread
	dir     *sieve.Directory // ExchangeSieve and ExchangePacked
	packer  *sieve.Packer    // ExchangePacked only
	scratch []frontier.Bitmap
	send    [][]byte // encoded messages, per destination
	recv    [][]byte
	choices []string // per destination: the encoding auto chose
	errs    []error  // per thread
}

func newPublisher(g *graph.CSR, part partition.Block1D, rank int, cfg Config) (publisher, error) {
	p := publisher{sieve: cfg.Exchange == spmv.ExchangeSieve || cfg.Exchange == spmv.ExchangePacked}
	for t := 0; t < cfg.Threads; t++ {
		c, err := frontier.New(cfg.Codec)
		if err != nil {
			return publisher{}, fmt.Errorf("bfs: %w", fielderr.Wrap("Codec", err))
		}
		p.codecs = append(p.codecs, c)
		p.scratch = append(p.scratch, frontier.NewBitmap(part.Block)) // any rank's words
	}
	if p.sieve {
		dir, err := sieve.Build(g, part, rank, cfg.Threads)
		if err != nil {
			return publisher{}, fmt.Errorf("bfs: building the cross directory: %w", err)
		}
		p.dir = dir
		if cfg.Exchange == spmv.ExchangePacked {
			if p.packer, err = sieve.NewPacker(dir, g, cfg.Threads); err != nil {
				return publisher{}, fmt.Errorf("bfs: building the packed sieve: %w", err)
			}
		}
	}
	p.send = make([][]byte, part.P)
	p.choices = make([]string, part.P)
	p.errs = make([]error, cfg.Threads)
	return p, nil
}

// publish fills global with every rank's new frontier (sieved for this rank
// when sieving) and records sizes and times in step.
func (p *publisher) publish(ctx context.Context, c comm.Comm, part partition.Block1D, next, global frontier.Bitmap, step *spmv.LevelStats) error {
	rank, size := c.Rank(), c.Size()
	mine := global[part.First(rank)>>6:][:len(next)]
	copy(mine, next)
	if size == 1 {
		return nil
	}
	raw := int64(len(next)) * 8

	t0 := time.Now()
	if err := p.encode(next, rank, size); err != nil {
		return err
	}
	t1 := time.Now()

	// Exchange.
	var recv [][]byte
	var err error
	if p.sieve {
		recv, err = c.Alltoallv(ctx, PhaseFrontier, p.send, p.recv)
		for d := range p.send {
			step.EncodedBytes += int64(len(p.send[d]))
		}
	} else {
		recv, err = c.Allgatherv(ctx, PhaseFrontier, p.send[0], p.recv)
		step.EncodedBytes = int64(len(p.send[0])) * int64(size-1)
	}
	if err != nil {
		return err
	}
	p.recv = recv
	step.RawBytes = raw * int64(size-1)
	step.Codec = mostCommon(p.choices, rank)
	t2 := time.Now()

	if err := p.decode(part, global, recv, rank, size); err != nil {
		return err
	}
	t3 := time.Now()
	step.Compress += t1.Sub(t0) + t3.Sub(t2)
	step.Communicate += t2.Sub(t1)
	return nil
}

// encode fills p.send from next: sieved (or packed) for every peer and
// encoded, by the threads, when sieving (Alg. 3); else encoded once into
// p.send[0] for the Allgatherv (Alg. 1 and 2).
func (p *publisher) encode(next frontier.Bitmap, rank, size int) error {
	threads := len(p.codecs)
	if p.sieve {
		parallel.For(threads, func(t int) {
			p.errs[t] = nil
			for d := t; d < size; d += threads {
				p.send[d] = p.send[d][:0]
				if d == rank {
					continue
				}
				var sieved frontier.Bitmap
				if p.packer != nil {
					sieved = p.packer.Pack(p.scratch[t], next, d)
				} else {
					sieved = p.dir.Sieve(p.scratch[t], next, d)
				}
				p.scratch[t] = sieved
				enc, err := p.codecs[t].Encode(p.send[d], sieved)
				if err != nil {
					p.errs[t] = fmt.Errorf("encoding the frontier for rank %d: %w", d, err)
					return
				}
				p.send[d] = enc
				p.choices[d] = choiceOf(p.codecs[t])
			}
		})
	} else {
		enc, err := p.codecs[0].Encode(p.send[0][:0], next)
		p.send[0], p.errs[0] = enc, err
		for d := range p.choices {
			p.choices[d] = choiceOf(p.codecs[0])
		}
	}
	return firstError(p.errs)
}

// decode writes every other rank's piece of recv into its range of the
// global frontier, by the threads (unpacking it first for the packed
// sieve).
func (p *publisher) decode(part partition.Block1D, global frontier.Bitmap, recv [][]byte, rank, size int) error {
	threads := len(p.codecs)
	parallel.For(threads, func(t int) {
		p.errs[t] = nil
		for src := t; src < size; src += threads {
			if src == rank {
				continue
			}
			w0 := int(part.First(src) >> 6)
			dst := global[w0 : w0+part.Words(src)]
			if p.packer != nil {
				packed := p.scratch[t][:p.packer.Expected(src)]
				if err := p.codecs[t].Decode(packed, recv[src]); err != nil {
					p.errs[t] = fmt.Errorf("frontier from rank %d: %w", src, err)
					return
				}
				if err := p.packer.Unpack(dst, packed, src); err != nil {
					p.errs[t] = fmt.Errorf("frontier from rank %d: %w", src, err)
					return
				}
				continue
			}
			if err := p.codecs[t].Decode(dst, recv[src]); err != nil {
				p.errs[t] = fmt.Errorf("frontier from rank %d: %w", src, err)
				return
			}
		}
	})
	return firstError(p.errs)
}

// choiceOf names the encoding a codec used last (its own name unless it
// chooses per message).
func choiceOf(c frontier.Codec) string {
	if ch, ok := c.(frontier.Chooser); ok {
		return ch.LastChoice()
	}
	return c.Name()
}

// mostCommon returns the most frequent choice among the destinations other
// than skip (the first one on ties).
func mostCommon(choices []string, skip int) string {
	best, bestCount := "", 0
	for i, c := range choices {
		if i == skip || c == "" {
			continue
		}
		n := 0
		for j, d := range choices {
			if j != skip && d == c {
				n++
			}
		}
		if n > bestCount {
			best, bestCount = c, n
		}
	}
	return best
}
