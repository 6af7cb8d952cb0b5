package e2e_test

import (
	"strings"
	"testing"
)

func TestVersionAndUsage(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	dir := t.TempDir()
	if res := agentv(t, dir, nil, "--version"); res.code != 0 || !strings.HasPrefix(res.stdout, "agentv ") {
		t.Errorf("--version: exit %d %q", res.code, res.stdout)
	}
	if res := agentv(t, dir, nil); res.code != 2 || !strings.Contains(res.stderr, "Usage:") {
		t.Errorf("no args: exit %d %q", res.code, res.stderr)
	}
	if res := agentv(t, dir, nil, "frobnicate"); res.code != 2 || !strings.Contains(res.stderr, `unknown command "frobnicate"`) {
		t.Errorf("unknown command: exit %d %q", res.code, res.stderr)
	}
	if res := agentv(t, dir, nil, "eval", "x.yaml", "--timeout", "soon"); res.code != 2 || !strings.Contains(res.stderr, "--timeout") {
		t.Errorf("bad flag: exit %d %q", res.code, res.stderr)
	}
}
