package pagerank

// The text forms of a finished run's Report: every vertex's score
// (JobConfig.Gather) and the summary a run prints (Kylix §VII's PageRank;
// REFERENCES.md).

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"time"

	"github.com/graphrun/graphrun/results"
)

// WriteScores writes every gathered vertex (Report.All) as "id<TAB>score"
// lines, the score in the shortest form that reads back exactly.
func (rep *Report) WriteScores(w io.Writer) error {
	buf := make([]byte, 0, 64<<10)
	for _, v := range rep.All {
		buf = strconv.AppendInt(buf, v.ID, 10)
		buf = append(buf, '\t')
		buf = strconv.AppendFloat(buf, v.Score, 'g', -1, 64)
		buf = append(buf, '\n')
		if len(buf) > 60<<10 {
			if _, err := w.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
	}
	_, err := w.Write(buf)
	return err
}

// WriteSummary writes the run's text summary: the input and the job, the
// top vertices, the iterations, the final L1 change, the total rank and
// the times of the set-up and of an iteration.
func (rep *Report) WriteSummary(w io.Writer) {
	sweeps := ""
	if rep.Method == results.PageRankGaussSeidel {
		sweeps = ", Gauss-Seidel sweeps"
	}
	fmt.Fprintf(w, "PageRank of %s: %d vertices, %d edges, %s, %s, %s partition%s\n",
		rep.Input, rep.Vertices, rep.Edges, results.RankCount(rep.NumRanks), results.AllreduceLabel(rep.Allreduce, rep.NumRanks), rep.Partition, sweeps)
	if len(rep.Top) > 0 {
		fmt.Fprintf(w, "%6s\t%12s\t%s\n", "#", "vertex", "score")
		for i, v := range rep.Top {
			fmt.Fprintf(w, "%6d\t%12d\t%.12e\n", i+1, v.ID, v.Score)
		}
	}
	fmt.Fprintf(w, "iterations: %d\n", rep.Iterations)
	fmt.Fprintf(w, "final L1 change: %.6e\n", rep.Residual)
	fmt.Fprintf(w, "total rank: %.15f\n", rep.TotalRank)
	fmt.Fprintf(w, "time of set-up: %s (allreduce configuration %s)\n",
		secondsDuration(rep.Setup.Total), secondsDuration(rep.Setup.Configuration))
	fmt.Fprintf(w, "time per iteration: compute %s, communication %s (fastest %s, median %s)\n",
		secondsDuration(rep.TimePerIteration.Compute), secondsDuration(rep.TimePerIteration.Communication),
		secondsDuration(rep.IterationTime.Min), secondsDuration(rep.IterationTime.Median))
}

// PeakMemoryLine is the summary's line about memory: the job's peak, the
// sum of its processes' peaks, per edge read (per arc, an edge or its
// reverse, for an undirected run), with several processes the largest
// one's, and for one unweighted rank the memory model's estimate
// (EstimateMemory).
func (rep *Report) PeakMemoryLine() string {
	line := rep.peakMemoryLine()
	if rep.NumRanks == 1 && rep.Processes <= 1 && !rep.Weighted {
		if est, err := EstimateMemory(MemoryConfig{Edges: rep.InputEdges, Vertices: rep.Vertices, Undirected: rep.Undirected, Ranks: 1}); err == nil {
			line += fmt.Sprintf("; the memory model %.1f MB", float64(est)/1e6)
		}
	}
	return line
}

// peakMemoryLine is PeakMemoryLine without the model.
func (rep *Report) peakMemoryLine() string {
	peak, largest := rep.PeakMemoryBytes, ""
	if rep.JobPeakMemoryBytes > 0 && rep.Processes > 1 {
		peak = rep.JobPeakMemoryBytes
		largest = fmt.Sprintf("; the largest process %.1f MB", float64(rep.PeakMemoryBytes)/1e6)
	}
	size := fmt.Sprintf("peak memory: %.1f MB", float64(peak)/1e6)
	if rep.Processes > 1 && largest != "" {
		size += fmt.Sprintf(", the sum over the job's %d processes", rep.Processes)
	}
	switch {
	case rep.InputEdges == 0:
		return size + largest
	case rep.Undirected:
		arcs := 2 * rep.InputEdges
		return fmt.Sprintf("%s (%.1f B per arc: %d edges read and their reverses)%s", size, float64(peak)/float64(arcs), rep.InputEdges, largest)
	}
	return fmt.Sprintf("%s (%.1f B per edge read, %d edges)%s", size, float64(peak)/float64(rep.InputEdges), rep.InputEdges, largest)
}

// secondsDuration renders seconds as a rounded duration.
func secondsDuration(s float64) time.Duration {
	if math.IsNaN(s) || s < 0 {
		return 0
	}
	return time.Duration(s * float64(time.Second)).Round(time.Microsecond)
}
