package main

import (
	"fmt"
	"runtime"
	"strings"

	"github.com/spf13/cobra"

	"github.com/graphrun/graphrun/internal/buildinfo"
)

// releaseVersion is graphrun's next release: the version a build from
// its tag reports; every other build reports it with "-dev"
// (buildinfo.Version).
const releaseVersion = "0.1.0"

// version is the version graphrun reports (--version, the JSON of every
// run): the module's version when built from a release tag (go install
// ...@vX.Y.Z), else releaseVersion with "-dev". Computed once at start-up,
// never changed.
var version = buildinfo.Version(releaseVersion, buildinfo.Read())

// revision is the revision graphrun was built from (buildinfo.Revision:
// the VCS revision, "+dirty" when the work tree had changes, or the commit
// of a pseudo-version; "" when the build recorded none, as with go run or
// -buildvcs=false).
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
