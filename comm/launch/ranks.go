package launch

// The ceiling of in-process ranks, checked where a command takes a rank
// count (--ranks), and the goroutines each rank runs (--threads).

import (
	"runtime"

	"github.com/graphrun/graphrun/comm/inproc"
	"github.com/graphrun/graphrun/internal/fielderr"
)

// CheckRanks checks an in-process rank count: from 1 to inproc.MaxRanks.
// Its error is a fielderr.Error of "ranks".
func CheckRanks(ranks int) error {
	switch {
	case ranks < 1:
		return fielderr.New("ranks", "%d is less than 1", ranks)
	case ranks > inproc.MaxRanks:
		return fielderr.New("ranks", "%d is above the ceiling of %d in-process ranks (they share one process's memory, which grows "+
			"with the square of the ranks); run more ranks as processes: --procs N, or under mpirun or srun", ranks, inproc.MaxRanks)
	}
	return nil
}

// Threads is the goroutines per rank: threads when given (at least 1; a
// fielderr.Error of "threads" otherwise), else the CPUs shared among the
// localRanks ranks on this machine, at least 1.
func Threads(threads int, given bool, localRanks int) (int, error) {
	switch {
	case !given:
		return max(1, runtime.GOMAXPROCS(0)/localRanks), nil
	case threads < 1:
		return 0, fielderr.New("threads", "%d is less than 1", threads)
	}
	return threads, nil
}
