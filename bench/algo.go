package bench

// A paper 004 algorithm name (bfs --algo; REFERENCES.md) applied to bfs's
// settings: the exchange and codec it stands for, bottom-up at every level.

import (
	"github.com/graphrun/graphrun/graph500"
	"github.com/graphrun/graphrun/internal/fielderr"
)

// ApplyAlgorithm sets s's exchange and codec from its algorithm
// (ParseAlgorithm), and its direction to bottom-up unless direction was
// given: the paper's algorithms are bottom-up at every level. Nothing
// without an algorithm. An algorithm given with exchange or codec is
// refused, as is an unknown one; the errors are fielderr.Errors of "algo".
func ApplyAlgorithm(s *graph500.Settings) error {
	if s.Algo == "" {
		return nil
	}
	for _, flag := range []string{"exchange", "codec"} {
		if s.Given(flag) {
			return fielderr.New("algo", "cannot be combined with --%s (it sets both --exchange and --codec)", flag)
		}
	}
	exchange, codec, err := ParseAlgorithm(s.Algo)
	if err != nil {
		return fielderr.Wrap("algo", err)
	}
	s.Exchange, s.Codec = exchange, codec
	if !s.Given("direction") {
		s.Direction = "bottom-up"
	}
	return nil
}
