package buildinfo

import (
	"runtime/debug"
	"testing"
)

// TestVersionOfEachBuild: a tagged release reports its version; go run,
// go build in a clone, go install ...@commit and -buildvcs=false report
// the next release with "-dev", and the revision where the build
// recorded one.
func TestVersionOfEachBuild(t *testing.T) {
	vcs := func(rev string, modified bool) []debug.BuildSetting {
		m := "false"
		if modified {
			m = "true"
		}
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: m}}
	}
	const rev = "87588b7abcdef0123456789abcdef0123456789a"
	for _, c := range []struct {
		name              string
		info              *debug.BuildInfo
		version, revision string
	}{
		{"no build information", nil, "0.1.0-dev", ""},
		{"go install @v0.1.0 (module proxy)", &debug.BuildInfo{Main: debug.Module{Version: "v0.1.0"}}, "0.1.0", ""},
		{"go install @v0.2.0-rc.1", &debug.BuildInfo{Main: debug.Module{Version: "v0.2.0-rc.1"}}, "0.2.0-rc.1", ""},
		{"go build in a checkout of the tag", &debug.BuildInfo{Main: debug.Module{Version: "v0.1.0"}, Settings: vcs(rev, false)}, "0.1.0", "87588b7abcde"},
		{"go build in a modified checkout of the tag", &debug.BuildInfo{Main: debug.Module{Version: "v0.1.0+dirty"}, Settings: vcs(rev, true)},
			"0.1.0-dev", "87588b7abcde+dirty"},
		{"go install @commit", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261128170830-87588b7abcde"}}, "0.1.0-dev", "87588b7abcde"},
		{"go install @commit after a tag", &debug.BuildInfo{Main: debug.Module{Version: "v0.1.1-0.20261128170830-87588b7abcde"}}, "0.1.0-dev", "87588b7abcde"},
		{"go install @commit after a pre-release", &debug.BuildInfo{Main: debug.Module{Version: "v0.2.0-rc.1.0.20261128170830-87588b7abcde"}},
			"0.1.0-dev", "87588b7abcde"},
		{"go build in a clone", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261128170830-87588b7abcde"}, Settings: vcs(rev, false)},
			"0.1.0-dev", "87588b7abcde"},
		{"go build in a modified clone", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261128170830-87588b7abcde+dirty"}, Settings: vcs(rev, true)},
			"0.1.0-dev", "87588b7abcde+dirty"},
		{"go run", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "0.1.0-dev", ""},
		{"-buildvcs=false", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "0.1.0-dev", ""},
	} {
		if got := Version("0.1.0", c.info); got != c.version {
			t.Errorf("%s: Version = %q, want %q", c.name, got, c.version)
		}
		if got := Revision(c.info); got != c.revision {
			t.Errorf("%s: Revision = %q, want %q", c.name, got, c.revision)
		}
	}
}
