package e2e_test

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// v4MetricsAgent is a cli target that answers with the canned JSON output file named by the
// "resp=NAME" token of its prompt (AgentV 4.x's output file: messages with tool calls, token
// usage, cost and duration).
const v4MetricsAgent = `import os, re, shutil, sys
m = re.search(r"resp=(\w+)", " ".join(sys.argv[2:]))
src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "resp", (m.group(1) if m else "none") + ".json")
shutil.copy(src, sys.argv[1])
`

// TestV4MetricsGraders runs execution-metrics, skill-trigger, latency, cost, token-usage,
// field-accuracy and tool-trajectory (every mode, args_match at both levels, latency items)
// on the answers of a cli target, and expects the per-test scores AgentV 4.42.4 gave on the
// same files (run side by side with its cli target; values copied from its index.jsonl). One
// 4.42.4 check is left out: a day-first date `formats`, which we honour and it ignores.
func TestV4MetricsGraders(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	requireTools(t, "python3")
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		".agentv/targets.yaml": "targets:\n  - name: default\n    provider: cli\n    command: python3 agent.py {OUTPUT_FILE} {PROMPT}\n",
		"agent.py":             v4MetricsAgent,
		"m.eval.yaml":          v4MetricsSuite,
		"resp/tools.json": `{"output": [
  {"role": "assistant", "content": "Let me look", "tool_calls": [
    {"tool": "Read", "input": {"file_path": "/repo/.claude/skills/pdf/SKILL.md"}, "duration_ms": 30},
    {"tool": "grep", "input": {"pattern": "x", "path": "src"}, "duration_ms": 500}]},
  {"role": "assistant", "content": "Now edit", "tool_calls": [
    {"tool": "Edit", "input": {"file_path": "a.go", "old": "x", "new": "y"}, "output": "ok"},
    {"tool": "Bash", "input": {"command": "go test"}, "output": {"stdout": "see skills/review/notes"}, "duration_ms": 1200}]},
  {"role": "assistant", "content": "{\"total\": 10.5, \"name\": \"Bob\", \"date\": \"15-JAN-2025\", \"items\": [1,2], \"zero\": 0.01}"}],
 "token_usage": {"input": 100, "output": 50, "cached": 20},
 "cost_usd": 0.01234,
 "duration_ms": 2500}
`,
		"resp/skill.json": `{"output": [
  {"role": "assistant", "content": "using skill", "tool_calls": [
    {"tool": "skill", "input": {"skill": "my-pdf-skill"}}]},
  {"role": "assistant", "content": "done"}],
 "token_usage": {"input": 10, "output": 5}}
`,
		"resp/none.json": `{"text": "no tools here", "duration_ms": 10}
`,
		"resp/fa.json": `{"text": "Here you go: {\"total\": 10.5, \"name\": \"Bob\", \"date\": \"15-JAN-2025\", \"us\": \"01/02/2025\", \"items\": [1, {\"k\": \"v\"}], \"zero\": 0.01, \"s\": \"42\", \"n\": 42, \"iso\": \"2025-01-15T10:00:00Z\"} done"}
`,
		"resp/fatwo.json": `{"text": "first {\"total\": 1} then {\"name\": \"x\"}"}
`,
		"resp/fafence.json": "{\"text\": \"```json\\n{\\\"total\\\": 1, \\\"passed\\\": \\\"yes\\\"}\\n```\"}\n",
		"resp/faprose.json": `{"text": "the set {a, b} has {\"total\": 1}"}
`,
		"resp/fabad.json": `{"text": "not json at all"}
`,
	})
	res := agentv(t, dir, nil, "eval", "m.eval.yaml")
	if res.code != 1 {
		t.Fatalf("exit %d, want 1 (some tests fail)\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	want := map[string]float64{
		"em-all-pass":                   1,
		"em-mixed":                      0.2,
		"em-explore":                    1,
		"em-explore-tol":                0,
		"em-none":                       0.4,
		"em-float":                      0,
		"st-read":                       1,
		"st-output":                     1,
		"st-skilltool":                  1,
		"st-neg":                        1,
		"st-neg-fail":                   0,
		"st-none":                       0,
		"lat-cost-tok":                  0.5,
		"lat-none":                      0.5,
		"fa-exact":                      0.8,
		"fa-numeric":                    0.6667,
		"fa-date":                       1,
		"fa-required-weight":            0.4286,
		"fa-all-or-nothing":             0,
		"fa-optional-only":              0.5,
		"fa-no-expected":                0,
		"fa-bad-json":                   0,
		"fa-expected-string":            1,
		"fa-weighted-zero":              0,
		"tt-any":                        0.6667,
		"tt-any-none":                   0.5,
		"tt-inorder-default-exact-args": 0.6667,
		"tt-inorder-superset":           0.5,
		"tt-inorder-latency":            0.4286,
		"tt-exact":                      0.5,
		"tt-exact-short":                1,
		"tt-superset":                   0.5,
		"tt-subset":                     0.75,
		"tt-subset-none":                1,
		"tt-fields-nested":              1,
		"tt-io-items":                   1,
		"tt-inorder-none":               0,
		"tt-inorder-empty":              1,
		// field-accuracy reads the answer's JSON as AgentV does: fences removed, first "{" to
		// last "}" (two objects do not parse), a "passed" field read as a boolean.
		"fa-two-objects":   0,
		"fa-fenced-passed": 1,
		"fa-prose-braces":  0,
		// required, min_score and negate on these types (4.42.4 honours them).
		"neg-contains": 0,
		"req-metrics":  0,
		"req-min":      0.75,
		"neg-skill":    0.6667,
	}
	got := res.byID()
	if len(got) != len(want) {
		t.Errorf("%d records, want %d", len(got), len(want))
	}
	for id, w := range want {
		r := got[id]
		switch {
		case r == nil:
			t.Errorf("no record for %s", id)
		case r.Error != "" || math.Abs(r.Score-w) > 0.0001:
			t.Errorf("%s: score %v (error %q), want %v; hits %q misses %q", id, r.Score, r.Error, w, r.Hits, r.Misses)
		}
	}
	// 4.42.4's texts, for a few of them.
	for id, text := range map[string]string{
		"em-mixed":           "LLM calls 3 > 2 max",
		"em-float":           "Cost $0.0123 > $0.0123 max",
		"st-output":          `Tool "Bash" output referenced skill file for "review"`,
		"tt-inorder-latency": "Expected Bash at position 3, not found in remaining trace",
		"fa-numeric":         "total (outside tolerance: diff=0.50, tolerance=0.04)",
	} {
		if r := got[id]; r == nil || !strings.Contains(strings.Join(append(append([]string{}, r.Hits...), r.Misses...), "|"), text) {
			t.Errorf("%s lacks %q", id, text)
		}
	}
}

// TestV4TargetsThreshold runs a suite with two targets in execution.targets: every test runs
// on both, except one whose own execution.targets keeps one; records name their target. The
// suite's execution.threshold (0.5) and a test's own (0.9) set the score each test passes at.
// The scores are 4.42.4's on the same file; 4.42.4 marks both/beta (0.5) a quality failure
// because its per-test status ignores the suite threshold, which its exit code honours: here
// the suite threshold decides both.
func TestV4TargetsThreshold(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		".agentv/targets.yaml": `targets:
  - name: alpha
    provider: mock
    response: alpha says hi
  - name: beta
    provider: mock
    response: beta says hi
`,
		"mx.eval.yaml": `name: matrix
execution:
  targets: [alpha, beta]
  threshold: 0.5
tests:
  - id: both
    input: hi
    assertions:
      - {type: contains, value: alpha}
      - {type: contains, value: says}
  - id: only-beta
    input: hi
    execution: {targets: [beta]}
    assertions:
      - {type: contains, value: beta}
  - id: strict
    input: hi
    execution: {threshold: 0.9}
    assertions:
      - {type: contains, value: alpha}
      - {type: contains, value: says}
`,
		"nowhere.eval.yaml": `execution:
  targets: [alpha, beta]
tests:
  - id: nowhere
    input: hi
    execution: {targets: [gamma]}
    assertions:
      - {type: contains, value: hi}
`,
	})
	res := agentv(t, dir, nil, "eval", "mx.eval.yaml")
	if res.code != 1 {
		t.Fatalf("exit %d, want 1\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	type key struct{ id, target string }
	want := map[key]struct {
		score   float64
		verdict string
	}{
		{"both", "alpha"}:     {1, "pass"},
		{"both", "beta"}:      {0.5, "pass"},
		{"only-beta", "beta"}: {1, "pass"},
		{"strict", "alpha"}:   {1, "pass"},
		{"strict", "beta"}:    {0.5, "fail"},
	}
	seen := 0
	for _, r := range res.records {
		th := 0.5 // the threshold each record says it passed or failed at
		if r.EvalID == "strict" {
			th = 0.9
		}
		if r.CaseThreshold == nil || *r.CaseThreshold != th {
			t.Errorf("%s on %s: case_threshold %v, want %v", r.EvalID, r.Target, r.CaseThreshold, th)
		}
		w, ok := want[key{r.EvalID, r.Target}]
		if !ok {
			t.Errorf("unexpected record %s on %s", r.EvalID, r.Target)
			continue
		}
		seen++
		if r.Score != w.score || string(r.Verdict) != w.verdict {
			t.Errorf("%s on %s: score %v verdict %s, want %v %s", r.EvalID, r.Target, r.Score, r.Verdict, w.score, w.verdict)
		}
	}
	if seen != len(want) {
		t.Errorf("%d records of runs, want %d:\n%s", seen, len(want), res.stdout)
	}
	junit, err := os.ReadFile(filepath.Join(res.outDir, "junit.xml"))
	if err != nil || !strings.Contains(string(junit), "score 0.500 below case threshold 0.900") {
		t.Errorf("junit.xml (%v) lacks the test's own threshold:\n%s", err, junit)
	}
	// A report with another --case-threshold keeps the thresholds the eval file set.
	out := t.TempDir()
	rep := agentv(t, dir, nil, "report", "--results", filepath.Join(res.outDir, "results.jsonl"), "--out-dir", out, "--case-threshold", "0.95")
	junit, err = os.ReadFile(filepath.Join(out, "junit.xml"))
	if rep.code != 1 || err != nil || strings.Count(string(junit), "<failure") != 1 {
		t.Errorf("report: exit %d, want 1 with one failure (strict on beta); junit (%v):\n%s\n%s", rep.code, err, junit, rep.stdout)
	}

	// A test whose targets name none of the suite's cannot run: the run is invalid (exit 2);
	// 4.42.4 drops such a test silently.
	res = agentv(t, dir, nil, "eval", "nowhere.eval.yaml")
	if want := "nowhere: the test's execution targets (gamma) name none of the suite's targets (alpha, beta)"; res.code != 2 || !strings.Contains(res.stdout, want) {
		t.Errorf("exit %d, want 2 and %q in:\n%s", res.code, want, res.stdout)
	}
}

// v4MetricsSuite is the suite of TestV4MetricsGraders.
const v4MetricsSuite = `name: v4-metrics
tests:
  - id: em-all-pass
    input: resp=tools
    assertions:
      - type: execution-metrics
        max_tool_calls: 4
        max_llm_calls: 3
        max_tokens: 150
        max_cost_usd: 0.02
        max_duration_ms: 3000
  - id: em-mixed
    input: resp=tools
    assertions:
      - type: execution-metrics
        max_tool_calls: 3
        max_llm_calls: 2
        max_tokens: 149
        max_cost_usd: 0.01
        max_duration_ms: 2500
  - id: em-explore
    input: resp=tools
    assertions:
      - type: execution-metrics
        target_exploration_ratio: 0.5
  - id: em-explore-tol
    input: resp=tools
    assertions:
      - type: execution-metrics
        target_exploration_ratio: 0.9
        exploration_tolerance: 0.1
  - id: em-none
    input: resp=none
    assertions:
      - type: execution-metrics
        max_tool_calls: 0
        max_llm_calls: 1
        max_tokens: 10
        max_cost_usd: 1
        target_exploration_ratio: 0.5
  - id: em-float
    input: resp=tools
    assertions:
      - type: execution-metrics
        max_tool_calls: 3.5
        max_cost_usd: 0.0123
  - id: st-read
    input: resp=tools
    assertions:
      - type: skill-trigger
        skill: pdf
  - id: st-output
    input: resp=tools
    assertions:
      - type: skill-trigger
        skill: review
  - id: st-skilltool
    input: resp=skill
    assertions:
      - type: skill-trigger
        skill: pdf-skill
  - id: st-neg
    input: resp=skill
    assertions:
      - type: skill-trigger
        skill: other
        should_trigger: false
  - id: st-neg-fail
    input: resp=skill
    assertions:
      - type: skill-trigger
        skill: my-pdf
        should_trigger: false
  - id: st-none
    input: resp=none
    assertions:
      - type: skill-trigger
        skill: pdf
  - id: lat-cost-tok
    input: resp=tools
    assertions:
      - type: latency
        threshold: 2000
      - type: cost
        budget: 0.02
      - type: token-usage
        max_total: 160
      - type: token-usage
        max_input: 100
        max_output: 50
  - id: lat-none
    input: resp=skill
    assertions:
      - type: cost
        budget: 1
      - type: token-usage
        max_total: 15
  - id: fa-exact
    input: resp=fa
    expected_output: {total: 10.5, name: Bob, items: [1, {k: v}], n: "42"}
    assertions:
      - type: field-accuracy
        fields:
          - {path: total, match: exact}
          - {path: name, match: exact}
          - {path: "items[1].k", match: exact}
          - {path: items, match: exact}
          - {path: n, match: exact}
  - id: fa-numeric
    input: resp=fa
    expected_output: {total: 10, zero: 0, s: 41, name: 5}
    assertions:
      - type: field-accuracy
        fields:
          - {path: total, match: numeric_tolerance, tolerance: 0.5}
          - {path: total, match: numeric_tolerance, tolerance: 0.04, relative: true}
          - {path: total, match: numeric_tolerance, tolerance: 0.06, relative: true}
          - {path: zero, match: numeric_tolerance, tolerance: 0.02, relative: true}
          - {path: s, match: numeric_tolerance, tolerance: 1}
          - {path: name, match: numeric_tolerance, tolerance: 1}
  - id: fa-date
    input: resp=fa
    expected_output: {date: "2025-01-15", us: "2025-01-02", iso: "15-JAN-2025"}
    assertions:
      - type: field-accuracy
        fields:
          - {path: date, match: date}
          - {path: us, match: date}
          - {path: iso, match: date}
  - id: fa-required-weight
    input: resp=fa
    expected_output: {total: 11, missing: 1, other: 2, name: Bob}
    assertions:
      - type: field-accuracy
        fields:
          - {path: total, match: exact, weight: 3}
          - {path: missing, match: exact, required: false}
          - {path: other, match: exact}
          - {path: name, match: exact, weight: 2}
          - {path: nothere, match: exact}
  - id: fa-all-or-nothing
    input: resp=fa
    expected_output: {total: 10.5, name: Bobby}
    assertions:
      - type: field-accuracy
        aggregation: all_or_nothing
        fields:
          - {path: total, match: exact}
          - {path: name, match: exact}
  - id: fa-optional-only
    input: resp=fa
    expected_output: {missing: 1}
    assertions:
      - type: field-accuracy
        fields:
          - {path: missing, match: exact, required: false}
      - type: field-accuracy
        name: fa2
        aggregation: all_or_nothing
        fields:
          - {path: missing, match: exact, required: false}
  - id: fa-no-expected
    input: resp=fa
    criteria: something
    assertions:
      - type: field-accuracy
        fields:
          - {path: total, match: exact}
  - id: fa-bad-json
    input: resp=fabad
    expected_output: {total: 1}
    assertions:
      - type: field-accuracy
        fields:
          - {path: total, match: exact}
  - id: fa-expected-string
    input: resp=fa
    expected_output: '{"total": 10.5}'
    assertions:
      - type: field-accuracy
        fields:
          - {path: total, match: exact}
  - id: fa-weighted-zero
    input: resp=fa
    expected_output: {total: 10.5}
    assertions:
      - type: field-accuracy
        fields:
          - {path: total, match: exact, weight: 0}
  - id: tt-any
    input: resp=tools
    assertions:
      - {type: tool-trajectory, mode: any_order, minimums: {Read: 1, grep: 2, Bash: 1}}
  - id: tt-any-none
    input: resp=none
    assertions:
      - {type: tool-trajectory, mode: any_order, minimums: {Read: 0, grep: 1}}
  - id: tt-inorder-default-exact-args
    input: resp=tools
    assertions:
      - type: tool-trajectory
        mode: in_order
        expected:
          - {tool: Read, args: {file_path: /repo/.claude/skills/pdf/SKILL.md}}
          - {tool: grep, args: {pattern: x}}
          - {tool: Bash}
  - id: tt-inorder-superset
    input: resp=tools
    assertions:
      - type: tool-trajectory
        mode: in_order
        args_match: superset
        expected:
          - {tool: grep, args: {pattern: x}}
          - {tool: Edit, args: {file_path: a.go}, args_match: exact}
          - {tool: Bash, args: {command: go test}, max_duration_ms: 1000}
  - id: tt-inorder-latency
    input: resp=tools
    assertions:
      - type: tool-trajectory
        mode: in_order
        expected:
          - {tool: Read, max_duration_ms: 100}
          - {tool: Edit, max_duration_ms: 100}
          - {tool: Write, max_duration_ms: 100}
          - {tool: Bash, max_duration_ms: 2000}
  - id: tt-exact
    input: resp=tools
    assertions:
      - type: tool-trajectory
        mode: exact
        args_match: ignore
        expected:
          - {tool: Read, args: {x: 1}}
          - {tool: grep, max_duration_ms: 400}
          - {tool: Bash}
  - id: tt-exact-short
    input: resp=tools
    assertions:
      - type: tool-trajectory
        mode: exact
        expected: [{tool: Read}, {tool: grep}]
  - id: tt-superset
    input: resp=tools
    assertions:
      - type: tool-trajectory
        mode: superset
        args_match: [pattern]
        expected:
          - {tool: grep, args: {pattern: x, path: other}}
          - {tool: grep}
          - {tool: Bash, args: {command: ls}, args_match: subset}
          - {tool: Read, args: any}
  - id: tt-subset
    input: resp=tools
    assertions:
      - type: tool-trajectory
        mode: subset
        expected:
          - {tool: Read}
          - {tool: grep, args: {pattern: x, path: src, extra: 1}, args_match: subset}
          - {tool: Edit, args: {file_path: a.go}, args_match: superset}
  - id: tt-subset-none
    input: resp=none
    assertions:
      - type: tool-trajectory
        mode: subset
        expected: [{tool: Read}]
  - id: tt-fields-nested
    input: resp=tools
    assertions:
      - type: tool-trajectory
        mode: in_order
        expected:
          - {tool: Bash, args: {command: go test, cwd: /x}, args_match: [command, cwd.deep]}
  - id: tt-io-items
    input: resp=tools
    assertions:
      - type: tool-trajectory
        mode: in_order
        expected:
          - {tool: Edit, input: {file_path: zzz}, output: nope}
  - id: tt-inorder-none
    input: resp=none
    assertions:
      - type: tool-trajectory
        mode: in_order
        expected: [{tool: Read}]
  - id: tt-inorder-empty
    input: resp=tools
    assertions:
      - type: tool-trajectory
        mode: exact
        expected: []
  - id: neg-contains
    input: resp=tools
    assertions:
      - {type: contains, value: total, negate: true}
  - id: req-metrics
    input: resp=tools
    assertions:
      - {type: execution-metrics, max_tool_calls: 3, max_tokens: 200, required: true}
      - {type: contains, value: total}
  - id: req-min
    input: resp=tools
    assertions:
      - {type: execution-metrics, max_tool_calls: 3, max_tokens: 200, required: 0.5}
      - {type: contains, value: total}
  - id: neg-skill
    input: resp=tools
    assertions:
      - {type: skill-trigger, skill: pdf, negate: true}
      - {type: tool-trajectory, mode: any_order, minimums: {Read: 1}, min_score: 0.9, weight: 2}
  - id: fa-two-objects
    input: resp=fatwo
    expected_output: {total: 1}
    assertions:
      - type: field-accuracy
        fields: [{path: total, match: exact}]
  - id: fa-fenced-passed
    input: resp=fafence
    expected_output: {total: 1, passed: false}
    assertions:
      - type: field-accuracy
        fields: [{path: total, match: exact}, {path: passed, match: exact}]
  - id: fa-prose-braces
    input: resp=faprose
    expected_output: {total: 1}
    assertions:
      - type: field-accuracy
        fields: [{path: total, match: exact}]
`

// TestV4Workspace runs a suite with a workspace: its template is copied into a new directory,
// the before_all hook (a real python3 process) gets {"workspace_path": ...} on stdin and the
// path in {{workspace_path}}, and the cli target runs there and sees both the template's file
// and the hook's. AgentV 4.42.4 scores the test 1 on the same files. The workspace is gone
// after the run. A suite whose hook fails runs none of its tests: each is an error naming
// the hook's failure.
func TestV4Workspace(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	requireTools(t, "python3")
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		// The target runs in the workspace, so its script is named by absolute path.
		".agentv/targets.yaml": "targets:\n  - name: default\n    provider: cli\n    command: python3 " +
			filepath.ToSlash(filepath.Join(dir, "agent.py")) + " {OUTPUT_FILE}\n",
		"tpl/seed.txt":  "from template\n",
		"tpl/.git/HEAD": "ref: refs/heads/main\n",
		"hook.py": `import json, os, sys
ctx = json.load(sys.stdin)
assert sys.argv[1] == ctx["workspace_path"], sys.argv
open(os.path.join(ctx["workspace_path"], "hooked.txt"), "w").write("hook ran for " + ctx["test_id"])
`,
		"fail.py": "import sys\nsys.stderr.write('database unreachable\\n')\nsys.exit(4)\n",
		// A code grader is told where the workspace is, and finds the hook's file there.
		"ws_grader.py": `import json, os, sys
p = json.load(sys.stdin)
ws = p.get("workspace_path") or ""
ok = bool(ws) and os.path.isfile(os.path.join(ws, "hooked.txt"))
print(json.dumps({"score": 1 if ok else 0, "assertions": [{"text": "workspace_path " + ws, "passed": ok}]}))
`,
		"agent.py": `import os, sys
parts = [os.getcwd()]
for f in ("seed.txt", "hooked.txt", ".git"):
    parts.append(open(f).read().strip() if os.path.isfile(f) else "no " + f)
open(sys.argv[1], "w").write(" | ".join(parts))
`,
		"evals/ws.eval.yaml": `name: ws
workspace:
  template: ../tpl
  hooks:
    before_all:
      command: [python3, ../hook.py, "{{workspace_path}}"]
tests:
  - id: sees-workspace
    input: hi
    assertions:
      - {type: contains, value: from template}
      - {type: contains, value: hook ran for __before_all__}
      - {type: contains, value: no .git}
      - {type: code-grader, command: [python3, ../ws_grader.py]}
`,
		"evals/broken.eval.yaml": `name: broken
workspace:
  hooks:
    before_all: {command: python3 ../fail.py}
tests:
  - {id: never-runs, input: hi, criteria: anything}
`,
	})
	res := agentv(t, dir, nil, "eval", "evals/ws.eval.yaml")
	if res.code != 0 {
		t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	r := res.byID()["sees-workspace"]
	if r == nil || r.Score != 1 {
		t.Fatalf("record %+v, want score 1", r)
	}
	ws, _, _ := strings.Cut(r.CandidateAnswer, " | ")
	if ws == dir || !strings.Contains(ws, "agentv-workspace-") {
		t.Errorf("the target ran in %q, want a workspace directory", ws)
	}
	if _, err := os.Stat(ws); !os.IsNotExist(err) {
		t.Errorf("workspace %s still there after the run (%v)", ws, err)
	}

	// A case that cannot run makes the run invalid (exit 2), the reason shown.
	res = agentv(t, dir, nil, "eval", "evals/broken.eval.yaml")
	if want := `never-runs: evals/broken.eval.yaml: workspace before_all hook failed: "python3 ../fail.py" exited with code 4: database unreachable`; res.code != 2 || !strings.Contains(res.stdout, want) {
		t.Errorf("exit %d, want 2 and %q in:\n%s", res.code, want, res.stdout)
	}
}
