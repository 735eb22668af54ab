package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestInstallDocs: the README says how to get a bare graphrun (go install)
// and completion, the LICENSE is the MIT License of the graphrun authors,
// and the Dockerfile the Kubernetes example's image comes from builds the
// graphrun command and runs it as the image's entry point.
func TestInstallDocs(t *testing.T) {
	read := func(name string) string {
		t.Helper()
		data := readFile(t, filepath.Join("..", "..", name))
		return string(data)
	}
	readme := read("README.md")
	for _, want := range []string{"go install ./cmd/graphrun", "graphrun completion bash", "docker build -t graphrun:latest .",
		"image: graphrun:latest", "[LICENSE](LICENSE)"} {
		if !strings.Contains(readme, want) {
			t.Errorf("README.md lacks %q", want)
		}
	}
	license := read("LICENSE")
	if !strings.HasPrefix(license, "MIT License\n") || !strings.Contains(license, "Copyright (c) 2026 the graphrun authors") {
		t.Errorf("LICENSE: %.80q", license)
	}
	docker := read("Dockerfile")
	for _, want := range []string{"go build -trimpath", "-o /out/graphrun ./cmd/graphrun", "/out/graphrun --version",
		"COPY --from=build /out/graphrun /graphrun", `ENTRYPOINT ["/graphrun"]`} {
		if !strings.Contains(docker, want) {
			t.Errorf("Dockerfile lacks %q", want)
		}
	}
}
