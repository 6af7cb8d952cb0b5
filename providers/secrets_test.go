package providers

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentv/action/internal/redact"
	"github.com/agentv/action/targets"
)

// TestLoadTargetsRegistersEveryReference: every value resolved from `${{ VAR }}`, in any
// target and any setting (nested, listed, non-secret keys, targets with errors), is a secret
// from the moment the file is loaded, before any provider is built.
func TestLoadTargetsRegistersEveryReference(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "targets.yaml")
	body := `targets:
  - name: agent
    provider: codex
    args: ["--profile", "${{ CODEX_PROFILE }}"]
  - name: unused
    provider: cli
    command_template: echo {PROMPT}
    healthcheck:
      type: http
      url: ${{ HEALTH_URL }}
  - name: broken
    provider: openai
    model: ${{ MODEL_NAME }}
    max_tokens: ${{ MAX_TOKENS }}
    stream: ${{ STREAM }}
    workers: ${{ WORKERS_SECRET }}
x-shared: &shared
  base_url: ${{ SHARED_BASE }}
`
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	env := mapEnv(map[string]string{
		"CODEX_PROFILE": "profile-secret-1", "HEALTH_URL": "http://127.0.0.1:9/health-secret",
		"MODEL_NAME": "model-secret-22", "WORKERS_SECRET": "sk-live-workers-9876", "SHARED_BASE": "http://shared-secret.invalid",
		"NOT_REFERENCED": "never-referenced", "MAX_TOKENS": "4096", "STREAM": "true",
	})
	red := &redact.Redactor{}
	tf := targets.Load(p, env, red)
	got := red.Secrets()
	for _, want := range []string{"profile-secret-1", "http://127.0.0.1:9/health-secret", "model-secret-22", "sk-live-workers-9876", "http://shared-secret.invalid"} {
		if !slices.Contains(got, want) {
			t.Errorf("%q not registered; registered: %q", want, got)
		}
	}
	for _, no := range []string{"never-referenced", "4096", "true"} {
		if slices.Contains(got, no) {
			t.Errorf("%q was registered (unreferenced, or a number or boolean, which would corrupt JSON)", no)
		}
	}
	// A reference in a non-secret field is still a secret: its validation error must not echo it.
	var msgs []string
	for _, d := range tf.Diagnostics {
		msgs = append(msgs, d.Message)
	}
	all := strings.Join(msgs, "\n")
	if !strings.Contains(all, "workers") {
		t.Fatalf("no diagnostic for workers: %q", all)
	}
	if strings.Contains(all, "sk-live-workers-9876") {
		t.Errorf("a diagnostic echoes the secret: %q", all)
	}
}

// TestCodexArgsAreSecrets: a codex `args` item resolved from the environment is masked.
func TestCodexArgsAreSecrets(t *testing.T) {
	t.Parallel()
	red := &redact.Redactor{}
	tg := &targets.Target{Name: "agent", Kind: targets.KindCodex, Redactor: red,
		Settings: map[string]*targets.Setting{"args": {Key: "args", Value: []any{"--key", "${{ CODEX_KEY }}"}}},
		Env:      mapEnv(map[string]string{"CODEX_KEY": "codex-arg-secret-42"})}
	args, _, err := tg.Strings("args")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(args, []string{"--key", "codex-arg-secret-42"}) {
		t.Fatalf("args = %q", args)
	}
	if got := red.String("ran codex --key codex-arg-secret-42"); got != "ran codex --key ***" {
		t.Errorf("codex arg not masked: %q", got)
	}
}

// TestSettingErrorsDoNotEchoResolvedValues: a `${{ VAR }}` in a field that wants a number
// reports the problem without the value.
func TestSettingErrorsDoNotEchoResolvedValues(t *testing.T) {
	t.Parallel()
	red := &redact.Redactor{}
	tg := &targets.Target{Name: "t", Redactor: red,
		Settings: map[string]*targets.Setting{"temperature": {Key: "temperature", Value: "${{ SEC }}"}},
		Env:      mapEnv(map[string]string{"SEC": "sk-live-not-a-number"})}
	_, _, err := tg.Float("temperature")
	if err == nil {
		t.Fatal("want an error")
	}
	if strings.Contains(err.Error(), "sk-live-not-a-number") {
		t.Errorf("error echoes the secret: %v", err)
	}
}
