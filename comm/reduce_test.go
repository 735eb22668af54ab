package comm

import (
	"math"
	"slices"
	"testing"
)

func TestReduce(t *testing.T) {
	cases := []struct {
		op       Op
		ints     []int64
		floats   []float64
		checkErr bool
	}{
		{Sum, []int64{4, -1, 9}, []float64{4.5, -1, 9}, false},
		{Max, []int64{3, 2, 7}, []float64{3.5, 2, 7}, false},
		{Min, []int64{1, -3, 2}, []float64{1, -3, 2}, false},
	}
	for _, c := range cases {
		accI, accF := []int64{1, 2, 7}, []float64{1, 2, 7}
		ReduceInt64(accI, []int64{3, -3, 2}, c.op)
		ReduceFloat64(accF, []float64{3.5, -3, 2}, c.op)
		if !slices.Equal(accI, c.ints) || !slices.Equal(accF, c.floats) {
			t.Errorf("%s: got %v %v, want %v %v", c.op, accI, accF, c.ints, c.floats)
		}
		if err := c.op.Check(); err != nil {
			t.Errorf("%s rejected: %v", c.op, err)
		}
	}
	if Op(9).Check() == nil {
		t.Error("unknown operator accepted")
	}
	nan := []float64{1}
	ReduceFloat64(nan, []float64{math.NaN()}, Max)
	if !math.IsNaN(nan[0]) {
		t.Error("max with NaN is not NaN")
	}
	if PeerMessages(0, 4) != 0 || PeerMessages(5, 4) != 3 {
		t.Error("PeerMessages")
	}
	for k := CollectiveAlltoallv; k <= CollectiveBarrier; k++ {
		if k.String() == "" || k.String()[0] == 'c' {
			t.Errorf("collective %d has no name", k)
		}
	}
}

func TestStats(t *testing.T) {
	var s Stats
	s.Record("a", 10, 5, 1)
	s.Record("b", 1, 2, 3)
	s.Record("a", 1, 0, 0)
	if got := s.Phase("a"); got != (PhaseCounters{Calls: 2, BytesSent: 11, BytesRecv: 5, Messages: 1}) {
		t.Errorf("phase a: %+v", got)
	}
	if s.Total().BytesSent != 12 || !slices.Equal(s.Phases(), []string{"a", "b"}) || len(s.Snapshot()) != 2 {
		t.Errorf("total %+v phases %v", s.Total(), s.Phases())
	}
	if d := s.Total().Sub(PhaseCounters{Calls: 1}); d.Calls != 2 {
		t.Errorf("Sub: %+v", d)
	}
}
