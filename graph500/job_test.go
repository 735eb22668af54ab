package graph500

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/inproc"
	"github.com/graphrun/graphrun/gen/kronecker"
)

// TestRunJob: a job of processes (here a Runner of in-process ranks
// standing for them) gives the same report as the in-process run, on a
// Kronecker graph and on a file, and a bad root is the input's fault.
func TestRunJob(t *testing.T) {
	ctx := context.Background()
	runner := func(p int) Runner {
		return func(ctx context.Context, fn func(context.Context, comm.Comm) error) error {
			return inproc.Run(ctx, p, fn)
		}
	}
	cfg := Config{Graph: kronecker.DefaultParams(8), Ranks: 1, Threads: 1, NumRoots: 4, Root: -1, Validate: true}
	want, err := RunJob(ctx, cfg, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := RunJob(ctx, cfg, 3, runner(3))
	if err != nil {
		t.Fatal(err)
	}
	if got.NumRanks != 3 || !got.Validated() || len(got.Searches) != len(want.Searches) || got.Searches[0].NEdge != want.Searches[0].NEdge {
		t.Fatalf("job of 3: %d ranks, %d searches, validated %v", got.NumRanks, len(got.Searches), got.Validated())
	}
	path := filepath.Join(t.TempDir(), "g.txt")
	if err := os.WriteFile(path, []byte("1 2\n2 3\n3 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fcfg := fileConfig(t, path, 2, -1)
	run, err := RunFileJob(ctx, fcfg, 0, runner(fcfg.Ranks))
	if err != nil || run == nil || !run.Validated() {
		t.Fatalf("file job: %v", err)
	}
	fcfg = fileConfig(t, path, 2, 5)
	if _, err := RunFileJob(ctx, fcfg, 2, runner(2)); !IsInputError(err) {
		t.Fatalf("root 5: %v is not the input's fault", err)
	}
	if _, err := RunFileJob(ctx, fileConfig(t, filepath.Join(t.TempDir(), "missing.txt"), 1, -1), 1, runner(1)); !IsInputError(err) {
		t.Fatalf("missing file: %v is not the input's fault", err)
	}
}
