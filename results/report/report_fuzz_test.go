package report

import (
	"bytes"
	"testing"
)

// FuzzReadRunFile feeds arbitrary bytes to the report's reader of run JSON
// files, and builds the charts of whatever it accepts (the charts of the
// runs compared too): bad input is an error naming the file, never a
// panic or an allocation sized by a number in the file.
func FuzzReadRunFile(f *testing.F) {
	// A small bfs run: the fuzzer minimises every new input, which takes
	// long from a large one.
	small := chartRun("packed", "auto", 1)
	small.Searches = small.Searches[:2]
	for i := range small.Searches {
		small.Searches[i].Levels = small.Searches[i].Levels[:2]
	}
	var bfs bytes.Buffer
	if err := small.WriteJSON(&bfs); err != nil {
		f.Fatal(err)
	}
	f.Add(bfs.Bytes())
	f.Add([]byte(pagerankJSON))
	f.Add([]byte(`{"command":"pagerank","graphrun_version":"0.2","num_ranks":2,"iterations":2,"layers":[],"l1_changes":[0.5,0],"iteration_times":[0.1,0.2],"tol":1e-10}`))
	f.Add([]byte(`{"SCALE":1,"NBFS":1,"num_ranks":1,"searches":[{"time":1,"nedge":1,"validate_time":1,"levels":[{"level":-5,"frontier":1}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		in, err := ReadRunFile("run.json", data)
		if err != nil {
			return
		}
		if _, err := in.Charts(); err != nil {
			return
		}
		if _, err := ComparisonCharts([]Input{in, in}); err != nil {
			t.Fatalf("comparison of an accepted run: %v", err)
		}
	})
}
