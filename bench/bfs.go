package bench

// The matrices of BFS runs that bench bfs-codecs and bench bfs-scaling
// compare: Lv et al.'s algorithms (Table V, graph500.ParseAlgorithm) and
// graphrun's own modes.

import (
	"fmt"

	"github.com/graphrun/graphrun/graph500"
	"github.com/graphrun/graphrun/results"
)

// BFSEntry is one configuration of a BFS benchmark matrix.
type BFSEntry struct {
	Label, Exchange, Codec, Direction string
	Ranks                             int // 0: the matrix's rank count
}

// codecsAlgorithms are Lv et al.'s algorithms bench bfs-codecs runs, and
// graphrun's automatic codec choice with each exchange.
var codecsAlgorithms = []string{"BIT", "WAH", "ZLB-BS", "ZLB-DF", "ZLB-BC", "DIR-WAH", "DIR-ZLB-BS", "DIR-auto", "PDIR-WAH", "PDIR-ZLB-BS", "PDIR-auto"}

// CodecsMatrix is Lv et al.'s comparison (Table V algorithms, bottom-up at
// every level) plus graphrun's packed sieve and direction-optimised runs.
func CodecsMatrix() ([]BFSEntry, error) {
	var m []BFSEntry
	for _, name := range codecsAlgorithms {
		exchange, codec, err := graph500.ParseAlgorithm(name)
		if err != nil {
			return nil, fmt.Errorf("bench: the codecs matrix: %w", err)
		}
		m = append(m, BFSEntry{name, exchange, codec, "bottom-up", 0})
	}
	return append(m,
		BFSEntry{"direction-optimised allgather + raw", "allgather", "raw", "auto", 0},
		BFSEntry{"direction-optimised sieve + auto", "sieve", "auto", "auto", 0},
		BFSEntry{"direction-optimised packed + auto", "packed", "auto", "auto", 0}), nil
}

// ScalingMatrix is the default mode and the packed sieve on 1, 2, 4, ...
// ranks up to ranks.
func ScalingMatrix(ranks int) []BFSEntry {
	var m []BFSEntry
	for p := 1; p <= ranks; p *= 2 {
		m = append(m,
			BFSEntry{results.RankCount(p) + ", allgather + raw", "allgather", "raw", "auto", p},
			BFSEntry{results.RankCount(p) + ", packed + auto", "packed", "auto", "auto", p})
	}
	return m
}
