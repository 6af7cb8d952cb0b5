package migrate

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentv/action/internal/golden"
)

// TestGolden migrates each testdata/<case>/in.yaml and compares the file (want.yaml) and the
// report (want.stderr; for a file migrate refuses, the error). Run with -update to rewrite.
func TestGolden(t *testing.T) {
	t.Parallel()
	ins, err := filepath.Glob(filepath.Join("testdata", "*", "in.yaml"))
	if err != nil || len(ins) == 0 {
		t.Fatalf("no golden cases: %v", err)
	}
	for _, in := range ins {
		dir := filepath.Dir(in)
		name := filepath.Base(dir)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			src, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(name, "in.yaml")
			res, err := File(path, src)
			if strings.HasPrefix(name, "bad-") {
				if err == nil {
					t.Fatalf("migrated a bad file:\n%s", res.Out)
				}
				var me *Error
				if !errors.As(err, &me) || me.File != path {
					t.Errorf("error %v does not name the file", err)
				}
				golden.Check(t, filepath.Join(dir, "want.stderr"), err.Error()+"\n")
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join(dir, "want.yaml"), res.Out)
			golden.Check(t, filepath.Join(dir, "want.stderr"), res.Report(path))

			// Migrating the result again changes nothing: it is 5.x already.
			again, err := File(path, res.Out)
			if err != nil {
				t.Fatalf("the migrated file does not read again: %v", err)
			}
			if again.Changed || !bytes.Equal(again.Out, res.Out) {
				t.Errorf("a second migration changed the file again:\n%s\nnotes: %v", again.Out, again.Notes)
			}
			for _, n := range again.Notes {
				if !n.Manual {
					t.Errorf("a second migration reports a change: line %d: %s", n.Line, n.Text)
				}
			}
		})
	}
}

// TestUnchanged5x: a 5.x file comes back byte for byte and the report says so.
func TestUnchanged5x(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile(filepath.Join("testdata", "v5", "in.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := File("v5.yaml", src)
	if err != nil {
		t.Fatal(err)
	}
	if res.Changed || !bytes.Equal(res.Out, src) || res.Dialect != "5" || len(res.Notes) != 0 {
		t.Errorf("changed=%v dialect=%q notes=%v", res.Changed, res.Dialect, res.Notes)
	}
	if got := res.Report("v5.yaml"); !strings.Contains(got, "nothing to change") {
		t.Errorf("report %q does not say nothing changed", got)
	}
}

func TestJSONLRefused(t *testing.T) {
	t.Parallel()
	_, err := File("cases.jsonl", []byte(`{"id": "a", "input": "hi"}`))
	if err == nil || !strings.Contains(err.Error(), "cases.jsonl") || !strings.Contains(err.Error(), "YAML") {
		t.Errorf("got %v, want a refusal naming the file", err)
	}
}

func TestHint(t *testing.T) {
	t.Parallel()
	tests := []struct {
		path, dialect, want string
	}{
		{"evals/a.yaml", "2.5", "evals/a.yaml: written for AgentV 2.5, which this action still runs; to move it to AgentV 5.x, migrate with: agentv migrate evals/a.yaml"},
		{"evals/b.eval.yaml", "4", "evals/b.eval.yaml: written for AgentV 4.x, which this action still runs; to move it to AgentV 5.x, migrate with: agentv migrate evals/b.eval.yaml"},
		{"my evals/it's.yaml", "4", `my evals/it's.yaml: written for AgentV 4.x, which this action still runs; to move it to AgentV 5.x, migrate with: agentv migrate 'my evals/it'\''s.yaml'`},
		{"evals/c.yaml", "5", ""},
		{"evals/skills.json", "skills", ""},
	}
	for _, tt := range tests {
		if got := Hint(tt.path, tt.dialect); got != tt.want {
			t.Errorf("Hint(%q, %q) = %q, want %q", tt.path, tt.dialect, got, tt.want)
		}
	}
}

// TestNotesKeepValuesOut: a note names what it rewrote, never the rest of a value, which
// may be a secret written next to a ${{ NAME }} reference.
func TestNotesKeepValuesOut(t *testing.T) {
	t.Parallel()
	src := "targets:\n  - name: a\n    provider: openai\n    api_key: \"sk-live-1234567890 ${{ OPENAI_KEY }}\"\n"
	res, err := File("targets.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	report := res.Report("targets.yaml")
	if strings.Contains(report, "sk-live") {
		t.Errorf("the report shows the value:\n%s", report)
	}
	if !strings.Contains(report, "targets.yaml:4: ${{ OPENAI_KEY }} → {{ env.OPENAI_KEY }}") {
		t.Errorf("the report does not name the reference:\n%s", report)
	}
	if !strings.Contains(string(res.Out), `api_key: "sk-live-1234567890 {{ env.OPENAI_KEY }}"`) {
		t.Errorf("the value was not rewritten:\n%s", res.Out)
	}
}

// TestAnchorsRewrittenOnce: a grader list shared through an anchor is rewritten once, and
// the alias keeps pointing at it.
func TestAnchorsRewrittenOnce(t *testing.T) {
	t.Parallel()
	src := `tests:
  - id: a
    criteria: x
    input: hi
    assertions: &checks
      - type: tool-trajectory
        mode: any_order
        minimums: {search: 1}
  - id: b
    criteria: y
    input: hi
    assertions: *checks
`
	res, err := File("s.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	out := string(res.Out)
	if n := strings.Count(out, "trajectory:tool-used"); n != 1 {
		t.Errorf("trajectory:tool-used written %d times, want once (the anchor):\n%s", n, out)
	}
	if !strings.Contains(out, "assert: *checks") {
		t.Errorf("the alias is gone:\n%s", out)
	}
}

// TestRecordedAgentV5Validation holds the golden files to what AgentV 5.3.1-next.1's validate
// said of them (testdata/agentv5-validate.txt): a case it accepted has no note for a human,
// a case it rejected has one. Cases not in the record are not checked.
func TestRecordedAgentV5Validation(t *testing.T) {
	t.Parallel()
	rec, err := os.ReadFile(filepath.Join("testdata", "agentv5-validate.txt"))
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for line := range strings.SplitSeq(string(rec), "\n") {
		valid := strings.HasPrefix(line, "✓ ")
		if !valid && !strings.HasPrefix(line, "✗ ") {
			continue
		}
		file := strings.TrimSpace(line[len("✓ "):])
		name, ok := strings.CutSuffix(file, ".eval.yaml")
		if file == ".agentv/targets.yaml" {
			name, ok = "targets", true
		}
		if !ok {
			t.Errorf("unexpected file in the record: %q", file)
			continue
		}
		stderr, err := os.ReadFile(filepath.Join("testdata", name, "want.stderr"))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		checked++
		if human := strings.Contains(string(stderr), "needs a human"); human == valid {
			t.Errorf("%s: AgentV 5 said valid=%v, but its notes needing a human: %v", name, valid, human)
		}
	}
	if checked < 10 {
		t.Errorf("only %d cases in the record", checked)
	}
}
