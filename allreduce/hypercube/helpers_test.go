package hypercube

import (
	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/inproc"
)

// onRanks runs fn on ranks 0 … p−1 of w and returns an error of a rank that
// failed; a failing rank aborts w, so that the others do not hang.
func onRanks(w *inproc.World, p int, fn func(c comm.Comm) error) error {
	errc := make(chan error, p)
	for r := range p {
		go func() {
			err := fn(w.Comm(r))
			if err != nil {
				w.Abort(r, err)
			}
			errc <- err
		}()
	}
	var first error
	for range p {
		if err := <-errc; err != nil && first == nil {
			first = err
		}
	}
	return first
}
