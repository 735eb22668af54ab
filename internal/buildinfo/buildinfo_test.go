package buildinfo

import (
	"runtime/debug"
	"testing"
)

// TestVersionFromBuildInfo: a module version from `go install ...@v1.2.3`
// wins over the release constant, "(devel)" does not; the revision is
// shortened and marked dirty.
func TestVersionFromBuildInfo(t *testing.T) {
	info := &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}
	if got := Version("0.1.0", info); got != "1.2.3" {
		t.Errorf("Version = %q, want 1.2.3", got)
	}
	info.Main.Version = "(devel)"
	if got := Version("0.1.0", info); got != "0.1.0" {
		t.Errorf("Version (devel) = %q, want 0.1.0", got)
	}
	if got := Version("0.1.0", nil); got != "0.1.0" {
		t.Errorf("Version(nil) = %q", got)
	}
	info.Settings = []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.modified", Value: "true"}}
	if got := Revision(info); got != "0123456789ab+dirty" {
		t.Errorf("Revision = %q", got)
	}
	if got := Revision(&debug.BuildInfo{}); got != "" {
		t.Errorf("Revision without VCS = %q", got)
	}
}
