package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// repoFile reads a file of the repository by its path from the root.
func repoFile(t *testing.T, name string) string {
	t.Helper()
	return string(readFile(t, filepath.Join("..", "..", name)))
}

// TestInstallDocs: the README says how to get a bare graphrun (go install),
// docs/running.md how to get completion and the Kubernetes example's image,
// the LICENSE is the MIT License of the graphrun authors, and the Dockerfile
// that image comes from builds the graphrun command and runs it as the
// image's entry point.
func TestInstallDocs(t *testing.T) {
	wants := map[string][]string{
		"README.md":       {"go install ./cmd/graphrun", "go test ./...", "[LICENSE](LICENSE)"},
		"docs/running.md": {"graphrun completion bash", "docker build -t graphrun:latest .", "image: graphrun:latest"},
	}
	for name, list := range wants {
		text := repoFile(t, name)
		for _, want := range list {
			if !strings.Contains(text, want) {
				t.Errorf("%s lacks %q", name, want)
			}
		}
	}
	license := repoFile(t, "LICENSE")
	if !strings.HasPrefix(license, "MIT License\n") || !strings.Contains(license, "Copyright (c) 2026 the graphrun authors") {
		t.Errorf("LICENSE: %.80q", license)
	}
	docker := repoFile(t, "Dockerfile")
	for _, want := range []string{"go build -trimpath", "-o /out/graphrun ./cmd/graphrun", "/out/graphrun --version",
		"COPY --from=build /out/graphrun /graphrun", `ENTRYPOINT ["/graphrun"]`} {
		if !strings.Contains(docker, want) {
			t.Errorf("Dockerfile lacks %q", want)
		}
	}
}

// markdownLink is a relative link of a markdown document: [text](target),
// target without a scheme or an anchor-only form.
var markdownLink = regexp.MustCompile(`\]\(([^)#:]+)(#[^)]*)?\)`)

// TestDocumentsShortAndLinked: the landing page and the documents stay
// documents (README ≤ 200 lines, the others ≤ 400), and every relative link
// of theirs points at a file or folder of the repository.
func TestDocumentsShortAndLinked(t *testing.T) {
	limits := map[string]int{"README.md": 200, "BENCHMARKS.md": 400, "REFERENCES.md": 400,
		"docs/design.md": 400, "docs/running.md": 400, "docs/formats.md": 400}
	for name, limit := range limits {
		text := repoFile(t, name)
		if n := strings.Count(text, "\n"); n > limit {
			t.Errorf("%s: %d lines, more than %d", name, n, limit)
		}
		for _, m := range markdownLink.FindAllStringSubmatch(text, -1) {
			target := filepath.Join("..", "..", filepath.Dir(name), m[1])
			if _, err := os.Stat(target); err != nil {
				t.Errorf("%s links to %s: %v", name, m[1], err)
			}
		}
	}
}
