package launch

// The ceiling of in-process ranks, checked wherever a configuration takes a
// rank count (Config.Ranks, a benchmark's rank counts), and the goroutines
// each rank runs (a configuration's Threads).

import (
	"runtime"

	"github.com/graphrun/graphrun/comm/inproc"
	"github.com/graphrun/graphrun/internal/fielderr"
)

// CheckRanks checks an in-process rank count: from 1 to inproc.MaxRanks.
// Its error is a fielderr.Error of the field Ranks; above the ceiling it
// says to run the ranks as processes (Procs N).
func CheckRanks(ranks int) error {
	switch {
	case ranks < 1:
		return fielderr.New("Ranks", "%d is less than 1", ranks)
	case ranks > inproc.MaxRanks:
		return fielderr.New("Ranks", "%d is above the ceiling of %d in-process ranks (they share one process's memory, which grows "+
			"with the square of the ranks); run more ranks as processes: Procs N, or under mpirun or srun", ranks, inproc.MaxRanks)
	}
	return nil
}

// MaxThreads is the most worker threads a rank may be given: per-thread
// buffers are sized by the count, checked before they are made.
const MaxThreads = 4096

// Threads is the goroutines per rank: threads when set (at least 1; a
// fielderr.Error of the field Threads otherwise), else the CPUs shared
// among the localRanks ranks on this machine, at least 1.
func Threads(threads int, set bool, localRanks int) (int, error) {
	switch {
	case !set:
		return max(1, runtime.GOMAXPROCS(0)/localRanks), nil
	case threads < 1:
		return 0, fielderr.New("Threads", "%d is less than 1", threads)
	case threads > MaxThreads:
		// Every rank sizes per-thread buffers by it.
		return 0, fielderr.New("Threads", "%d is more than %d", threads, MaxThreads)
	}
	return threads, nil
}
