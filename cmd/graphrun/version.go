package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// releaseVersion is graphrun's release version. A packager may set it at
// link time: go build -ldflags "-X main.releaseVersion=1.2.3". It is never
// assigned at run time.
var releaseVersion = "0.1.0"

// version is the version graphrun reports (--version, the JSON of every
// run): the module's version when built by `go install ...@vX.Y.Z`, else
// releaseVersion. Computed once at start-up, never changed.
var version = versionOf(releaseVersion, readBuildInfo())

// revision is the VCS revision graphrun was built from ("" when the build
// recorded none, as with -buildvcs=false), with "+dirty" when the work
// tree had changes.
var revision = revisionOf(readBuildInfo())

func readBuildInfo() *debug.BuildInfo {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return nil
	}
	return info
}

// versionOf is the main module's version from info if it names a release
// (v1.2.3, a pseudo-version), else release.
func versionOf(release string, info *debug.BuildInfo) string {
	if info != nil {
		if v := info.Main.Version; v != "" && v != "(devel)" {
			return strings.TrimPrefix(v, "v")
		}
	}
	return release
}

// revisionOf is the VCS revision recorded in info, shortened to 12 hex
// digits, with "+dirty" for a modified work tree.
func revisionOf(info *debug.BuildInfo) string {
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

// versionLine is what `graphrun --version` and `graphrun version` print.
func versionLine() string {
	detail := []string{runtime.Version(), runtime.GOOS + "/" + runtime.GOARCH}
	if revision != "" {
		detail = append([]string{"revision " + revision}, detail...)
	}
	return fmt.Sprintf("graphrun %s (%s)\n", version, strings.Join(detail, ", "))
}

func newVersionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print graphrun's version (as --version does)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprint(cmd.OutOrStdout(), versionLine())
			return err
		},
	}
}
