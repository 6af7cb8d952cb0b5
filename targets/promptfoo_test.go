package targets

import (
	"strings"
	"testing"

	"github.com/agentv/action/internal/redact"
	"github.com/agentv/action/suite"
)

// TestFromDefs: Inline turns each promptfoo provider id becomes a target of our kind with its model, its
// base URL (config first, then the variable promptfoo reads) and its key as a reference.
func TestFromDefs(t *testing.T) {
	t.Parallel()
	env := map[string]string{"OPENAI_BASE_URL": "http://127.0.0.1:1/v1", "OPENAI_API_KEY": "sk-x",
		"ANTHROPIC_API_KEY": "ak", "GOOGLE_API_KEY": "gk"}
	lookup := func(n string) (string, bool) { v, ok := env[n]; return v, ok }
	for _, tc := range []struct {
		name, provider, config string
		kind                   string
		want                   map[string]string // setting → resolved value
		err                    string
	}{
		{"openai chat", "openai:chat:m", "", KindOpenAI, map[string]string{"model": "m", "base_url": "http://127.0.0.1:1/v1", "api_key": "sk-x"}, ""},
		{"openai config base", "openai:m", `{"apiBaseUrl":"http://h/v1","temperature":0.5}`, KindOpenAI, map[string]string{"model": "m", "base_url": "http://h/v1", "temperature": "0.5"}, ""},
		{"anthropic", "anthropic:messages:c", "", KindAnthropic, map[string]string{"model": "c", "api_key": "ak"}, ""},
		{"azure", "azure:chat:d", `{"apiHost":"res.openai.azure.com"}`, KindAzure, map[string]string{"deployment": "d", "endpoint": "res.openai.azure.com"}, ""},
		{"gemini", "google:gemini-x", "", KindGemini, map[string]string{"model": "gemini-x", "api_key": "gk"}, ""},
		{"exec", "exec:python3 p.py", "", KindCLI, map[string]string{"command_template": `python3 p.py {PROMPT} '{"config":{},"id":"exec:python3 p.py"}' '{}'`}, ""},
		{"unknown", "http", "", "", nil, "not supported"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := &suite.Suite{Path: "promptfooconfig.yaml", Abs: "/x/promptfooconfig.yaml", Dir: "/x",
				TargetDefs: []suite.TargetDef{{Name: "t", Provider: tc.provider, Config: []byte(tc.config)}}}
			f := Inline(s, lookup, &redact.Redactor{})
			tg, err := f.Find("t")
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tg.Kind != tc.kind {
				t.Errorf("kind %q, want %q", tg.Kind, tc.kind)
			}
			for k, want := range tc.want {
				got, ok, err := tg.String(k)
				if !ok || err != nil || got != want {
					t.Errorf("%s = %q (%v, %v), want %q", k, got, ok, err, want)
				}
			}
		})
	}
}
