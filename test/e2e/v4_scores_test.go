package e2e_test

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The tests in this file run small 4.x suites whose per-test scores (and grader names) were
// taken from AgentV 4.42.4 run on the same files:
//
//	AGENTV_NO_UPDATE_CHECK=1 node node_modules/agentv/dist/cli.js eval FILE -o RUNDIR
//
// (scores from RUNDIR/index.jsonl). Each one found a place where this tool scored otherwise.
// With AGENTV_V4_SCORES_DUMP=DIR set, each test also writes its files to DIR/<test name>, to
// run 4.42.4 on them again.

// v4Score is one test's expected result: its score and its graders' names in order.
type v4Score struct {
	score   float64
	graders string
}

// v4Judge is a mock judge target answering a free-form 4.x verdict of 0.6.
const v4Judge = `  - name: judge
    provider: mock
    response: '{"score": 0.6, "assertions": [{"text": "states 42", "passed": true}]}'
`

// runV4Scores writes files into a new directory, runs `agentv eval` with args there and
// checks every record against want (by test id). The run must be valid (exit 0, 1 or 3) unless
// invalid is set (exit 2). It returns the run for further checks.
func runV4Scores(t *testing.T, files map[string]string, want map[string]v4Score, invalid bool, args ...string) runResult {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	dir := t.TempDir()
	writeFiles(t, dir, files)
	if dump := os.Getenv("AGENTV_V4_SCORES_DUMP"); dump != "" {
		writeFiles(t, filepath.Join(dump, t.Name()), files)
	}
	res := agentv(t, dir, nil, append([]string{"eval"}, args...)...)
	if (res.code == 2) != invalid || res.code > 3 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	got := res.byID()
	for _, id := range slices.Sorted(func(yield func(string) bool) {
		for id := range want {
			if !yield(id) {
				return
			}
		}
	}) {
		w, r := want[id], got[id]
		if r == nil {
			t.Errorf("no record for %s\nstdout:\n%s", id, res.stdout)
			continue
		}
		var names []string
		for _, e := range r.EvaluatorResults {
			names = append(names, e.Name)
		}
		if math.Abs(r.Score-w.score) > 1e-9 || strings.Join(names, " ") != w.graders {
			t.Errorf("%s: score %v graders %q, want %v %q (error %q)", id, r.Score, strings.Join(names, " "), w.score, w.graders, r.Error)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d records, want %d", len(got), len(want))
	}
	return res
}

// A cli target's answer is graded as the command wrote it: 4.42.4 does not trim it, so
// `^The answer` fails on "  The answer is 42.\n\n" and `contains: "42.\n"` passes
// (starts-with and equals trim both sides themselves). A {PROMPT_FILE} holds the prompt as
// written, and its path has 4.42.4's shape.
func TestV4CLIAnswerAsWritten(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		".agentv/targets.yaml": `targets:
  - name: default
    provider: cli
    command: printf '  The answer is 42.\n\n' > {OUTPUT_FILE}
    grader_target: judge
  - name: cli-pf
    provider: cli
    command: cat {PROMPT_FILE} > {OUTPUT_FILE}; echo {PROMPT_FILE} >> {OUTPUT_FILE}
    grader_target: judge
` + v4Judge,
		"trim.eval.yaml": `name: trim
tests:
  - id: raw-regex
    input: What is the answer?
    assertions:
      - type: regex
        value: "^The answer"
      - type: regex
        value: "42\\.$"
      - type: contains
        value: "42.\n"
      - type: equals
        value: The answer is 42.
      - type: starts-with
        value: The
`,
		"pf.eval.yaml": `name: pf
execution:
  target: cli-pf
tests:
  - id: prompt-file
    input: "What's the \"answer\"?"
    assertions:
      - type: regex
        value: "^What's the \"answer\"\\?/.*/agentv-prompt-file-[0-9]+-[a-z0-9]+\\.prompt\\.txt\\n$"
      - type: contains
        value: "What's the \"answer\"?"
`,
	}
	runV4Scores(t, files, map[string]v4Score{
		"raw-regex":   {0.6, `regex-^The answer regex-42\.$ contains-42.` + "\n" + ` equals-The answer is 42. starts-with-The`},
		"prompt-file": {1, `regex-^What's the "answer"\?/.*/agen contains-What's the "answer"?`},
	}, false, "trim.eval.yaml", "pf.eval.yaml")
}

// v4Mock is a targets file: a mock agent answering "The answer is 42." judged by v4Judge.
const v4Mock = `targets:
  - name: default
    provider: mock
    response: The answer is 42.
    grader_target: judge
` + v4Judge

// The older places 4.42.4 still reads graders from: a suite's execution.assertions (and
// execution.evaluators), a test's execution.evaluators and evaluators, each used only when
// the newer keys are not set. A test's execution.assertions is not read (the default judge
// grades it).
func TestV4LegacyGraderLists(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		".agentv/targets.yaml": v4Mock,
		"exec.eval.yaml": `name: exec-assertions
execution:
  assertions:
    - type: contains
      value: "42"
tests:
  - id: suite-exec-assertions
    criteria: Answers 42
    input: What is the answer?
  - id: with-own
    criteria: Answers 42
    input: What is the answer?
    assertions:
      - type: contains
        value: nope
  - id: skip-defaults
    criteria: Answers 42
    input: What is the answer?
    execution:
      skip_defaults: true
`,
		"execev.eval.yaml": `name: exec-evaluators
execution:
  evaluators:
    - type: contains
      value: "nope"
tests:
  - id: suite-exec-evaluators
    criteria: Answers 42
    input: What is the answer?
`,
		"both.eval.yaml": `name: both
assertions:
  - type: contains
    value: "The"
execution:
  assertions:
    - type: contains
      value: "nope"
tests:
  - id: top-level-wins
    criteria: Answers 42
    input: What is the answer?
`,
		"testev.eval.yaml": `name: test-evaluators
tests:
  - id: test-evaluators
    criteria: Answers 42
    input: What is the answer?
    evaluators:
      - type: contains
        value: "42"
      - type: regex
        value: "^nope"
  - id: test-exec-evaluators
    criteria: Answers 42
    input: What is the answer?
    execution:
      evaluators:
        - type: contains
          value: "nope"
    evaluators:
      - type: contains
        value: "42"
  - id: assertions-win
    criteria: Answers 42
    input: What is the answer?
    assertions:
      - type: contains
        value: "42"
    evaluators:
      - type: contains
        value: "nope"
  - id: test-exec-assertions
    criteria: Answers 42
    input: What is the answer?
    execution:
      assertions:
        - type: contains
          value: "nope"
`,
	}
	res := runV4Scores(t, files, map[string]v4Score{
		"suite-exec-assertions": {1, "contains-42"},
		"with-own":              {0.5, "contains-nope contains-42"},
		"skip-defaults":         {0.6, "llm_judge"}, // 4.42.4 lists no grader for its default one
		"suite-exec-evaluators": {0, "contains-nope"},
		"top-level-wins":        {1, "contains-The"},
		"test-evaluators":       {0.5, "contains-42 regex-^nope"},
		"test-exec-evaluators":  {0, "contains-nope"},
		"assertions-win":        {1, "contains-42"},
		"test-exec-assertions":  {0.6, "llm_judge"},
	}, false, "exec.eval.yaml", "execev.eval.yaml", "both.eval.yaml", "testev.eval.yaml")
	for _, w := range []string{
		`exec.eval.yaml:3:3: "execution.assertions" is deprecated: write "assertions"`,
		`both.eval.yaml:6:3: "execution.assertions" ignored: "assertions" is also set (line 2)`,
		`testev.eval.yaml:18:5: "evaluators" ignored: "execution.evaluators" is also set (line 15)`,
		`testev.eval.yaml:34:7: a test's execution "assertions" is ignored`,
	} {
		if !strings.Contains(res.stdout+res.stderr, w) {
			t.Errorf("output lacks %q:\n%s", w, res.stdout+res.stderr)
		}
	}
}

// A 4.x composite weighs its members by aggregator.weights alone (1 for a member not named
// there); a member's own weight is not used, with a warning.
func TestV4CompositeMemberWeights(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		".agentv/targets.yaml": v4Mock,
		"comp.eval.yaml": `name: comp
tests:
  - id: member-weights
    criteria: Answers 42
    input: What is the answer?
    assertions:
      - type: composite
        assertions:
          - {name: c, type: contains, value: "42", weight: 3}
          - {name: n, type: contains, value: "nope", weight: 1}
        aggregator: {type: weighted_average}
  - id: aggregator-weights-win
    criteria: Answers 42
    input: What is the answer?
    assertions:
      - type: composite
        assertions:
          - {name: c, type: contains, value: "42", weight: 3}
          - {name: n, type: contains, value: "nope", weight: 5}
        aggregator: {type: weighted_average, weights: {c: 1}}
`,
	}
	res := runV4Scores(t, files, map[string]v4Score{
		"member-weights":         {0.5, "composite"},
		"aggregator-weights-win": {0.5, "composite"},
	}, false, "comp.eval.yaml")
	if w := `comp.eval.yaml:9:60: a composite member's "weight" is not used`; !strings.Contains(res.stdout+res.stderr, w) {
		t.Errorf("output lacks %q:\n%s", w, res.stdout+res.stderr)
	}
	for _, r := range res.records {
		for _, m := range r.EvaluatorResults[0].EvaluatorResults {
			if m.Weight != 1 {
				t.Errorf("%s: member %s has weight %v, want 1 (as 4.42.4 reports it)", r.EvalID, m.Name, m.Weight)
			}
		}
	}
}

// An llm-grader template's {{ metadata }} and {{ metadata_json }} are the test's metadata
// (merged with the file's) as JSON, indented by two spaces or compact, and empty without
// any. The judge is a cli target that reads the rendered prompt through {PROMPT_FILE} and
// scores 1 for the metadata block 4.42.4 renders, 0.5 for an empty one.
func TestV4GraderTemplateMetadata(t *testing.T) {
	t.Parallel()
	requireTools(t, "python3")
	files := map[string]string{
		".agentv/targets.yaml": `targets:
  - name: default
    provider: mock
    response: The answer is 42.
    grader_target: judge
  - name: judge
    provider: cli
    command: python3 judge.py {PROMPT_FILE} {OUTPUT_FILE}
`,
		"judge.py": `import json, sys
prompt = open(sys.argv[1]).read()
pretty = '{\n  "team": "search",\n  "tags": [\n    "b",\n    "c",\n    "a"\n  ],\n  "nested": {\n    "x": 1.5,\n    "y": "<b> & \\"q\\""\n  },\n  "owner": "qa"\n}'
compact = '{"team":"search","tags":["b","c","a"],"nested":{"x":1.5,"y":"<b> & \\"q\\""},"owner":"qa"}'
if "META:" + pretty + "\nMJ:" + compact + "\n" in prompt:
    score, text = 1, "the merged metadata"
elif "META:\nMJ:\n" in prompt:
    score, text = 0.5, "no metadata"
else:
    score, text = 0, "something else: " + prompt
json.dump({"score": score, "assertions": [{"text": text, "passed": score > 0}]}, open(sys.argv[2], "w"))
`,
		"tmpl.md": "META:{{ metadata }}\nMJ:{{ metadata_json }}\nOUT:{{ output }}\n",
		"meta.eval.yaml": `name: meta
tests:
  - id: with-metadata
    criteria: Answers 42
    input: What is the answer?
    metadata:
      team: search
      tags: [a, b]
      nested: {x: 1.5, y: "<b> & \"q\""}
    assertions:
      - type: llm-grader
        prompt: file://tmpl.md
`,
		"plain.eval.yaml": `name: plain
tests:
  - id: no-metadata
    criteria: Answers 42
    input: What is the answer?
    assertions:
      - type: llm-grader
        prompt: file://tmpl.md
`,
	}
	// The file's metadata merges into the test's: its keys after the test's, lists file-first.
	files["meta.eval.yaml"] = strings.Replace(files["meta.eval.yaml"], "name: meta\n", "name: meta\nmetadata:\n  tags: [b, c]\n  owner: qa\n", 1)
	runV4Scores(t, files, map[string]v4Score{
		"with-metadata": {1, "llm-grader"},
		"no-metadata":   {0.5, "llm-grader"},
	}, false, "meta.eval.yaml", "plain.eval.yaml")
}

// A 4.x test's `rubrics` is read as 4.42.4 reads it: one rubric grader named "rubrics" ahead of
// the test's assertions, strings with ids rubric-N, mappings read by `outcome`. A rubric
// without `outcome` (2.5's `description`) is a positioned error here; 4.42.4 drops it.
func TestV4TestRubrics(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		".agentv/targets.yaml": `targets:
  - name: default
    provider: mock
    response: The answer is 42.
    grader_target: judge-check
  - name: judge-check
    provider: mock
    response: '{"checks": [{"id": "rubric-1", "satisfied": true, "reasoning": "ok"}, {"id": "rubric-2", "satisfied": false, "reasoning": "no"}, {"id": "depth", "satisfied": true, "reasoning": "fine"}, {"id": "rubric-3", "satisfied": false, "reasoning": "no"}], "overall_reasoning": "mixed"}'
`,
		"rub.eval.yaml": `name: rub
tests:
  - id: strings
    criteria: Answers 42
    input: What is the answer?
    rubrics:
      - Says 42
      - Explains why
  - id: objects
    criteria: Answers 42
    input: What is the answer?
    rubrics:
      - Says 42
      - {id: depth, outcome: Goes deep, weight: 2}
      - {outcome: Cites a source, required: false}
  - id: with-assertions
    criteria: Answers 42
    input: What is the answer?
    rubrics:
      - Says 42
      - Explains why
    assertions:
      - type: contains
        value: "42"
  - id: with-strings
    criteria: Answers 42
    input: What is the answer?
    rubrics:
      - Says 42
    assertions:
      - Explains why
`,
		"old.eval.yaml": `name: old
tests:
  - id: old-spellings
    criteria: Answers 42
    input: What is the answer?
    rubrics:
      - {id: depth, description: Goes deep}
`,
	}
	res := runV4Scores(t, files, map[string]v4Score{
		"strings":         {0.5, "rubrics"},
		"objects":         {0.75, "rubrics"},
		"with-assertions": {0.75, "rubrics contains-42"},
		"with-strings":    {1, "rubrics rubrics"},
	}, true, "rub.eval.yaml", "old.eval.yaml")
	for _, w := range []string{
		`old.eval.yaml:7:9: rubric 1 has no "outcome"`,
		`old.eval.yaml:7:21: "description" is not read in a test's rubrics`,
	} {
		if !strings.Contains(res.stdout+res.stderr, w) {
			t.Errorf("output lacks %q:\n%s", w, res.stdout+res.stderr)
		}
	}
}

// `- include:` assertion templates are built as 4.42.4 builds them: a bare name is
// .agentv/templates/NAME.yaml, the nearest to the eval file winning; a path is looked for from
// the eval file's folder; a template's own includes from its folder first; the strings of a
// template join the test's criteria in one rubric grader; composite members and suite
// assertions may include too. A missing template or a cycle is a positioned error (4.42.4
// skips the test).
func TestV4AssertionTemplates(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		".agentv/targets.yaml": `targets:
  - name: default
    provider: mock
    response: The answer is 42.
    grader_target: judge
  - name: judge
    provider: mock
    response: '{"score": 0.6, "assertions": [{"text": "states 42", "passed": true}], "checks": [{"id": "rubric-1", "satisfied": true, "reasoning": "ok"}, {"id": "rubric-2", "satisfied": false, "reasoning": "no"}], "overall_reasoning": "x"}'
`,
		".agentv/templates/safe.yaml":       "name: safe\nassertions:\n  - type: contains\n    value: \"42\"\n  - type: regex\n    value: \"^nope\"\n",
		".agentv/templates/loop.yaml":       "assertions:\n  - include: loop\n",
		"evals/.agentv/templates/safe.yaml": "assertions:\n  - type: contains\n    value: \"answer\"\n",
		"lib/format.yaml":                   "assertions:\n  - Mentions 42\n  - include: ./inner.yaml\n",
		"lib/inner.yaml":                    "assertions:\n  - name: dot\n    type: ends-with\n    value: \".\"\n",
		"inner.yaml":                        "assertions:\n  - type: ends-with\n    value: \"nope\"\n",
		"evals/inc.eval.yaml": `name: inc
tests:
  - id: by-name
    criteria: Answers 42
    input: What is the answer?
    assertions:
      - include: safe
  - id: by-path
    criteria: Answers 42
    input: What is the answer?
    assertions:
      - type: contains
        value: "The"
      - include: ../lib/format.yaml
      - Is polite
  - id: in-composite
    criteria: Answers 42
    input: What is the answer?
    assertions:
      - type: composite
        assertions:
          - include: ../lib/inner.yaml
          - {name: n, type: contains, value: "nope"}
        aggregator: {type: weighted_average}
`,
		"evals/suite.eval.yaml": `name: suite-inc
assertions:
  - include: ./../.agentv/templates/safe.yaml
tests:
  - id: suite-level
    criteria: Answers 42
    input: What is the answer?
  - id: suite-skip
    criteria: Answers 42
    input: What is the answer?
    execution:
      skip_defaults: true
`,
		"evals/bad.eval.yaml": `name: bad
tests:
  - id: missing
    criteria: Answers 42
    input: What is the answer?
    assertions:
      - include: nothere
  - id: loop
    criteria: Answers 42
    input: What is the answer?
    assertions:
      - include: loop
  - id: fine
    criteria: Answers 42
    input: What is the answer?
    assertions:
      - type: contains
        value: "42"
`,
	}
	res := runV4Scores(t, files, map[string]v4Score{
		"by-name":      {1, "contains-answer"},
		"by-path":      {0.75, "contains-The rubrics dot"},
		"in-composite": {0.5, "composite"},
		"suite-level":  {0.5, "contains-42 regex-^nope"},
		"suite-skip":   {0.6, "llm_judge"},
		"fine":         {1, "contains-42"},
	}, true, "evals/inc.eval.yaml", "evals/suite.eval.yaml", "evals/bad.eval.yaml")
	for _, w := range []string{
		`evals/bad.eval.yaml:7:18: assertion template "nothere" not found (looked for evals/.agentv/templates/nothere.yaml, .agentv/templates/nothere.yaml, evals/.agentv/templates/nothere.yml, .agentv/templates/nothere.yml)`,
		`.agentv/templates/loop.yaml:2:14: assertion templates include each other in a cycle: .agentv/templates/loop.yaml -> .agentv/templates/loop.yaml`,
	} {
		if !strings.Contains(res.stdout+res.stderr, w) {
			t.Errorf("output lacks %q:\n%s", w, res.stdout+res.stderr)
		}
	}
}

// An include in a conversation turn's assertions is expanded too, as 4.42.4's documentation
// says templates work in "any assertions array"; 4.42.4's code passes the include on as a
// grader of unknown type and scores the turn 0 (listed in docs/agentv-4.md).
func TestV4AssertionTemplateInTurn(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		".agentv/targets.yaml":        v4Mock,
		".agentv/templates/safe.yaml": "assertions:\n  - type: contains\n    value: \"42\"\n",
		"conv.eval.yaml": `name: conv
tests:
  - id: conv-include
    mode: conversation
    input: Hello
    turns:
      - input: What is the answer?
        assertions:
          - include: safe
`,
	}
	runV4Scores(t, files, map[string]v4Score{"conv-include": {1, "turn-1"}}, false, "conv.eval.yaml")
}
