package bench

// Paper 004's BFS algorithms (Table V and §VII-C) as graphrun exchanges
// and codecs, and the matrices of BFS runs that bench bfs-codecs and
// bench bfs-scaling compare.

import (
	"fmt"
	"slices"
	"strings"

	"github.com/graphrun/graphrun/frontier"
	"github.com/graphrun/graphrun/results"
)

// paperCodecs maps the codec part of paper 004's algorithm names (Table V
// and §VII-C) to graphrun's codec names.
var paperCodecs = map[string]string{"BIT": "raw", "WAH": "wah", "ZLB-BS": "zlib-bs", "ZLB-DF": "zlib-df", "ZLB-BC": "zlib-bc"}

// ParseAlgorithm turns a paper 004 algorithm name — BIT, WAH, ZLB-BS/DF/BC,
// and DIR- in front of any of them for the sieved exchange — into an
// exchange and a codec. graphrun's own codec names are accepted as well
// (DIR-snappy, DIR-auto, ...), and PDIR- names graphrun's packed sieve
// (PDIR-WAH, ...). Names are case-insensitive.
func ParseAlgorithm(name string) (exchange, codec string, err error) {
	exchange = "allgather"
	rest := name
	upper := strings.ToUpper(name)
	if r, ok := strings.CutPrefix(upper, "DIR-"); ok {
		exchange, rest = "sieve", name[len(name)-len(r):]
	} else if r, ok := strings.CutPrefix(upper, "PDIR-"); ok {
		exchange, rest = "packed", name[len(name)-len(r):]
	}
	if c, ok := paperCodecs[strings.ToUpper(rest)]; ok {
		return exchange, c, nil
	}
	if _, err := frontier.New(strings.ToLower(rest)); err == nil {
		return exchange, strings.ToLower(rest), nil
	}
	return "", "", fmt.Errorf("unknown algorithm %q (want BIT, WAH, ZLB-BS, ZLB-DF, ZLB-BC, or DIR- or PDIR- followed by one of them or a codec name)", name)
}

// AlgorithmNames lists paper 004's algorithm names ParseAlgorithm takes:
// BIT, WAH and the ZLB codecs, then each with DIR- (the sieve) and PDIR-
// (the packed sieve) in front — what shell completion offers for --algo.
func AlgorithmNames() []string {
	names := make([]string, 0, len(paperCodecs))
	for name := range paperCodecs {
		names = append(names, name)
	}
	slices.Sort(names)
	out := slices.Clone(names)
	for _, prefix := range []string{"DIR-", "PDIR-"} {
		for _, n := range names {
			out = append(out, prefix+n)
		}
	}
	return out
}

// BFSEntry is one configuration of a BFS benchmark matrix.
type BFSEntry struct {
	Label, Exchange, Codec, Direction string
	Ranks                             int // 0: the matrix's rank count
}

// codecsAlgorithms are the paper's algorithms bench bfs-codecs runs, and
// graphrun's automatic codec choice with each exchange.
var codecsAlgorithms = []string{"BIT", "WAH", "ZLB-BS", "ZLB-DF", "ZLB-BC", "DIR-WAH", "DIR-ZLB-BS", "DIR-auto", "PDIR-WAH", "PDIR-ZLB-BS", "PDIR-auto"}

// CodecsMatrix is paper 004's comparison (Table V algorithms, bottom-up at
// every level) plus graphrun's packed sieve and direction-optimised runs.
func CodecsMatrix() ([]BFSEntry, error) {
	var m []BFSEntry
	for _, name := range codecsAlgorithms {
		exchange, codec, err := ParseAlgorithm(name)
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
