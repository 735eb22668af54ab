package frontier_test

import (
	"fmt"

	"github.com/graphrun/graphrun/frontier"
)

// A frontier of Lv et al. Alg. 1: one bit per vertex. A vertex joins and
// leaves it; ForEach lists it in increasing order.
func ExampleBitmap() {
	f := frontier.NewBitmap(200)
	for _, v := range []int64{2, 3, 5, 130} {
		f.Set(v)
	}
	f.Unset(3)
	fmt.Println(len(f), "words,", f.Count(), "vertices")
	f.ForEach(func(v int64) { fmt.Print(v, " ") })
	fmt.Println()
	// Output:
	// 4 words, 3 vertices
	// 2 5 130
}
