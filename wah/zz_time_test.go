package wah

import (
	"math/rand/v2"
	"testing"
	"time"
)

func TestZZTime(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, n := range []int{16, 100, 1000, 10000, 100000, 2000, 2000, 2000, 2000, 2000, 2000, 2000, 2000} {
		data := make([]byte, n)
		for i := range data {
			data[i] = byte(rng.Uint32())
		}
		t0 := time.Now()
		checkRoundTrip(t, data, false)
		t1 := time.Now()
		checkRoundTrip(t, data, true)
		t.Logf("n=%d bytes: %v rle: %v", n, t1.Sub(t0), time.Since(t1))
	}
}
