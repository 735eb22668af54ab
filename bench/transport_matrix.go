package bench

// bench transport as a whole (Kylix Fig. 2): its settings checked,
// the Alltoallv timed on every message size over the job's ranks, a JSON
// per size, the table and summary.json with the peak and the minimum
// efficient message size.

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/launch"
	"github.com/graphrun/graphrun/internal/fielderr"
	"github.com/graphrun/graphrun/internal/progress"
	"github.com/graphrun/graphrun/internal/units"
)

// DefaultTransportSizes are bench transport's message sizes: powers of 4
// from 256 B to 16 MiB.
const DefaultTransportSizes = "256,1Ki,4Ki,16Ki,64Ki,256Ki,1Mi,4Mi,16Mi"

// MaxTransportSize bounds a message of bench transport (each rank holds
// one send buffer and a receive buffer per peer of this size).
const MaxTransportSize = 1 << 30

// TransportSpec configures the transport matrix, checked by Parse, whose
// errors name the field at fault.
type TransportSpec struct {
	Ranks    int // in-process ranks
	Sizes    string
	MinTime  time.Duration
	Replicas int // replicas of every rank of a job of processes
}

// TransportMatrix is a checked TransportSpec.
type TransportMatrix struct {
	Spec  TransportSpec
	Sizes []int
}

// Parse checks the settings; every error is a fielderr.Error naming the
// field at fault.
func (s TransportSpec) Parse() (*TransportMatrix, error) {
	sizes, err := ParseSizes(s.Sizes)
	if err != nil {
		return nil, fielderr.Wrap("Sizes", err)
	}
	if s.MinTime <= 0 {
		return nil, fielderr.New("MinTime", "%v is not a positive duration", s.MinTime)
	}
	if err := launch.CheckRanks(s.Ranks); err != nil {
		return nil, err
	}
	return &TransportMatrix{Spec: s, Sizes: sizes}, nil
}

// ParseSizes parses a comma-separated list of message sizes from 1 byte
// to MaxTransportSize (internal/units: 1Ki = 1024, 1k = 1000).
func ParseSizes(list string) ([]int, error) {
	return parseList(list, func(field string) (int64, error) { return units.ParseBytes(field, 1, MaxTransportSize) })
}

// TransportRun is the JSON of one message size.
type TransportRun struct {
	Transport string `json:"transport"`
	Ranks     int    `json:"ranks"`
	// Size is the bytes from one rank to each other rank per call.
	Size  int `json:"size"`
	Calls int `json:"calls"`
	// Seconds is one call's latency: the slowest rank's time for all calls
	// divided by the calls.
	Seconds float64 `json:"seconds"`
	// BandwidthPerRank is the bytes one rank sends to the others per
	// second (it receives as many).
	BandwidthPerRank float64 `json:"bandwidth_per_rank"`
}

// TransportSummary is summary.json of bench transport.
type TransportSummary struct {
	Meta
	Transport            string         `json:"transport"`
	Ranks                int            `json:"ranks"`
	MinTime              float64        `json:"min_time"`
	PeakSize             int            `json:"peak_size,omitempty"`
	PeakBandwidthPerRank float64        `json:"peak_bandwidth_per_rank,omitempty"`
	MinEfficientSize     int            `json:"min_efficient_size,omitempty"`
	Files                []string       `json:"files"`
	Runs                 []TransportRun `json:"runs"`
}

// Run measures every message size over the job's ranks; rank 0 prints the
// table and writes the outputs, which it has started (Output.Start).
func (m *TransportMatrix) Run(ctx context.Context, job Job) error {
	plan, out := job.Plan, job.Out
	report := plan.Reports() // only rank 0 (its first replica) prints and writes
	ranks := plan.TotalRanks()
	what := fmt.Sprintf("%d in-process ranks", ranks)
	switch {
	case plan.TCP():
		what = fmt.Sprintf("tcp, %d processes", ranks)
	case plan.MPI():
		what = fmt.Sprintf("mpi, %d processes", ranks)
	}
	var bar *progress.Matrix
	summary := TransportSummary{Transport: what, Ranks: ranks, MinTime: m.Spec.MinTime.Seconds()}
	if report {
		bar = progress.NewMatrix(job.Stderr, "transport", len(m.Sizes))
	}
	// record keeps a measured size: its JSON in Dir and a progress step.
	record := func(r TransportRow) error {
		run := TransportRun{Transport: what, Ranks: ranks, Size: r.Size, Calls: r.Calls, Seconds: r.Seconds, BandwidthPerRank: r.Bandwidth(ranks)}
		file := fmt.Sprintf("transport-p%d-%s.json", ranks, units.FormatBytes(int64(r.Size)))
		if err := out.WriteJSON(file, run); err != nil {
			return err
		}
		summary.Files, summary.Runs = append(summary.Files, file), append(summary.Runs, run)
		bar.Step(fmt.Sprintf("%s: %.1f µs, %.1f MB/s per rank", FormatSize(r.Size), r.Seconds*1e6, r.Bandwidth(ranks)/1e6))
		return nil
	}
	var rows []TransportRow
	err := plan.RunRanks(ctx, job.Stderr, func(ctx context.Context, c comm.Comm) error {
		var onRow func(TransportRow) error
		if c.Rank() == 0 && report {
			onRow = record
		}
		r, err := MeasureAlltoallv(ctx, c, m.Sizes, m.Spec.MinTime, onRow)
		if c.Rank() == 0 {
			rows = r
		}
		return err
	})
	if err != nil || !report {
		return err
	}
	bar.Finish()
	out.Finish()
	var table strings.Builder
	if err := WriteTransportTable(&table, what, ranks, rows); err != nil {
		return err
	}
	if _, err := io.WriteString(job.Text, table.String()); err != nil {
		return fmt.Errorf("bench transport: %w", err)
	}
	summary.Meta = out.Meta()
	if len(rows) > 0 {
		peak, eff := EfficientSize(rows, ranks)
		summary.PeakSize, summary.PeakBandwidthPerRank, summary.MinEfficientSize = rows[peak].Size, rows[peak].Bandwidth(ranks), rows[eff].Size
	}
	return out.WriteSummary(summary)
}
