package launch

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/graphrun/graphrun/comm"
)

// TestJoinAndRunFailsBeforeRunning: a join that fails returns its error
// without running fn, after logging which job it asked, for which input.
func TestJoinAndRunFailsBeforeRunning(t *testing.T) {
	var log []string
	logf := func(format string, args ...any) { log = append(log, fmt.Sprintf(format, args...)) }
	plan := Plan{Job: Job{Coordinator: "10.0.0.1:7000"}} // not a TCP job: Join cannot configure it
	err := plan.JoinAndRun(context.Background(), "joiner", "g.el", "tag", logf, func(context.Context, comm.Elastic) error {
		t.Fatal("ran without joining")
		return nil
	})
	if err == nil || !strings.Contains(err.Error(), "not a TCP job") {
		t.Fatalf("JoinAndRun: %v, want the configuration's error", err)
	}
	if len(log) != 1 || log[0] != "joiner: asking the job at 10.0.0.1:7000 to take this process in (g.el)" {
		t.Fatalf("log: %q", log)
	}
}
