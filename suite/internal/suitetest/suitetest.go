// Package suitetest helps the tests of suite's front-end packages (agentv5, promptfoo): it
// loads files written into a temporary tree and renders what loaded for golden files, as
// suite's own tests do (their helpers are in package suite's test files, which other
// packages cannot reach).
//
// Importing it registers stand-in evaluator types, the same ones suite's tests register: a
// front-end's tests then see the loader as suite's tests do, without package evaluators
// (whose real settings checks would change the diagnostics). A test binary that imports
// package evaluators must not import this one.
package suitetest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentv/action/suite"
)

func init() {
	for _, t := range []suite.EvaluatorType{{Name: suite.TypeLLMJudge}, {Name: suite.TypeCodeJudge, Aliases: []string{"code"}},
		{Name: "rubric"}, {Name: "composite"}, {Name: "tool_trajectory"}, {Name: "field_accuracy"},
		{Name: "latency"}, {Name: "cost"}, {Name: "token_usage"}} {
		suite.RegisterEvaluator(t)
	}
}

// WriteTree creates files (slash paths → content) under a fresh repo root holding `.git`, and
// returns the root.
func WriteTree(t *testing.T, files map[string]string) string {
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

// LoadTree writes files and loads the eval file at path (relative to the root, which is also
// the working directory).
func LoadTree(t *testing.T, files map[string]string, path string) *suite.Suite {
	t.Helper()
	root := WriteTree(t, files)
	return suite.Load(filepath.Join(root, filepath.FromSlash(path)), suite.LoadOptions{Cwd: root})
}

// LoadYAMLString loads one eval file named eval.yaml with the given content.
func LoadYAMLString(t *testing.T, content string) *suite.Suite {
	t.Helper()
	return LoadTree(t, map[string]string{"eval.yaml": content}, "eval.yaml")
}

// OnlyCase returns the single loaded case, failing on any error diagnostic.
func OnlyCase(t *testing.T, s *suite.Suite) *suite.Case {
	t.Helper()
	if suite.HasErrors(s.Diagnostics) {
		t.Fatalf("unexpected errors:\n%s", FormatDiags(s.Diagnostics))
	}
	if len(s.Cases) != 1 {
		t.Fatalf("got %d cases, want 1", len(s.Cases))
	}
	return s.Cases[0]
}

// RequireDiag fails unless some diagnostic of severity sev contains every fragment.
func RequireDiag(t *testing.T, ds []suite.Diagnostic, sev suite.Severity, fragments ...string) suite.Diagnostic {
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
	t.Fatalf("no %s containing %q in:\n%s", sev, fragments, FormatDiags(ds))
	return suite.Diagnostic{}
}

// FormatDiags renders diagnostics one per line as `file:line:col: message [severity kind]`.
func FormatDiags(ds []suite.Diagnostic) string {
	var b strings.Builder
	for _, d := range ds {
		b.WriteString(d.Error())
		b.WriteString(" [" + d.Severity.String() + " " + d.Kind)
		if d.CaseID != "" {
			b.WriteString(" case=" + d.CaseID)
		}
		b.WriteString("]\n")
	}
	return b.String()
}

// Normalize replaces machine-specific absolute paths so goldens work in any checkout.
func Normalize(s, repoRoot string) string {
	return strings.ReplaceAll(s, repoRoot, "$REPO")
}

// DumpSuite renders a loaded suite as indented JSON for golden comparison.
func DumpSuite(t *testing.T, s *suite.Suite) string {
	t.Helper()
	type out struct {
		Path, Format, Dataset, Description, Target string
		GuidelinePatterns                          []string
		Evaluators                                 []*suite.EvaluatorSpec
		Cases                                      []suite.Case
	}
	o := out{Path: s.Path, Format: s.Format, Dataset: s.Dataset, Description: s.Description, Target: s.Target,
		GuidelinePatterns: s.GuidelinePatterns, Evaluators: s.Evaluators}
	for _, c := range s.Cases {
		cc := *c
		cc.Suite = nil
		o.Cases = append(o.Cases, cc)
	}
	b, err := json.MarshalIndent(o, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}

// CheckInvariants holds for any input: a suite is returned, loaded cases are complete and
// unique, and every diagnostic names a file.
func CheckInvariants(t *testing.T, s *suite.Suite) {
	t.Helper()
	if s == nil {
		t.Fatal("Load returned nil")
	}
	ids := map[string]bool{}
	for _, c := range s.Cases {
		if c.ID == "" || len(c.Input) == 0 || c.Suite != s {
			t.Fatalf("incomplete case %+v", c)
		}
		if ids[c.ID] {
			t.Fatalf("duplicate id %q loaded", c.ID)
		}
		ids[c.ID] = true
		for _, e := range c.Evaluators {
			if e == nil || e.Name == "" || e.Type == "" {
				t.Fatalf("incomplete evaluator %+v", e)
			}
		}
	}
	for _, d := range s.Diagnostics {
		if d.File == "" || d.Message == "" {
			t.Fatalf("diagnostic without file or message: %+v", d)
		}
	}
}
