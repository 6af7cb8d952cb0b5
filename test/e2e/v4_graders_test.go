package e2e_test

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// v4GraderFiles is a suite run side by side with AgentV 4.42.4: a mock target answering
// "The answer is 42." and mock judges answering in the three 4.x verdict shapes (free-form
// {score, assertions}, a rubric checklist, score ranges) and one that answers no JSON. FENCE
// stands for a Markdown code fence around the checklist verdict.
var v4GraderFiles = map[string]string{
	".agentv/targets.yaml": `targets:
  - name: default
    provider: mock
    response: The answer is 42.
    grader_target: judge
  - name: t-check
    provider: mock
    response: The answer is 42.
    grader_target: judge-check
  - name: judge
    provider: mock
    response: '{"score": 0.6, "assertions": [{"text": "states 42", "passed": true, "evidence": "says 42"}, {"text": "explains why", "passed": "no"}]}'
  - name: judge-check
    provider: mock
    response: 'FENCEjson
      {"checks": [{"id": "c1", "satisfied": true, "reasoning": "ok"}, {"id": "c2", "satisfied": false, "reasoning": "no"}, {"id": "c3", "satisfied": true, "reasoning": "fine"}, {"id": "rubric-1", "satisfied": true, "reasoning": "yes"}, {"id": "zz", "satisfied": true, "reasoning": "unknown id"}], "overall_reasoning": "mixed"}
      FENCE'
  - name: judge-range
    provider: mock
    response: '{"checks": [{"id": "r1", "score": 7, "reasoning": "good"}, {"id": "r2", "score": 4}, {"id": "rubric-3", "score": 9}], "overall_reasoning": "ok"}'
  - name: judge-bad
    provider: mock
    response: 'I think it is fine.'
`,
	"evals/s.eval.yaml": `name: s
tests:
  - id: criteria-only
    criteria: Answers 42
    input: What is the answer?
  - id: required-grader
    criteria: Answers 42
    input: What is the answer?
    assertions:
      - type: contains
        value: "42"
      - type: llm-grader
        required: 0.7
  - id: checklist
    criteria: Answers 42
    input: What is the answer?
    assertions:
      - type: rubrics
        target: judge-check
        criteria:
          - {id: c1, outcome: Says 42, weight: 2}
          - {id: c2, outcome: Explains, required: false}
          - {id: c3, outcome: No wrong number, operator: contradiction}
          - {id: c4, outcome: Cites a source, operator: correctness}
  - id: ranges
    criteria: Answers 42
    input: What is the answer?
    assertions:
      - type: rubrics
        target: judge-range
        criteria:
          - {id: r1, outcome: Accuracy, min_score: 0.75, score_ranges: {"0": bad, "5": ok, "8": great}}
          - {id: r2, outcome: Depth, weight: 2, score_ranges: {"0": shallow, "6": deep}}
  - id: composite-weighted
    criteria: Answers 42
    input: What is the answer?
    assertions:
      - type: composite
        assertions:
          - {name: c, type: contains, value: "42"}
          - {name: l, type: llm-grader}
        aggregator: {type: weighted_average, weights: {c: 3, l: 1}}
  - id: composite-threshold
    criteria: Answers 42
    input: What is the answer?
    assertions:
      - type: composite
        assertions:
          - {name: c, type: contains, value: "42"}
          - {name: l, type: llm-grader}
          - {name: r, type: regex, value: "^nope"}
        aggregator: {type: threshold, threshold: 0.5}
  - id: composite-code
    criteria: Answers 42
    input: What is the answer?
    assertions:
      - type: composite
        assertions:
          - {name: c, type: contains, value: "42"}
          - {name: l, type: llm-grader}
        aggregator: {type: code-grader, path: python3 agg.py}
  - id: composite-llm
    criteria: Answers 42
    input: What is the answer?
    assertions:
      - type: composite
        weight: 2
        assertions:
          - {name: c, type: contains, value: "nope"}
          - {name: l, type: llm-grader}
        aggregator: {type: llm-grader}
      - type: equals
        value: The answer is 42.
  - id: code-names
    criteria: Answers 42
    input: What is the answer?
    expected_output: "42"
    assertions:
      - type: code-grader
        command: [python3, names.py]
        threshold: 3
      - type: code-grader
        name: plain
        command: [python3, plain.py]
  - id: code-names-25
    criteria: Answers 42
    input: What is the answer?
    assertions:
      - type: code-grader
        command: [python3, old.py]
  - id: negate-required
    criteria: Answers 42
    input: What is the answer?
    assertions:
      - type: contains
        value: "43"
        negate: true
      - type: icontains-any
        value: [foo, ANSWER]
        required: true
      - type: llm-grader
        negate: true
  - id: bad-judge
    criteria: Answers 42
    input: What is the answer?
    assertions:
      - type: contains
        value: "42"
      - type: llm-grader
        target: judge-bad
  - id: composite-skip
    criteria: Answers 42
    input: What is the answer?
    assertions:
      - type: composite
        assertions:
          - {name: c, type: contains, value: "42"}
          - {name: l, type: llm-grader, target: judge-bad}
        aggregator: {type: weighted_average}
      - type: contains
        value: "nope"
`,
	"evals/strings.eval.yaml": `name: strings
execution:
  target: t-check
tests:
  - id: plain-strings
    criteria: Answers 42
    input: What is the answer?
    assertions:
      - type: contains
        value: "42"
      - Mentions 42
      - Is polite
      - type: starts-with
        value: The
      - type: regex
        value: "^The answer is [0-9]+ and that is all there is to say$"
      - type: ends-with
        value: "."
      - type: is-json
        weight: 0
`,
	"evals/prompts.eval.yaml": `name: prompts
tests:
  - id: prompts
    criteria: Answers 42
    input: What is the answer?
    expected_output: "42"
    assertions:
      - type: llm-grader
        name: script
        prompt: {command: [python3, prompt.py], config: {level: strict}}
      - type: llm-grader
        name: file
        prompt: file://tmpl.md
      - type: llm-grader
        name: inline
        prompt: "Is {{ output }} right?"
      - type: llm-grader
        name: rubric-template
        target: judge-check
        prompt: file://tmpl.md
        rubrics:
          - {id: c1, outcome: Says 42}
          - {id: c2, outcome: Explains, weight: 3}
      - type: icontains
        value: ANSWER
      - type: icontains
        value: ANSWER
`,
	"evals/agg.py": `import json, sys
d = json.load(sys.stdin)
r = d["results"]
print(json.dumps({"score": r["l"]["score"] / 2, "assertions": [{"text": "halved", "passed": True}]}))
`,
	"evals/names.py": `import json, sys
d = json.load(sys.stdin)
checks = [
  d.get("output") == "The answer is 42.",
  d.get("criteria") == "Answers 42",
  d.get("config", {}).get("threshold") == 3,
  isinstance(d.get("messages"), list) and d["messages"][-1]["content"] == "The answer is 42.",
  d.get("input")[0]["content"] == "What is the answer?",
  d.get("expected_output")[0]["content"] == "42",
  d.get("trace_summary", {}).get("llm_call_count") == 1,
  "token_usage" in d and "cost_usd" in d and "duration_ms" in d and "workspace_path" in d,
]
print(json.dumps({"assertions": [{"text": "check %d" % i, "passed": c} for i, c in enumerate(checks)]}))
`,
	"evals/old.py": `import json, sys
d = json.load(sys.stdin)
ok = d.get("candidate_answer") == "The answer is 42." and d.get("expected_outcome") == "Answers 42" and d.get("question", "").find("What is the answer?") >= 0
print(json.dumps({"score": 1 if ok else 0.25, "hits": ["old names"] if ok else [], "misses": [] if ok else ["old names missing"]}))
`,
	"evals/plain.py": `import sys
sys.stdin.read()
print("not good enough")
sys.exit(1)
`,
	"evals/prompt.py": `import json, sys
d = json.load(sys.stdin)
print("Grade the answer {{ output }} for the question %s (%s). Level: %s" % (d["input"][0]["content"], d["answer"], d["config"]["level"]))
`,
	"evals/tmpl.md": `Does {{ output }} meet {{ criteria }}? Reference: {{ expected_output }}. Rubrics: {{ rubrics_json }}
`,
}

// TestV4Graders runs the 4.x graders on v4GraderFiles. The expected per-test scores and
// grader names are what AgentV 4.42.4 reports for the same files (agentv eval, index.jsonl).
// A 2.5 file in the same run keeps the 2.5 judge prompt.
func TestV4Graders(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	requireTools(t, "python3")
	dir := t.TempDir()
	files := map[string]string{
		"evals/old.yaml": "evalcases:\n  - id: legacy\n    expected_outcome: Answers 42\n    input: What is the answer?\n",
	}
	for name, text := range v4GraderFiles {
		files[name] = strings.ReplaceAll(text, "FENCE", "```")
	}
	writeFiles(t, dir, files)
	res := agentv(t, dir, nil, "eval", "evals")
	if res.code != 3 { // bad-judge cannot be scored
		t.Fatalf("exit %d, want 3\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	want := []struct {
		id      string
		score   float64
		graders string
	}{
		{"criteria-only", 0.6, "llm_judge"}, // 4.42.4 lists no grader for its default one
		{"required-grader", 0, "contains-42 llm-grader"},
		{"checklist", 0.75, "rubrics"},
		{"ranges", 0.5, "rubrics"},
		{"composite-weighted", 0.9, "composite"},
		{"composite-threshold", 1.0 / 3, "composite"},
		{"composite-code", 0.3, "composite"},
		{"composite-llm", 0.7333333333333334, "composite equals-The answer is 42."},
		{"code-names", 0.5, "code-grader plain"},
		// A grader written for 2.5 finds none of its names in a 4.x payload, as in 4.42.4.
		{"code-names-25", 0.25, "code-grader"},
		{"negate-required", 0.7999999999999999, "contains-43 icontains-any-2 llm-grader"},
		{"bad-judge", 0, "contains-42 llm-grader"},
		{"composite-skip", 0.5, "composite contains-nope"}, // the member that cannot score is left out
		{"plain-strings", 0.8333333333333334, "contains-42 rubrics starts-with-The regex-^The answer is [0-9]+ and that ends-with-. is-json"},
		{"prompts", 0.6749999999999999, "script file inline rubric-template icontains-ANSWER icontains-ANSWER"},
		{"legacy", 0.6, "llm_judge"},
	}
	got := res.byID()
	if len(got) != len(want) {
		t.Errorf("%d records, want %d", len(got), len(want))
	}
	for _, w := range want {
		r := got[w.id]
		if r == nil {
			t.Errorf("no record for %s", w.id)
			continue
		}
		var names []string
		for _, e := range r.EvaluatorResults {
			names = append(names, e.Name)
		}
		if math.Abs(r.Score-w.score) > 1e-9 || strings.Join(names, " ") != w.graders {
			t.Errorf("%s: score %v graders %q, want %v %q", w.id, r.Score, strings.Join(names, " "), w.score, w.graders)
		}
	}

	request := func(raw json.RawMessage) (user, system string) {
		var q struct {
			User   string `json:"user_prompt"`
			System string `json:"system_prompt"`
		}
		_ = json.Unmarshal(raw, &q)
		return q.User, q.System
	}
	// The 4.x default prompt and verdict shape; the 2.5 ones for the 2.5 file.
	if r := got["criteria-only"]; r != nil {
		user, system := request(r.EvaluatorProviderRequest)
		for _, part := range []string{"[[ ## criteria ## ]]\nAnswers 42", "[[ ## question ## ]]\nWhat is the answer?", "[[ ## reference_answer ## ]]", "[[ ## answer ## ]]\nThe answer is 42."} {
			if !strings.Contains(user, part) {
				t.Errorf("criteria-only prompt lacks %q:\n%s", part, user)
			}
		}
		if !strings.Contains(system, `"assertions"`) || strings.Contains(system, `"hits"`) {
			t.Errorf("criteria-only system prompt does not ask for {score, assertions}:\n%s", system)
		}
	}
	if r := got["legacy"]; r != nil {
		user, system := request(r.EvaluatorProviderRequest)
		if !strings.Contains(user, "[[ ## expected_outcome ## ]]") || !strings.Contains(system, `"hits"`) {
			t.Errorf("legacy (2.5) case did not get the 2.5 prompt:\n%s\n%s", user, system)
		}
	}
	// Assertions map onto hits and misses; a string "passed" is repaired to false.
	if r := got["criteria-only"]; r != nil && (strings.Join(r.Hits, "|") != "states 42" || strings.Join(r.Misses, "|") != "explains why") {
		t.Errorf("criteria-only hits %q misses %q, want [states 42] [explains why]", r.Hits, r.Misses)
	}
	if r := got["checklist"]; r != nil {
		e := r.EvaluatorResults[0]
		if strings.Join(e.Hits, "|") != "[c1] Says 42|[c3] No wrong number" || strings.Join(e.Misses, "|") != "[c2] Explains" {
			t.Errorf("checklist hits %q misses %q", e.Hits, e.Misses)
		}
		if user, _ := request(e.EvaluatorProviderRequest); !strings.Contains(user, "- [c3] (REQUIRED) (operator: contradiction): No wrong number") {
			t.Errorf("checklist prompt lacks the operator label:\n%s", user)
		}
	}
	if r := got["ranges"]; r != nil {
		e := r.EvaluatorResults[0]
		if e.Verdict != "fail" || len(e.Misses) != 2 || e.Misses[0] != "[r1] Accuracy - Score: 7/10 (ok)" {
			t.Errorf("ranges verdict %q misses %q, want fail (r1 is below its min_score) with [r1] Accuracy - Score: 7/10 (ok)", e.Verdict, e.Misses)
		}
	}
	if r := got["bad-judge"]; r != nil && !strings.Contains(r.Error, "no valid verdict") {
		t.Errorf("bad-judge error %q, want one saying the reply held no valid verdict", r.Error)
	}
	// Prompts: an executable template gets the 4.x payload; the same text 4.42.4 sent.
	if r := got["prompts"]; r != nil {
		user, _ := request(r.EvaluatorResults[0].EvaluatorProviderRequest)
		if w := "Grade the answer The answer is 42. for the question What is the answer? (The answer is 42.). Level: strict"; user != w {
			t.Errorf("script prompt %q, want %q", user, w)
		}
		user, _ = request(r.EvaluatorResults[3].EvaluatorProviderRequest)
		if w := `Does The answer is 42. meet Answers 42? Reference: 42. Rubrics: [{"id":"c1","outcome":"Says 42","weight":1,"required":true},{"id":"c2","outcome":"Explains","weight":3,"required":true}]` + "\n"; user != w {
			t.Errorf("rubric template prompt %q, want %q", user, w)
		}
	}
}
