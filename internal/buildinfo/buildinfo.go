// Package buildinfo reads what the Go toolchain recorded about the graphrun
// binary: the module's release version and the VCS revision it was built
// from, which every run's JSON and the command's version output report. It
// implements no paper.
package buildinfo

import (
	"runtime/debug"
	"strings"
)

// Read returns the binary's build information, or nil when it has none.
func Read() *debug.BuildInfo {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return nil
	}
	return info
}

// Version is the main module's version from info if it names a release
// (v1.2.3, a pseudo-version: `go install ...@vX.Y.Z`), without the "v",
// else release.
func Version(release string, info *debug.BuildInfo) string {
	if info != nil {
		if v := info.Main.Version; v != "" && v != "(devel)" {
			return strings.TrimPrefix(v, "v")
		}
	}
	return release
}

// Revision is the VCS revision recorded in info, shortened to 12 hex
// digits, with "+dirty" for a modified work tree ("" when the build
// recorded none, as with -buildvcs=false).
func Revision(info *debug.BuildInfo) string {
	if info == nil {
		return ""
	}
	var rev string
	var dirty bool
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return ""
	}
	rev = rev[:min(12, len(rev))]
	if dirty {
		rev += "+dirty"
	}
	return rev
}
