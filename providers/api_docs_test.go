package providers

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agentv/action/internal/redact"
	"github.com/agentv/action/targets"
)

// TestProvidersREADMEExample loads every targets.yaml example of providers/README.md and builds
// every provider in them: the documented settings must be the real ones (no error, no unknown
// setting), and the examples together show every provider.
func TestProvidersREADMEExample(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	var examples []string
	for _, m := range regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllStringSubmatch(string(raw), -1) {
		if strings.HasPrefix(m[1], "targets:") {
			examples = append(examples, m[1])
		}
	}
	if len(examples) == 0 {
		t.Fatal("README.md has no ```yaml block starting with targets:")
	}
	if !strings.Contains(string(raw), "models: read") {
		t.Error("README.md must show the `models: read` permission for GitHub Models")
	}
	env := map[string]string{"OPENAI_API_KEY": "sk-doc-1234", "GITHUB_TOKEN": "ghs_doc1234", "AZURE_OPENAI_RESOURCE": "contoso",
		"AZURE_OPENAI_API_KEY": "az-doc-1234", "ANTHROPIC_API_KEY": "ant-doc-1234", "GEMINI_API_KEY": "gem-doc-1234"}
	kinds := map[string]bool{}
	for i, example := range examples {
		path := filepath.Join(t.TempDir(), "targets.yaml")
		if err := os.WriteFile(path, []byte(example), 0o644); err != nil {
			t.Fatal(err)
		}
		f := targets.Load(path, func(n string) (string, bool) { v, ok := env[n]; return v, ok }, &redact.Redactor{})
		for _, d := range f.Diagnostics {
			t.Errorf("example %d: load: %v", i+1, d)
		}
		for _, tg := range f.Targets {
			p, warns, err := New(tg, Options{Env: []string{}})
			if err != nil {
				t.Errorf("example %d: target %s: %v", i+1, tg.Name, err)
				continue
			}
			for _, w := range warns {
				t.Errorf("example %d: target %s: %v", i+1, tg.Name, w)
			}
			kinds[p.Target().Kind] = true
		}
	}
	for _, k := range []string{targets.KindOpenAI, targets.KindAzure, targets.KindAnthropic, targets.KindGemini, targets.KindCodex, targets.KindClaude, targets.KindVSCode, targets.KindCLI, targets.KindMock} {
		if !kinds[k] {
			t.Errorf("the example has no %s target", k)
		}
	}
}

// TestProvidersREADMEDocumentsSettings checks that providers/README.md names every setting of
// the cli and mock providers, every command placeholder, and the settings every provider
// shares.
func TestProvidersREADMEDocumentsSettings(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	want := append([]string{"judge_target", "workers", "provider_batching", "price",
		"response", "delay_ms", "delay_min_ms", "delay_max_ms", "{path}", "{basename}"}, targets.CLIKnownKeys...)
	for _, p := range targets.CLIPlaceholders {
		want = append(want, "{"+p+"}")
	}
	for _, w := range want {
		if !strings.Contains(doc, "`"+w+"`") {
			t.Errorf("providers/README.md does not document `%s`", w)
		}
	}
	for _, section := range []string{"## The `cli` provider", "## The `mock` provider", "healthcheck", "type: http", "type: command"} {
		if !strings.Contains(doc, section) {
			t.Errorf("providers/README.md lacks %q", section)
		}
	}
}
