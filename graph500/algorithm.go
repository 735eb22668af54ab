package graph500

// The BFS algorithms of Lv et al. (Table V and §VII-C) by name, as the
// exchange and codec of a run: BIT (the bitmap allgather, Alg. 1), WAH and
// the zlib codecs (the compressed bitmap, Alg. 2), and DIR- in front for
// the sieve (Alg. 3).

import (
	"fmt"
	"slices"
	"strings"

	"github.com/graphrun/graphrun/frontier"
)

// paperCodecs maps the codec part of Lv et al.'s algorithm names to
// graphrun's codec names.
var paperCodecs = map[string]string{"BIT": "raw", "WAH": "wah", "ZLB-BS": "zlib-bs", "ZLB-DF": "zlib-df", "ZLB-BC": "zlib-bc"}

// ParseAlgorithm turns an algorithm name of Lv et al. — BIT, WAH, ZLB-BS/DF/BC,
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

// AlgorithmNames lists Lv et al.'s algorithm names ParseAlgorithm takes:
// BIT, WAH and the ZLB codecs, then each with DIR- (the sieve) and PDIR-
// (the packed sieve) in front.
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
