package bench

// The transport's Alltoallv against the message size: latency, bandwidth
// and the minimum efficient message size (Kylix Fig. 2 and §IV).

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/graphrun/graphrun/comm"
)

// EfficientFraction defines the minimum efficient message size: the
// smallest measured size whose bandwidth reaches this fraction of the
// peak.
const EfficientFraction = 0.5

// TransportRow is one message size's measurement.
type TransportRow struct {
	Size    int     // bytes from one rank to each other rank per call
	Calls   int     // calls timed
	Seconds float64 // per call: the slowest rank's time for all calls / calls
}

// Bandwidth is the bytes one rank sends to the others per second.
func (r TransportRow) Bandwidth(ranks int) float64 {
	return float64(r.Size) * float64(ranks-1) / r.Seconds
}

// MeasureAlltoallv is one rank's share of bench transport: for each size,
// one warm-up call that also checks the data, one call to calibrate, then
// enough calls to fill minTime, timed between barriers. Every rank returns
// the same rows (times are maxima over ranks). onRow, if not nil, gets
// each row as soon as it is measured.
func MeasureAlltoallv(ctx context.Context, c comm.Comm, sizes []int, minTime time.Duration, onRow func(TransportRow) error) ([]TransportRow, error) {
	const phase = "bench.alltoallv"
	p, me := c.Size(), c.Rank()
	recv := make([][]byte, p)
	var rows []TransportRow
	for _, size := range sizes {
		buf := make([]byte, size)
		for i := range buf {
			buf[i] = byte(me + i)
		}
		send := make([][]byte, p)
		for d := range send {
			if d != me {
				send[d] = buf // sends are only read: one buffer serves every peer
			}
		}
		var err error
		if recv, err = c.Alltoallv(ctx, phase, send, recv); err != nil {
			return nil, err
		}
		for s, m := range recv {
			if s != me && (len(m) != size || m[0] != byte(s) || m[size-1] != byte(s+size-1)) {
				return nil, fmt.Errorf("bench: rank %d received %d wrong bytes from rank %d (want %d)", me, len(m), s, size)
			}
		}
		timed := func(calls int) (float64, error) {
			if err := c.Barrier(ctx, phase); err != nil {
				return 0, err
			}
			t0 := time.Now()
			for range calls {
				if recv, err = c.Alltoallv(ctx, phase, send, recv); err != nil {
					return 0, err
				}
			}
			v := []float64{time.Since(t0).Seconds()}
			err := c.AllreduceFloat64(ctx, phase, v, comm.Max)
			return v[0], err
		}
		one, err := timed(1)
		if err != nil {
			return nil, err
		}
		// The same value on every rank (an allreduce result), so every rank
		// makes the same number of calls.
		calls := int(min(1e6, max(2, minTime.Seconds()/max(one, 1e-9))))
		total, err := timed(calls)
		if err != nil {
			return nil, err
		}
		row := TransportRow{Size: size, Calls: calls, Seconds: max(total, 1e-9) / float64(calls)}
		rows = append(rows, row)
		if onRow != nil {
			if err := onRow(row); err != nil {
				return nil, err
			}
		}
	}
	return rows, nil
}

// EfficientSize returns the index of the peak bandwidth among rows and of
// the minimum efficient message size: the smallest size whose bandwidth
// reaches EfficientFraction of the peak.
func EfficientSize(rows []TransportRow, ranks int) (peak, efficient int) {
	for i, r := range rows {
		if r.Bandwidth(ranks) > rows[peak].Bandwidth(ranks) {
			peak = i
		}
	}
	efficient = peak
	for i, r := range rows {
		if r.Bandwidth(ranks) >= EfficientFraction*rows[peak].Bandwidth(ranks) && r.Size < rows[efficient].Size {
			efficient = i
		}
	}
	return peak, efficient
}

// WriteTransportTable prints bench transport's report: a line saying what
// ran, a Markdown table, the peak and the minimum efficient message size.
func WriteTransportTable(w io.Writer, what string, ranks int, rows []TransportRow) error {
	fmt.Fprintf(w, "Alltoallv over %s: one message of each size from every rank to every other rank per call. ", what)
	fmt.Fprintf(w, "Latency: one call, the slowest rank's time for all calls divided by the calls. ")
	fmt.Fprintf(w, "Bandwidth: bytes one rank sends to the others per second (it receives as many); aggregate: all ranks; MB = 10^6 bytes.\n\n")
	fmt.Fprintln(w, "| message | calls | latency µs | MB/s per rank | aggregate MB/s |")
	fmt.Fprintln(w, "|---:|---:|---:|---:|---:|")
	for _, r := range rows {
		bw := r.Bandwidth(ranks)
		fmt.Fprintf(w, "| %s | %d | %.1f | %.1f | %.1f |\n", FormatSize(r.Size), r.Calls, r.Seconds*1e6, bw/1e6, bw*float64(ranks)/1e6)
	}
	if len(rows) == 0 {
		return nil
	}
	peak, eff := EfficientSize(rows, ranks)
	_, err := fmt.Fprintf(w, "\n- peak bandwidth: %.1f MB/s per rank with %s messages\n- minimum efficient message size: %s (the smallest size reaching %.0f%% of the peak bandwidth)\n",
		rows[peak].Bandwidth(ranks)/1e6, FormatSize(rows[peak].Size), FormatSize(rows[eff].Size), 100*EfficientFraction)
	return err
}
