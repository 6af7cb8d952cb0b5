package targets

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentv/action/internal/golden"
	"github.com/agentv/action/internal/redact"
)

// TestLoadV5Targets reads an AgentV 5.x targets file: ids, config settings moved up (the
// target's own winning), {{ env.NAME }} resolved as 4.x's ${{ NAME }} is.
func TestLoadV5Targets(t *testing.T) {
	t.Parallel()
	env := mapEnv(map[string]string{"AZURE_ENDPOINT": "https://x.example", "AZURE_KEY": "sk-secret-azure",
		"AZURE_DEPLOYMENT": "gpt-4o", "AGENT_HOST": "agent.internal"})
	red := &redact.Redactor{}
	tf := Load("testdata/v5/good.yaml", env, red)
	if len(tf.Diagnostics) > 0 {
		t.Fatalf("unexpected diagnostics:\n%s", diagLines(tf.Diagnostics))
	}
	type summary struct {
		Name, Kind, Judge string
		Workers           int
		Batching, Env5    bool
	}
	var got []summary
	for _, tg := range tf.Targets {
		got = append(got, summary{tg.Name, tg.Kind, tg.JudgeTarget, tg.Workers, tg.ProviderBatching, tg.EnvSyntax5})
	}
	want := []summary{
		{"azure-base", KindAzure, "mock-judge", 0, false, true},
		{"mock-judge", KindMock, "", 0, true, true},
		{"agent", KindCLI, "", 2, false, true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("targets (-want +got):\n%s", diff)
	}
	az, err := tf.Find("azure-base")
	if err != nil {
		t.Fatal(err)
	}
	for key, wantV := range map[string]string{"endpoint": "https://x.example", "api_key": "sk-secret-azure", "model": "gpt-4o", "version": "2024-10-21"} {
		if v, ok, err := az.String(key); !ok || err != nil || v != wantV {
			t.Errorf("azure-base %s = %q, %v, %v; want %q", key, v, ok, err, wantV)
		}
	}
	if got := red.String("key sk-secret-azure"); strings.Contains(got, "sk-secret-azure") {
		t.Errorf("the key resolved from the environment is not masked: %q", got)
	}
	agent, _ := tf.Find("agent")
	if v, _, _ := agent.String("command"); v != "run-agent --url https://agent.internal/v1 {PROMPT}" {
		t.Errorf("agent command = %q", v)
	}

	// An unset variable is reported as the file wrote it.
	tf = Load("testdata/v5/good.yaml", noEnv, &redact.Redactor{})
	az, _ = tf.Find("azure-base")
	if _, _, err := az.String("api_key"); err == nil || !strings.Contains(err.Error(), "referenced as {{ env.AZURE_KEY }}") {
		t.Errorf("unset key error = %v", err)
	}
}

// TestLoadV5TargetsBad: each problem of a 5.x targets file is a positioned diagnostic
// (testdata/v5/*.out; -update rewrites them), and a target with an error is not usable.
func TestLoadV5TargetsBad(t *testing.T) {
	t.Parallel()
	for _, f := range []string{"testdata/v5/bad.yaml", "testdata/v5/mixed.yaml"} {
		t.Run(filepath.Base(f), func(t *testing.T) {
			t.Parallel()
			tf := Load(f, noEnv, &redact.Redactor{})
			golden.Check(t, strings.TrimSuffix(f, ".yaml")+".out", diagLines(tf.Diagnostics))
		})
	}
	tf := Load("testdata/v5/bad.yaml", noEnv, &redact.Redactor{})
	for _, name := range []string{"legacy-env", "removed", "testbed", "odd-env"} {
		if _, err := tf.Find(name); err == nil || !strings.Contains(err.Error(), "is invalid") {
			t.Errorf("Find(%q) = %v, want invalid", name, err)
		}
	}
}
