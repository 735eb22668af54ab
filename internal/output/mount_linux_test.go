package output

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// namespaceEnv, when set, is the folder the test runs in inside a private
// mount namespace (unshare -m), where it may bind-mount files.
const namespaceEnv = "GRAPHRUN_OUTPUT_TEST_NAMESPACE"

// TestBindMountedOutputRefused: an output path on which a file is
// bind-mounted (docker -v does that too) cannot be replaced by the final
// rename (EBUSY): Check refuses it before any work, as it refuses an
// output bind-mounted from one of the inputs (same device and inode). The
// test re-runs itself as root in a private mount namespace.
func TestBindMountedOutputRefused(t *testing.T) {
	dir := os.Getenv(namespaceEnv)
	if dir == "" {
		if os.Geteuid() != 0 {
			t.Skip("bind mounts need root")
		}
		unshare, err := exec.LookPath("unshare")
		if err != nil {
			t.Skip(err)
		}
		cmd := exec.Command(unshare, "-m", "--propagation", "private", os.Args[0], "-test.run=^TestBindMountedOutputRefused$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), namespaceEnv+"="+t.TempDir())
		out, err := cmd.CombinedOutput()
		if err != nil && strings.Contains(string(out), "unshare failed") {
			t.Skipf("no mount namespace here: %s", out)
		}
		if err != nil || !strings.Contains(string(out), "--- PASS: TestBindMountedOutputRefused") {
			t.Fatalf("in a private mount namespace: %v\n%s", err, out)
		}
		return
	}
	in, other := filepath.Join(dir, "g.txt"), filepath.Join(dir, "other.txt")
	for _, p := range []string{in, other} {
		if err := os.WriteFile(p, []byte("0 1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct{ from, name, want string }{
		{other, "bound.txt", "is a mount point"},
		{in, "input-bound.txt", "is the input file"},
	} {
		out := filepath.Join(dir, c.name)
		if err := os.WriteFile(out, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Mount(c.from, out, "", syscall.MS_BIND, ""); err != nil {
			t.Skipf("bind mount: %v", err)
		}
		defer syscall.Unmount(out, 0)
		s := NewSet(context.Background(), io.Discard)
		s.Input(in)
		f := s.File("out", out)
		err := s.Check()
		var oe *Error
		if !errors.As(err, &oe) || oe.Flag != "out" || !strings.Contains(err.Error(), c.want) {
			t.Errorf("--out %s bound from %s: %v, want a refusal saying %q", c.name, filepath.Base(c.from), err, c.want)
			if err == nil {
				if werr := f.WriteAll(func(w io.Writer) error { _, err := io.WriteString(w, "1 2\n"); return err }); werr != nil {
					t.Logf("and writing it after the work fails: %v", werr)
				}
			}
		}
	}
	if got := readString(t, in); got != "0 1\n" {
		t.Fatalf("the input changed: %q", got)
	}
}

// TestUnescapeMount: mountinfo writes a space in a mount point as \040.
func TestUnescapeMount(t *testing.T) {
	if got := unescapeMount(`/tmp/a\040b\134c`); got != `/tmp/a b\c` {
		t.Errorf("unescapeMount = %q", got)
	}
}
