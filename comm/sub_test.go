package comm_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/inproc"
)

// gridSubs returns rank's row and column groups of an r×c grid (row-major).
func gridSubs(c comm.Comm, r, cols int) (row, col *comm.Sub, err error) {
	i, j := c.Rank()/cols, c.Rank()%cols
	var rm, cm []int
	for jj := range cols {
		rm = append(rm, i*cols+jj)
	}
	for ii := range r {
		cm = append(cm, ii*cols+j)
	}
	if row, err = comm.NewSub(c, rm); err != nil {
		return nil, nil, err
	}
	col, err = comm.NewSub(c, cm)
	return row, col, err
}

func TestSubCollectives(t *testing.T) {
	for _, shape := range [][2]int{{1, 1}, {2, 3}, {3, 2}, {4, 4}, {5, 1}, {1, 5}} {
		r, cols := shape[0], shape[1]
		p := r * cols
		err := inproc.Run(context.Background(), p, func(ctx context.Context, c comm.Comm) error {
			row, col, err := gridSubs(c, r, cols)
			if err != nil {
				return err
			}
			me := c.Rank()
			if row.Rank() != me%cols || row.Size() != cols || col.Rank() != me/cols || col.Size() != r {
				return fmt.Errorf("rank %d: row %d/%d col %d/%d", me, row.Rank(), row.Size(), col.Rank(), col.Size())
			}
			for _, check := range []func(ctx context.Context, c comm.Comm, row, col *comm.Sub) error{
				checkSubAlltoallv, checkSubAllgatherv, checkSubAllreduce, checkSubBcast,
			} {
				if err := check(ctx, c, row, col); err != nil {
					return err
				}
			}
			return row.Barrier(ctx, "t.barrier")
		})
		if err != nil {
			t.Fatalf("grid %dx%d: %v", r, cols, err)
		}
	}
}

// checkSubAlltoallv runs Alltoallv along the row, twice, reusing the
// receive buffers.
func checkSubAlltoallv(ctx context.Context, c comm.Comm, row, _ *comm.Sub) error {
	me, cols := c.Rank(), row.Size()
	var err error
	var recv [][]byte
	for round := range 2 {
		send := make([][]byte, cols)
		for k := range send {
			send[k] = []byte(fmt.Sprintf("%d>%d/%d", me, row.Members()[k], round))
		}
		before := c.Stats().Total()
		recv, err = row.Alltoallv(ctx, "t.a2a", send, recv)
		if err != nil {
			return err
		}
		d := c.Stats().Total().Sub(before)
		if d.Messages != int64(cols-1) {
			return fmt.Errorf("rank %d: Alltoallv in a row of %d counted %d messages", me, cols, d.Messages)
		}
		for k, b := range recv {
			if want := fmt.Sprintf("%d>%d/%d", row.Members()[k], me, round); string(b) != want {
				return fmt.Errorf("rank %d: from %d got %q, want %q", me, k, b, want)
			}
		}
	}
	return nil
}

// checkSubAllgatherv runs Allgatherv along the column.
func checkSubAllgatherv(ctx context.Context, c comm.Comm, _, col *comm.Sub) error {
	me, r := c.Rank(), col.Size()
	mine := []byte{byte(me)}
	before := c.Stats().Total()
	all, err := col.Allgatherv(ctx, "t.ag", mine, nil)
	if err != nil {
		return err
	}
	if d := c.Stats().Total().Sub(before); d.BytesSent != int64(r-1) || d.Messages != int64(r-1) {
		return fmt.Errorf("rank %d: Allgatherv counted %+v", me, d)
	}
	for k, b := range all {
		if !slices.Equal(b, []byte{byte(col.Members()[k])}) {
			return fmt.Errorf("rank %d: Allgatherv slot %d = %v", me, k, b)
		}
	}
	return nil
}

// checkSubAllreduce checks that a row then a column allreduce is a world
// allreduce, and that sums follow the group order.
func checkSubAllreduce(ctx context.Context, c comm.Comm, row, col *comm.Sub) error {
	me, cols, p := c.Rank(), row.Size(), c.Size()
	v := []int64{int64(me), 1, int64(-me)}
	if err := row.AllreduceInt64(ctx, "t.ar", v, comm.Sum); err != nil {
		return err
	}
	if err := col.AllreduceInt64(ctx, "t.ar", v, comm.Sum); err != nil {
		return err
	}
	if v[0] != int64(p*(p-1)/2) || v[1] != int64(p) || v[2] != -int64(p*(p-1)/2) {
		return fmt.Errorf("rank %d: sum %v", me, v)
	}
	m := []int64{int64(me)}
	if err := row.AllreduceInt64(ctx, "t.max", m, comm.Max); err != nil {
		return err
	}
	if m[0] != int64((me/cols)*cols+cols-1) {
		return fmt.Errorf("rank %d: row max %d", me, m[0])
	}
	if err := col.AllreduceInt64(ctx, "t.min", m, comm.Min); err != nil {
		return err
	}
	if m[0] != int64(cols-1) {
		return fmt.Errorf("rank %d: min of row maxima %d", me, m[0])
	}
	f := []float64{0.1 * float64(me)}
	if err := row.AllreduceFloat64(ctx, "t.f", f, comm.Sum); err != nil {
		return err
	}
	var want float64
	for _, k := range row.Members() {
		if k == row.Members()[0] {
			want = 0.1 * float64(k)
		} else {
			want += 0.1 * float64(k)
		}
	}
	if f[0] != want {
		return fmt.Errorf("rank %d: float sum %v, want %v (group order)", me, f[0], want)
	}
	return nil
}

// checkSubBcast broadcasts from the last rank of the column.
func checkSubBcast(ctx context.Context, c comm.Comm, _, col *comm.Sub) error {
	me, r := c.Rank(), col.Size()
	got, err := col.Bcast(ctx, "t.b", r-1, []byte(fmt.Sprintf("from %d", me)))
	if err != nil {
		return err
	}
	if want := fmt.Sprintf("from %d", col.Members()[r-1]); string(got) != want {
		return fmt.Errorf("rank %d: Bcast %q, want %q", me, got, want)
	}
	return nil
}

func TestSubRejects(t *testing.T) {
	err := inproc.Run(context.Background(), 3, func(ctx context.Context, c comm.Comm) error {
		if _, err := comm.NewSub(c, []int{0, 0}); err == nil {
			return fmt.Errorf("duplicate member accepted")
		}
		if _, err := comm.NewSub(c, []int{3}); err == nil {
			return fmt.Errorf("member out of range accepted")
		}
		if c.Rank() != 0 {
			if _, err := comm.NewSub(c, []int{0}); err == nil {
				return fmt.Errorf("group without the caller accepted")
			}
		}
		s, err := comm.NewSub(c, []int{0, 1, 2})
		if err != nil {
			return err
		}
		if _, err := s.Alltoallv(ctx, "x", make([][]byte, 2), nil); err == nil {
			return fmt.Errorf("short send accepted")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Groups that do not partition the ranks: rank 0 thinks it is alone,
	// rank 1 sends it data. The receiver reports it.
	err = inproc.Run(context.Background(), 2, func(ctx context.Context, c comm.Comm) error {
		members := []int{0, 1}
		if c.Rank() == 0 {
			members = []int{0}
		}
		s, err := comm.NewSub(c, members)
		if err != nil {
			return err
		}
		_, err = s.Allgatherv(ctx, "x", []byte("hi"), nil)
		return err
	})
	if err == nil {
		t.Fatal("data from outside the group accepted")
	}
}
