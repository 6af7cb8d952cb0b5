package suite

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentv/action/internal/golden"
)

// formatDiags renders diagnostics one per line as `file:line:col: message [severity kind]`.
func formatDiags(ds []Diagnostic) string {
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

// normalize replaces machine-specific absolute paths so goldens work in any checkout.
func normalize(s, repoRoot string) string {
	return strings.ReplaceAll(s, repoRoot, "$REPO")
}

// evalFiles lists the eval files of a testdata directory (JSONL sidecars excluded).
func evalFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	for _, pat := range []string{"*.yaml", "*.yml", "*.jsonl"} {
		m, err := filepath.Glob(filepath.Join(dir, pat))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range m {
			if !skipFile(f) {
				out = append(out, f)
			}
		}
	}
	if len(out) == 0 {
		t.Fatalf("no eval files in %s", dir)
	}
	return out
}

// TestTestdata loads every file of testdata/bad and testdata/good: each file's diagnostics must
// match its sibling .out file; good files must load without errors and their cases must match
// the .cases.json golden.
func TestTestdata(t *testing.T) {
	t.Parallel()
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range []string{"bad", "good"} {
		for _, file := range evalFiles(t, filepath.Join("testdata", kind)) {
			t.Run(kind+"/"+filepath.Base(file), func(t *testing.T) {
				t.Parallel()
				s := Load(file, LoadOptions{Cwd: cwd})
				base := strings.TrimSuffix(file, filepath.Ext(file))
				golden.Check(t, base+".out", normalize(formatDiags(s.Diagnostics), s.RepoRoot))
				switch kind {
				case "bad":
					if !HasErrors(s.Diagnostics) && len(s.Diagnostics) == 0 {
						t.Errorf("a bad file produced no diagnostic")
					}
				case "good":
					if HasErrors(s.Diagnostics) {
						t.Errorf("good file has errors:\n%s", formatDiags(s.Diagnostics))
					}
					golden.Check(t, base+".cases.json", normalize(dumpSuite(t, s), s.RepoRoot))
				}
			})
		}
	}
}

// dumpSuite renders a loaded suite as indented JSON for golden comparison.
func dumpSuite(t *testing.T, s *Suite) string {
	t.Helper()
	type out struct {
		Path, Format, Dataset, Description, Target string
		GuidelinePatterns                          []string
		Evaluators                                 []*EvaluatorSpec
		Cases                                      []Case
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
