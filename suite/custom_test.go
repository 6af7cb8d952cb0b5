package suite

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestCustomAssertionTypes(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		".agentv/assertions/far.ts":               "",
		".agentv/assertions/both.js":              "",
		".agentv/graders/both.ts":                 "", // an assertions folder anywhere comes first
		".agentv/judges/old-judge.mjs":            "",
		".agentv/assertions/contains.ts":          "", // built-in types are not replaced
		"evals/.agentv/assertions/far.mjs":        "", // nearer: wins over the root's far.ts
		"evals/.agentv/assertions/ext.js":         "",
		"evals/.agentv/assertions/ext.ts":         "", // .ts before .js in one folder
		"evals/.agentv/assertions/dir.ts/x":       "", // a folder is not a script
		"evals/.agentv/graders/dir.mts":           "",
		"evals/.agentv/assertions/word-count.mts": "",
	}
	tests := []struct {
		assertion string
		script    string // relative to the root; "" for a built-in type
		name      string
		config    string
		err       string
	}{
		{assertion: "{type: far}", script: "evals/.agentv/assertions/far.mjs", name: "far"},
		{assertion: "{type: both}", script: ".agentv/assertions/both.js", name: "both"},
		{assertion: "{type: old-judge, name: mine}", script: ".agentv/judges/old-judge.mjs", name: "mine"},
		{assertion: "{type: ext}", script: "evals/.agentv/assertions/ext.ts", name: "ext"},
		{assertion: "{type: dir}", script: "evals/.agentv/graders/dir.mts", name: "dir"},
		{assertion: "{type: word_count}", script: "evals/.agentv/assertions/word-count.mts", name: "word-count"},
		{assertion: "{type: latency, threshold: 5}", name: "latency"},
		{assertion: "{type: far, weight: 2, max_words: 5, cwd: x, target: y, config: {a: 1}}", script: "evals/.agentv/assertions/far.mjs", name: "far",
			config: `{"max_words":5,"cwd":"x","target":"y","config":{"a":1}}`},
		{assertion: "{type: nope}", err: `evals/eval.yaml:5:16: unknown evaluator type "nope": not a built-in type, and no custom assertion script nope.ts (or .js, .mts, .mjs) in the .agentv/assertions, .agentv/graders or .agentv/judges folder of evals or of a folder above it`},
		{assertion: "{type: ../far}", err: `evals/eval.yaml:5:16: unknown evaluator type "../far": not a built-in type (case "a" not loaded)`},
	}
	for _, tt := range tests {
		t.Run(tt.assertion, func(t *testing.T) {
			t.Parallel()
			all := map[string]string{"evals/eval.yaml": "tests:\n  - id: a\n    input: hi\n    assertions:\n      - " + tt.assertion + "\n"}
			for k, v := range files {
				all[k] = v
			}
			root := writeTree(t, all)
			s := Load(filepath.Join(root, "evals/eval.yaml"), LoadOptions{Cwd: root})
			if tt.err != "" {
				if got := formatDiags(s.Diagnostics); !strings.Contains(got, tt.err) || len(s.Cases) != 0 {
					t.Errorf("want error %q, got %d cases and:\n%s", tt.err, len(s.Cases), got)
				}
				return
			}
			c := onlyCase(t, s)
			if len(c.Evaluators) != 1 {
				t.Fatalf("%d evaluators", len(c.Evaluators))
			}
			e := c.Evaluators[0]
			if tt.script == "" {
				if e.Type == TypeCodeJudge || e.Name != tt.name {
					t.Errorf("built-in type became %s %q", e.Type, e.Name)
				}
				return
			}
			want := filepath.Join(root, filepath.FromSlash(tt.script))
			if e.Type != TypeCodeJudge || len(e.Script) != 1 || e.Script[0] != want || e.Name != tt.name || e.Cwd != filepath.Join(root, "evals") {
				t.Errorf("got %s %q script %q cwd %q, want code judge %q running %s", e.Type, e.Name, e.Script, e.Cwd, tt.name, want)
			}
			if string(e.Config) != tt.config {
				t.Errorf("config %s, want %s", e.Config, tt.config)
			}
		})
	}
}

// Custom scripts are run, so the search for one stops at the repository root: a script in a
// folder above the checkout is never found, whatever the eval file names.
func TestCustomAssertionSearchStopsAtTheRepository(t *testing.T) {
	t.Parallel()
	root := writeTree(t, map[string]string{
		".agentv/assertions/above.ts":       "",
		".agentv/graders/above2.ts":         "",
		"repo/.git/HEAD":                    "",
		"repo/.agentv/assertions/inside.ts": "",
		"repo/evals/eval.yaml": "tests:\n  - id: a\n    input: hi\n    assertions:\n      - {type: above}\n" +
			"  - id: b\n    input: hi\n    assertions:\n      - {type: above2}\n" +
			"  - id: c\n    input: hi\n    assertions:\n      - {type: inside}\n",
	})
	repo := filepath.Join(root, "repo")
	s := Load(filepath.Join(repo, "evals/eval.yaml"), LoadOptions{Cwd: repo})
	if s.RepoRoot != repo {
		t.Fatalf("repo root %s, want %s", s.RepoRoot, repo)
	}
	got := formatDiags(s.Diagnostics)
	for _, typ := range []string{"above", "above2"} {
		if !strings.Contains(got, `unknown evaluator type "`+typ+`"`) {
			t.Errorf("type %s: want unknown, got:\n%s", typ, got)
		}
	}
	if len(s.Cases) != 1 || s.Cases[0].ID != "c" || s.Cases[0].Evaluators[0].Script[0] != filepath.Join(repo, ".agentv/assertions/inside.ts") {
		t.Errorf("want only case c, with the repository's script; got %d cases", len(s.Cases))
	}
}
