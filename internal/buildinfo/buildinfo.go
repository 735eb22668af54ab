// Package buildinfo reads what the Go toolchain recorded about the graphrun
// binary: the module's release version and the VCS revision it was built
// from, which every run's JSON and the command's version output report. It
// implements no paper.
//
// The rule, one for every way of building: a binary built from a tagged
// release of the module (go install ...@v0.1.0, or go build in a checkout
// of the tag) reports that release; every other build (go run, go build
// in a clone, go install ...@commit, -buildvcs=false) reports the source's
// next release with "-dev" appended, and the revision when the build
// recorded it (the VCS revision, or the commit a pseudo-version names).
package buildinfo

import (
	"regexp"
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

// pseudoVersion matches a Go pseudo-version (v0.0.0-20261128170830-1903ae3abcde,
// v0.1.1-0.20261128170830-1903ae3abcde, v0.2.0-pre.0.20261128170830-1903ae3abcde),
// capturing its commit.
var pseudoVersion = regexp.MustCompile(`^v\d+\.\d+\.\d+-(?:.*\.)?\d{14}-([0-9a-f]{12})$`)

// releaseVersion matches a release tag of the module: vX.Y.Z, optionally
// with a pre-release ("v1.2.3-rc.1").
var releaseVersion = regexp.MustCompile(`^v\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$`)

// Version is the version a binary reports: the main module's version from
// info without the "v" when it is a release tag (not a pseudo-version,
// not a modified work tree), else next, the source's next release, with
// "-dev".
func Version(next string, info *debug.BuildInfo) string {
	if info != nil {
		v := info.Main.Version
		if releaseVersion.MatchString(v) && !pseudoVersion.MatchString(v) {
			return strings.TrimPrefix(v, "v")
		}
	}
	return next + "-dev"
}

// Revision is the revision the binary was built from, 12 hex digits: the
// VCS revision recorded in info, with "+dirty" for a modified work tree,
// or else the commit of a pseudo-version (go install ...@commit). It is ""
// when the build recorded neither (go run, -buildvcs=false, a tagged
// release installed from the module proxy).
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
		if m := pseudoVersion.FindStringSubmatch(strings.TrimSuffix(info.Main.Version, "+dirty")); m != nil {
			return m[1]
		}
		return ""
	}
	rev = rev[:min(12, len(rev))]
	if dirty {
		rev += "+dirty"
	}
	return rev
}
