package e2e_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"
)

// TestInstallDocs checks that the README says how to get the agentv command, that the release
// workflow attaches a binary for every platform it names.
func TestInstallDocs(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"go build -o agentv ./cmd/agentv", "releases/download/", "_linux_amd64.tar.gz", "SHA256SUMS"} {
		if !strings.Contains(string(readme), want) {
			t.Errorf("README.md does not say %q", want)
		}
	}
	raw, err := os.ReadFile(filepath.Join(root, ".github", "workflows", "release.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		Jobs map[string]struct {
			Strategy struct {
				Matrix struct {
					GOOS   []string `yaml:"goos"`
					GOARCH []string `yaml:"goarch"`
				} `yaml:"matrix"`
			} `yaml:"strategy"`
			Steps []struct {
				Run string `yaml:"run"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(raw, &wf); err != nil {
		t.Fatal(err)
	}
	m := wf.Jobs["binaries"].Strategy.Matrix
	if strings.Join(m.GOOS, ",") != "linux,darwin,windows" || strings.Join(m.GOARCH, ",") != "amd64,arm64" {
		t.Errorf("release binaries matrix = %v × %v, want linux, darwin, windows × amd64, arm64", m.GOOS, m.GOARCH)
	}
	uploads := false
	for _, s := range wf.Jobs["release"].Steps {
		uploads = uploads || strings.Contains(s.Run, "gh release upload") && strings.Contains(s.Run, "gh release create")
	}
	if !uploads {
		t.Error("the release job does not attach the binaries to the GitHub release")
	}
	// That each of those platforms builds is checked by .ci/run (a cross-compile takes
	// minutes on a cold cache, too long for the README's go test).
}

// TestSDKRuntimeDocs checks that sdk/js/README.md's runtime rules cover code judges given as a
// path, as the code runs them.
func TestSDKRuntimeDocs(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join(repoRoot(t), "sdk", "js", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	for _, want := range []string{"of a code judge given as a path (`script: judges/tone.ts`", "| `.ts`, `.mts` | `bun run`", "`agentv validate` reports a judge that cannot run"} {
		if !strings.Contains(doc, want) {
			t.Errorf("sdk/js/README.md does not say %q", want)
		}
	}
}
