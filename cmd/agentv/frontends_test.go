package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agentv/action/suite"
)

// TestFrontEndsRegistered fails when the command stops importing suite/frontends: without it
// an AgentV 5.x file or a promptfoo config would be read as an older dialect and refused.
func TestFrontEndsRegistered(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, want := range map[string]string{
		"v5.eval.yaml":         suite.Dialect5,
		"promptfooconfig.yaml": suite.DialectPromptfoo,
	} {
		path := filepath.Join(dir, name)
		src := "prompts: ['{{ input }}']\ntests:\n  - vars: {input: hi}\n    assert: [{type: contains, value: hi}]\n"
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		if s := suite.Load(path, suite.LoadOptions{Cwd: dir}); s.Dialect != want {
			t.Errorf("%s read as dialect %q, want %q: %v", name, s.Dialect, want, s.Diagnostics)
		}
	}
}
