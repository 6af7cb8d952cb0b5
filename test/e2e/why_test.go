package e2e_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// whyFiles fail three cases on a judge's verdict: a 4.x free-form llm-grader whose failed
// assertion carries evidence (with markup and mentions in it), a 4.x rubric checklist whose
// failed check carries reasoning, and a 2.5 llm_judge whose miss shares its reasoning.
var whyFiles = map[string]string{
	".agentv/targets.yaml": `targets:
  - name: default
    provider: mock
    response: Roses are red
    grader_target: judge
  - name: judge
    provider: mock
    response: '{"score": 0.5, "assertions": [{"text": "Is a poem", "passed": true, "evidence": "it rhymes"}, {"text": "Mentions tests", "passed": false, "evidence": "the poem never mentions tests <b>@alice</b> | #12"}]}'
  - name: judge-check
    provider: mock
    response: '{"checks": [{"id": "c1", "satisfied": true, "reasoning": "ok"}, {"id": "c2", "satisfied": false, "reasoning": "nothing about CI"}], "overall_reasoning": "half"}'
  - name: judge25
    provider: mock
    response: '{"score": 0.4, "hits": ["rhymes"], "misses": ["Mentions tests"], "reasoning": "The poem is about roses only."}'
`,
	"evals/s.eval.yaml": `name: s
tests:
  - id: freeform
    criteria: A poem about tests
    input: Write a poem
  - id: checklist
    criteria: A poem about tests
    input: Write a poem
    assertions:
      - type: rubrics
        target: judge-check
        criteria:
          - {id: c1, outcome: Is a poem}
          - {id: c2, outcome: Mentions CI}
`,
	"evals/old.yaml": `evalcases:
  - id: judge25
    expected_outcome: A poem about tests
    input: Write a poem
    evaluators:
      - name: j
        type: llm_judge
        target: judge25
`,
}

// TestWhyShowsJudgeEvidence checks that where a failed criterion comes with the judge's
// reason, every surface's Why shows both (the criterion alone reads like praise), the
// reason escaped as model text.
func TestWhyShowsJudgeEvidence(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	dir := t.TempDir()
	writeFiles(t, dir, whyFiles)
	res := agentv(t, dir, nil, "eval", "evals/s.eval.yaml", "evals/old.yaml")
	if res.code != 1 || len(res.records) != 3 {
		t.Fatalf("exit %d with %d records, want 1 and 3:\n%s", res.code, len(res.records), res.stderr)
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(res.outDir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	summary, comment, junit := read("summary.md"), read("comment.md"), read("junit.xml")
	checks := []struct{ surface, got, want string }{
		{"console", progress(res.stderr, "s/freeform"), "✖ Mentions tests — the poem never mentions tests <b>@alice</b> | #12"},
		{"console", progress(res.stderr, "s/checklist"), "✖ [c2] Mentions CI — nothing about CI"},
		{"console", progress(res.stderr, "old/judge25"), "✖ Mentions tests — The poem is about roses only."},
		{"summary", summary, "| ❌ | freeform | 0.500 | ✖ Mentions tests — the poem never mentions tests &lt;b&gt;@\u200dalice&lt;/b&gt; &#124; #\u200d12 |"},
		{"summary", summary, "| ❌ | checklist | 0.500 | ✖ &#91;c2&#93; Mentions CI — nothing about CI |"},
		{"summary", summary, "| ❌ | judge25 | 0.400 | ✖ Mentions tests — The poem is about roses only. |"},
		{"comment", comment, "| ❌ | freeform | 0.500 | ✖ Mentions tests — the poem never mentions tests &lt;b&gt;@\u200dalice&lt;/b&gt; &#124; #\u200d12 |"},
		{"junit", junit, `<failure message="score 0.500 below case threshold 0.800; misses: Mentions tests — the poem never mentions tests &lt;b&gt;@alice&lt;/b&gt; | #12" type="below-threshold">`},
		{"junit", junit, `<failure message="score 0.500 below case threshold 0.800; misses: [c2] Mentions CI — nothing about CI" type="below-threshold">`},
		{"junit", junit, `<failure message="score 0.400 below case threshold 0.800; misses: Mentions tests — The poem is about roses only." type="below-threshold">`},
	}
	for _, c := range checks {
		if !strings.Contains(c.got, c.want) {
			t.Errorf("%s lacks %q:\n%s", c.surface, c.want, c.got)
		}
	}
	// The record keeps the 4.x verdict's criteria with their evidence, as 4.x's grading.json does.
	var rec struct {
		ID    string `json:"eval_id"`
		Evals []struct {
			Assertions []struct {
				Text     string `json:"text"`
				Passed   bool   `json:"passed"`
				Evidence string `json:"evidence"`
			} `json:"assertions"`
		} `json:"evaluator_results"`
	}
	for line := range strings.Lines(read("results.jsonl")) {
		if err := json.Unmarshal([]byte(line), &rec); err == nil && rec.ID == "freeform" {
			break
		}
	}
	if len(rec.Evals) != 1 || len(rec.Evals[0].Assertions) != 2 || rec.Evals[0].Assertions[1].Passed ||
		rec.Evals[0].Assertions[1].Evidence != "the poem never mentions tests <b>@alice</b> | #12" {
		t.Errorf("the freeform record's evaluator results hold %+v", rec.Evals)
	}
}

// progress is what the console's progress line for a case says after its duration.
func progress(stderr, label string) string {
	for line := range strings.Lines(stderr) {
		if _, rest, ok := strings.Cut(line, " "+label+" ("); ok {
			if _, why, ok := strings.Cut(rest, "): "); ok {
				return strings.TrimSuffix(why, "\n")
			}
		}
	}
	return ""
}

// TestWhyKeepsTheEndOfAReason checks that a long reason is cut in its middle on every
// surface, so the reply that did not parse and the file that was not found stay readable.
func TestWhyKeepsTheEndOfAReason(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	requireTools(t, "python3")
	const missing = "/data/expected_answers_for_the_poem.json"
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		".agentv/targets.yaml": `targets:
  - name: default
    provider: mock
    response: Roses are red
    grader_target: judge
  - name: judge
    provider: mock
    response: Looks fine to me, score high
`,
		"evals/graders/check.py": "import sys\nsys.stderr.write('Traceback (most recent call last):\\n  File \"check.py\", line 3, in <module>\\nFileNotFoundError: [Errno 2] No such file or directory: \"/work/" +
			strings.Repeat("a-long-folder-name/", 8) + missing[1:] + "\"\\n')\nsys.exit(2)\n",
		"evals/s.eval.yaml": `name: s
tests:
  - id: reply
    criteria: A poem about tests
    input: Write a poem
  - id: path
    input: Write a poem
    assertions:
      - type: code-grader
        command: [python3, graders/check.py]
`,
	})
	res := agentv(t, dir, nil, "eval", "evals/s.eval.yaml")
	if res.code != 3 || len(res.records) != 2 {
		t.Fatalf("exit %d with %d records, want 3 and 2:\n%s", res.code, len(res.records), res.stderr)
	}
	summary, err := os.ReadFile(filepath.Join(res.outDir, "summary.md"))
	if err != nil {
		t.Fatal(err)
	}
	junit, err := os.ReadFile(filepath.Join(res.outDir, "junit.xml"))
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{}
	for line := range strings.Lines(string(summary)) {
		for _, id := range []string{"reply", "path"} {
			if strings.HasPrefix(line, "| 💥 | "+id+" |") {
				rows[id] = line
			}
		}
	}
	for _, c := range []struct{ surface, got, want string }{
		{"summary row", rows["reply"], "reply: Looks fine to me, score high |"},
		{"summary row", rows["path"], `expected_answers_for_the_poem.json" |`},
		{"console", progress(res.stderr, "s/reply"), "; reply: Looks fine to me, score high"},
		{"console", progress(res.stderr, "s/path"), missing + `"`},
		{"junit", string(junit), `; reply: Looks fine to me, score high" type="error">`},
		{"junit", string(junit), missing + `&#34;" type="error">`},
	} {
		if !strings.Contains(c.got, c.want) {
			t.Errorf("%s lacks the reason's end %q:\n%s", c.surface, c.want, c.got)
		}
	}
	for _, row := range rows {
		if strings.Contains(row, "more characters") {
			t.Errorf("a reason is cut at its end: %s", row)
		}
	}
}

// TestMissingInputFileShowsOnTheCase checks that a missing input_files entry stays a warning
// (AgentV 4.42.4 warns and runs the test too) but is shown on the case itself: on its row in
// the summary and the comment, in its JUnit testcase, and by validate with file and line.
func TestMissingInputFileShowsOnTheCase(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		".agentv/targets.yaml": `targets:
  - name: default
    provider: mock
    response: Roses are red
    grader_target: judge
  - name: judge
    provider: mock
    response: '{"score": 0.9, "assertions": [{"text": "Is a poem", "passed": true}]}'
`,
		"evals/s.eval.yaml": `name: s
tests:
  - id: with-file
    criteria: A poem about the attached notes
    input: Write a poem
    input_files: [notes/missing-notes.md]
  - id: plain
    criteria: A poem
    input: Write a poem
`,
		// A suite-level file is the input of every test: each row shows its warning, which
		// is printed once.
		"evals/shared.eval.yaml": `name: shared
input_files: [shared-notes.md]
tests:
  - id: first
    criteria: A poem
    input: Write a poem
  - id: second
    criteria: A poem
    input: Write a poem
`,
	})
	const warning = `file "notes/missing-notes.md" not found (tried: evals/notes/missing-notes.md, notes/missing-notes.md)`
	res := agentv(t, dir, nil, "eval", "evals/s.eval.yaml", "evals/shared.eval.yaml")
	if res.code != 0 || len(res.records) != 4 {
		t.Fatalf("exit %d with %d records, want 0 (a warning does not fail the run) and 4:\n%s", res.code, len(res.records), res.stderr)
	}
	const shared = `file "shared-notes.md" not found (tried: evals/shared-notes.md, shared-notes.md)`
	if n := strings.Count(res.stderr, shared); n != 1 {
		t.Errorf("the shared file's warning is printed %d times, want once:\n%s", n, res.stderr)
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(res.outDir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	row := "| ✅ | with-file ⚠️ <sub>" + warning + "</sub> | 0.900 |"
	for _, name := range []string{"summary.md", "comment.md"} {
		if got := read(name); !strings.Contains(got, row) || strings.Contains(got, "| ✅ | plain ⚠️") {
			t.Errorf("%s: the case's row does not carry its warning %q:\n%s", name, row, got)
		}
		for _, id := range []string{"first", "second"} {
			if got := read(name); !strings.Contains(got, "| ✅ | "+id+" ⚠️ <sub>"+shared+"</sub> |") {
				t.Errorf("%s: the row of %s does not carry the shared file's warning:\n%s", name, id, got)
			}
		}
	}
	junit := read("junit.xml")
	_, tc, _ := strings.Cut(junit, `<testcase name="with-file"`)
	tc, _, _ = strings.Cut(tc, "</testcase>")
	if !strings.Contains(tc, "warnings:\n  - evals/s.eval.yaml:6:19: "+warning) {
		t.Errorf("the JUnit testcase does not carry the warning:\n%s", tc)
	}
	val := agentv(t, dir, nil, "validate", "evals/s.eval.yaml")
	if val.code != 0 || !strings.Contains(val.stdout, "warning: evals/s.eval.yaml:6:19: "+warning) {
		t.Errorf("validate: exit %d, want 0 and the warning with file and line:\n%s", val.code, val.stdout)
	}
}
