package suite

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The loader accepts the registered evaluator types. Package evaluators registers the real
// ones, with their settings checks, but suite's own tests cannot import it: these stand in
// with the same names and check nothing.
func init() {
	for _, t := range []EvaluatorType{{Name: TypeLLMJudge}, {Name: TypeCodeJudge, Aliases: []string{"code"}},
		{Name: "rubric"}, {Name: "composite"}, {Name: "tool_trajectory"}, {Name: "field_accuracy"},
		{Name: "latency"}, {Name: "cost"}, {Name: "token_usage"}} {
		RegisterEvaluator(t)
	}
}

// writeTree creates files (slash paths → content) under a fresh repo root holding `.git`, and
// returns the root.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// loadTree writes files and loads the eval file at path (relative to the root, which is also
// the working directory).
func loadTree(t *testing.T, files map[string]string, path string) *Suite {
	t.Helper()
	root := writeTree(t, files)
	return Load(filepath.Join(root, filepath.FromSlash(path)), LoadOptions{Cwd: root})
}

// loadYAMLString loads one eval file named eval.yaml with the given content.
func loadYAMLString(t *testing.T, content string) *Suite {
	t.Helper()
	return loadTree(t, map[string]string{"eval.yaml": content}, "eval.yaml")
}

// onlyCase returns the single loaded case, failing on any error diagnostic.
func onlyCase(t *testing.T, s *Suite) *Case {
	t.Helper()
	if HasErrors(s.Diagnostics) {
		t.Fatalf("unexpected errors:\n%s", formatDiags(s.Diagnostics))
	}
	if len(s.Cases) != 1 {
		t.Fatalf("got %d cases, want 1", len(s.Cases))
	}
	return s.Cases[0]
}

// diagMessages returns the messages of diagnostics of the given severity.
func diagMessages(ds []Diagnostic, sev Severity) []string {
	var out []string
	for _, d := range ds {
		if d.Severity == sev {
			out = append(out, d.Message)
		}
	}
	return out
}

// requireDiag fails unless some diagnostic of severity sev contains every fragment.
func requireDiag(t *testing.T, ds []Diagnostic, sev Severity, fragments ...string) Diagnostic {
	t.Helper()
	for _, d := range ds {
		if d.Severity != sev {
			continue
		}
		ok := true
		for _, f := range fragments {
			if !strings.Contains(d.Message, f) {
				ok = false
				break
			}
		}
		if ok {
			return d
		}
	}
	t.Fatalf("no %s containing %q in:\n%s", sev, fragments, formatDiags(ds))
	return Diagnostic{}
}

// indent prefixes every line of a YAML snippet (for embedding in a case).
func indent(s, prefix string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = prefix + l
	}
	return strings.Join(lines, "\n") + "\n"
}
