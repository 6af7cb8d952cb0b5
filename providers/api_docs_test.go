package providers

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agentv/action/internal/redact"
)

// TestProvidersREADMEExample loads the targets.yaml example of providers/README.md and builds every
// provider in it: the documented settings must be the real ones (no error, no unknown setting).
func TestProvidersREADMEExample(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	var example string
	for _, m := range regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllStringSubmatch(string(raw), -1) {
		if strings.HasPrefix(m[1], "targets:") {
			example = m[1]
		}
	}
	if example == "" {
		t.Fatal("README.md has no ```yaml block starting with targets:")
	}
	if !strings.Contains(string(raw), "models: read") {
		t.Error("README.md must show the `models: read` permission for GitHub Models")
	}
	path := filepath.Join(t.TempDir(), "targets.yaml")
	if err := os.WriteFile(path, []byte(example), 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"OPENAI_API_KEY": "sk-doc-1234", "GITHUB_TOKEN": "ghs_doc1234", "AZURE_OPENAI_RESOURCE": "contoso",
		"AZURE_OPENAI_API_KEY": "az-doc-1234", "ANTHROPIC_API_KEY": "ant-doc-1234", "GEMINI_API_KEY": "gem-doc-1234"}
	f := LoadTargets(path, func(n string) (string, bool) { v, ok := env[n]; return v, ok }, &redact.Redactor{})
	for _, d := range f.Diagnostics {
		t.Errorf("load: %v", d)
	}
	kinds := map[string]bool{}
	for _, tg := range f.Targets {
		p, warns, err := New(tg, Options{Env: []string{}})
		if err != nil {
			t.Errorf("target %s: %v", tg.Name, err)
			continue
		}
		for _, w := range warns {
			t.Errorf("target %s: %v", tg.Name, w)
		}
		kinds[p.Target().Kind] = true
	}
	for _, k := range []string{KindOpenAI, KindAzure, KindAnthropic, KindGemini, KindCodex, KindVSCode} {
		if !kinds[k] {
			t.Errorf("the example has no %s target", k)
		}
	}
}
