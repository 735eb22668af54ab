package profile

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/graphrun/graphrun/internal/output"
)

// TestProfiles: both profiles are written gzipped when the command
// succeeds, nothing is written after bad input, and a nil Profiles (a
// command that never started) finishes without error.
func TestProfiles(t *testing.T) {
	dir := t.TempDir()
	cpu, mem := filepath.Join(dir, "cpu.prof"), filepath.Join(dir, "mem.prof")
	outs := output.NewSet(context.Background(), io.Discard)
	p, err := Start(outs, outs.File("cpu", cpu), outs.File("mem", mem))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Finish(nil, false); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{cpu, mem} {
		data, err := os.ReadFile(path)
		if err != nil || len(data) < 2 || data[0] != 0x1f || data[1] != 0x8b {
			t.Fatalf("%s: not a gzipped profile (%v)", path, err)
		}
	}
	bad := filepath.Join(dir, "bad.prof")
	outs = output.NewSet(context.Background(), io.Discard)
	p, err = Start(outs, outs.File("cpu", bad), outs.File("mem", ""))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Finish(errors.New("bad flag"), true); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(bad); !os.IsNotExist(err) {
		t.Fatalf("profile written after bad input: %v", err)
	}
	if err := (*Profiles)(nil).Finish(nil, false); err != nil {
		t.Fatal(err)
	}
}
