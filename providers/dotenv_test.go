package providers

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agentv/action/targets"
)

// TestDotenvFeedsTargets: a `${{ VAR }}` in targets.yaml reads the eval file's .env.
func TestDotenvFeedsTargets(t *testing.T) {
	t.Parallel()
	repo := t.TempDir()
	if err := os.WriteFile(filepath.Join(repo, ".env"), []byte("export WORKERS=3\nAGENT_CMD='echo {PROMPT}'\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(repo, "targets.yaml")
	body := "targets:\n  - name: a\n    provider: cli\n    workers: ${{ WORKERS }}\n    command_template: ${{ AGENT_CMD }}\n"
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	tf := targets.LoadWithEnv(p, nil, repo, repo, nil)
	tg, err := tf.Find("a")
	if err != nil || tg.Workers != 3 {
		t.Fatalf("target %+v err %v diags %v", tg, err, tf.Diagnostics)
	}
	prov, _, err := New(tg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := prov.Invoke(t.Context(), &Request{Question: "from .env"})
	if err != nil || resp.Text != "from .env" {
		t.Errorf("resp %+v err %v", resp, err)
	}
}
