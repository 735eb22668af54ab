package results

import (
	"fmt"
	"io"
)

// RankLoad is what one rank held and sent in a run: the stored adjacency
// entries and bytes of the structure its searches ran on (the 1D CSR rows, or
// the 2D block by rows and by columns), the bytes and messages it sent to
// other ranks during the timed searches, those it sent validating them (with
// several blocks per rank, only what went to other ranks' blocks), and the peak
// resident memory of its process (ranks in one process report about the same
// figure).
type RankLoad struct {
	Edges            int64 `json:"edges"`
	MemoryBytes      int64 `json:"memory_bytes"`
	BytesSent        int64 `json:"bytes_sent"`
	Messages         int64 `json:"messages"`
	ValidateBytes    int64 `json:"validate_bytes_sent"`
	ValidateMessages int64 `json:"validate_messages"`
	PeakMemoryBytes  int64 `json:"peak_memory_bytes,omitempty"`
	// ProcessKey tells the rank's process from the others (memstat's
	// ProcessKey): the job's peak counts each process once.
	ProcessKey int64 `json:"-"`
	// Blocks is the number of 2D blocks the rank held (0 for 1D runs);
	// EdgesScanned the adjacency entries its searches read, BusySeconds the
	// time they spent traversing, sieving and coding (not waiting), summed
	// over the timed searches (with several blocks per rank, which run at
	// once, per level the time of the rank's slowest block).
	Blocks       int     `json:"blocks,omitempty"`
	EdgesScanned int64   `json:"edges_scanned,omitempty"`
	BusySeconds  float64 `json:"busy_seconds,omitempty"`
	// CPUSeconds is the CPU time (user + system, all threads) the rank's
	// process used in the timed searches: its traversal and coding, and
	// its sends, receives and runtime too. Only when each rank is a
	// process of its own (0 and left out when in-process ranks share one).
	CPUSeconds float64 `json:"cpu_seconds,omitempty"`
}

// Imbalance is the max/mean ratio of each RankLoad field over the ranks (1
// is perfect balance; 0 when the mean is 0).
type Imbalance struct {
	Edges       float64 `json:"edges"`
	MemoryBytes float64 `json:"memory_bytes"`
	BytesSent   float64 `json:"bytes_sent"`
	Messages    float64 `json:"messages"`
}

// LoadImbalance returns the max/mean ratios of loads.
func LoadImbalance(loads []RankLoad) Imbalance {
	ratio := func(get func(RankLoad) int64) float64 {
		var sum, top int64
		for _, l := range loads {
			v := get(l)
			sum += v
			top = max(top, v)
		}
		if sum == 0 {
			return 0
		}
		return float64(top) * float64(len(loads)) / float64(sum)
	}
	return Imbalance{
		Edges:       ratio(func(l RankLoad) int64 { return l.Edges }),
		MemoryBytes: ratio(func(l RankLoad) int64 { return l.MemoryBytes }),
		BytesSent:   ratio(func(l RankLoad) int64 { return l.BytesSent }),
		Messages:    ratio(func(l RankLoad) int64 { return l.Messages }),
	}
}

// partitionLabel is the partition and grid of r for the breakdown header.
func (r *Graph500Run) partitionLabel() string {
	switch {
	case r.Partition == "":
		return ""
	case r.Grid != "" && r.BlocksPerRank > 1:
		label := fmt.Sprintf(", partition %s, block grid %s, %d blocks per rank, placement %s", r.Partition, r.Grid, r.BlocksPerRank, r.Placement)
		if r.Fused != "" {
			label += " (fused: block columns " + r.Fused + ")"
		}
		return label
	case r.Grid != "":
		return fmt.Sprintf(", partition %s, grid %s", r.Partition, r.Grid)
	}
	return ", partition " + r.Partition
}

// writeLoads writes the per-rank load summary under the breakdown table.
func (r *Graph500Run) writeLoads(w io.Writer) error {
	if len(r.RankLoads) == 0 {
		return nil
	}
	var top RankLoad
	var sum RankLoad
	for _, l := range r.RankLoads {
		top.Edges, sum.Edges = max(top.Edges, l.Edges), sum.Edges+l.Edges
		top.MemoryBytes, sum.MemoryBytes = max(top.MemoryBytes, l.MemoryBytes), sum.MemoryBytes+l.MemoryBytes
		top.BytesSent, sum.BytesSent = max(top.BytesSent, l.BytesSent), sum.BytesSent+l.BytesSent
		top.Messages, sum.Messages = max(top.Messages, l.Messages), sum.Messages+l.Messages
	}
	p := int64(len(r.RankLoads))
	im := LoadImbalance(r.RankLoads)
	_, err := fmt.Fprintf(w, "per-rank load over %d ranks (max, mean, max/mean): edges %d %d %.3f; memory %d %d %.3f; bytes sent %d %d %.3f; messages %d %d %.3f\n",
		p, top.Edges, sum.Edges/p, im.Edges, top.MemoryBytes, sum.MemoryBytes/p, im.MemoryBytes,
		top.BytesSent, sum.BytesSent/p, im.BytesSent, top.Messages, sum.Messages/p, im.Messages)
	if err != nil {
		return fmt.Errorf("breakdown: %w", err)
	}
	return nil
}
