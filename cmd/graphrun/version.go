package main

import (
	"fmt"
	"runtime"
	"strings"

	"github.com/spf13/cobra"

	"github.com/graphrun/graphrun/internal/buildinfo"
)

// releaseVersion is graphrun's release version. A packager may set it at
// link time: go build -ldflags "-X main.releaseVersion=1.2.3". It is never
// assigned at run time.
var releaseVersion = "0.1.0"

// version is the version graphrun reports (--version, the JSON of every
// run): the module's version when built by `go install ...@vX.Y.Z`, else
// releaseVersion. Computed once at start-up, never changed.
var version = buildinfo.Version(releaseVersion, buildinfo.Read())

// revision is the VCS revision graphrun was built from ("" when the build
// recorded none, as with -buildvcs=false), with "+dirty" when the work
// tree had changes.
var revision = buildinfo.Revision(buildinfo.Read())

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
		Use:     "version",
		Short:   "Print graphrun's version (as --version does)",
		Example: "  graphrun version\n  graphrun --version",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprint(cmd.OutOrStdout(), versionLine())
			return err
		},
	}
}
