package differential

import (
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"go.yaml.in/yaml/v4"
)

// Differential suites are AgentV 4.x files meant to run through both agentv and AgentV 4.42.4
// so their results can be compared test by test (test/differential). Everything they need runs
// offline: a cli "agent" (node) that answers from a table keyed by `case:KEY` in the prompt, an
// OpenAI-compatible server the caller runs on loopback for the LM target and every LLM grader,
// and code graders that record the payload they receive.
//
// What the fake server must do (test/differential implements it): for model DiffAgentModel,
// answer "echo: " + the last user message; for model DiffGraderModel, answer a verdict read
// from the prompt:
//   - a score-range prompt ("[[ ## scoring_criteria ## ]]"): each "### Criterion: ID" scores the
//     number in "(s=N)" of its description, else 10;
//   - a rubric prompt ("[[ ## rubrics ## ]]"): each "- [ID]...: outcome" line is satisfied
//     unless the outcome holds "(no)";
//   - a prompt holding "reply=unreadable": text that holds no verdict, every time it is asked;
//   - otherwise a freeform verdict whose score is the first "grade=N" in the prompt, else 1.
const (
	DiffAgentModel  = "fake-agent"
	DiffGraderModel = "fake-grader"
	// DiffPayloadEnv names the directory the payload-recording code graders write to: one
	// file <probe>.json per grader (its config's probe), holding {key path: JSON type}.
	DiffPayloadEnv = "DIFF_PAYLOAD_DIR"
)

// DiffEnv is the environment both programs need besides DiffPayloadEnv: the targets file reads
// the fake server's API key and the model names from it (4.42.4 takes them only from there).
func DiffEnv() []string {
	return []string{"DIFF_FAKE_API_KEY=fake-key", "DIFF_AGENT_MODEL=" + DiffAgentModel, "DIFF_GRADER_MODEL=" + DiffGraderModel}
}

// DiffSuite is what WriteDifferential wrote.
type DiffSuite struct {
	Dir   string     // the root the suites are under
	Files []DiffFile // in name order
}

// DiffFile is one eval file and the targets file to run it with (--targets), both relative to
// the suite's root. A target that one program rejects lives in a targets file of its own, so it
// cannot stop the other suites.
type DiffFile struct {
	Eval, Targets string
	Tests         []string // the ids of its tests
	Args          []string // further flags both programs get for this file alone
}

// diffArgs are the further flags of some files (DiffFile.Args). The built-in grader's model is
// the fake grader's: agentv sends it to OPENAI_BASE_URL, which the caller points at the fake.
var diffArgs = map[string][]string{
	"builtin-grader.eval.yaml": {"--grader-target", "agentv", "--model", "openai:" + DiffGraderModel},
}

// WriteDifferential writes the differential suites under dir. baseURL is the OpenAI-compatible
// server's URL ending in /v1 (both programs append /chat/completions).
func WriteDifferential(dir, baseURL string) (DiffSuite, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return DiffSuite{}, err
	}
	answers, err := json.MarshalIndent(diffAnswers, "", "  ")
	if err != nil {
		return DiffSuite{}, err
	}
	files := map[string]string{
		"targets.yaml":                       diffTargets(baseURL, filepath.Join(abs, "agents", "agent.mjs")),
		"agents/agent.mjs":                   diffAgent,
		"agents/claude-error.mjs":            diffClaudeError,
		"claude.eval.yaml":                   diffClaude,
		"agents/answers.json":                string(answers),
		"nested/agents/agent.mjs":            diffNestedAgent,
		"graders/record.mjs":                 diffRecorder,
		"prompts/custom.md":                  diffCustomPrompt,
		"prompts/aggregator.md":              "Decide grade=0.3 from these results:\n{{EVALUATOR_RESULTS_JSON}}\n",
		"prompts/relative.md":                "Grade it grade=0.4. Criteria {{ criteria }} answer {{ output }}\n",
		"deterministic.eval.yaml":            diffDeterministic(),
		"structured.eval.yaml":               diffStructured,
		"graders.eval.yaml":                  diffGraders,
		"conversation.eval.yaml":             diffConversation,
		"conversation-cli.eval.yaml":         diffConversationCli,
		"nested/cwd.eval.yaml":               diffNested,
		"trials-pass-at-k.yaml":              diffTrials("pass_at_k"),
		"trials-mean.yaml":                   diffTrials("mean"),
		"trials-confidence.yaml":             diffTrials("confidence_interval"),
		"trials-own-pass-at-k.yaml":          diffTrialsOwnThreshold("pass_at_k"),
		"trials-own-mean.yaml":               diffTrialsOwnThreshold("mean"),
		"trials-own-confidence.yaml":         diffTrialsOwnThreshold("confidence_interval"),
		"suite-defaults.eval.yaml":           diffDefaults,
		"invalid.eval.yaml":                  diffInvalid,
		"targets-none.eval.yaml":             diffTargetsNone,
		"prompt-file/prompt-file.eval.yaml":  diffPromptFile,
		"prompt-file/targets.yaml":           diffPromptFileTargets,
		"workspace/hooks.eval.yaml":          diffWorkspace,
		"workspace/template/README.md":       "The suite workspace's template.\n",
		"templates.eval.yaml":                diffTemplates,
		".agentv/templates/city-checks.yaml": diffTemplate,
		"workspace/each.mjs":                 diffEachHook,
		"inputs.eval.yaml":                   diffInputs,
		"builtin-grader.eval.yaml":           diffBuiltinGrader,
		"files/suite.txt":                    "A file every test of inputs.eval.yaml gets unless it names its own.\n",
		"files/own.txt":                      "A test's own input file.\n",
	}
	s := DiffSuite{Dir: dir}
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return DiffSuite{}, err
		}
		mode := os.FileMode(0o644)
		if name == "agents/claude-error.mjs" {
			mode = 0o755 // run as a claude target's executable
		}
		if err := os.WriteFile(p, []byte(body), mode); err != nil {
			return DiffSuite{}, err
		}
		if strings.HasSuffix(name, ".yaml") && path.Base(name) != "targets.yaml" && !strings.HasPrefix(name, ".agentv/") {
			targets := "targets.yaml"
			if t := path.Join(path.Dir(name), "targets.yaml"); files[t] != "" {
				targets = t
			}
			var doc struct{ Tests []struct{ ID string } }
			if err := yaml.Unmarshal([]byte(body), &doc); err != nil {
				return DiffSuite{}, fmt.Errorf("%s: %w", name, err)
			}
			f := DiffFile{Eval: name, Targets: targets, Args: diffArgs[name]}
			for _, t := range doc.Tests {
				f.Tests = append(f.Tests, t.ID)
			}
			s.Files = append(s.Files, f)
		}
	}
	sort.Slice(s.Files, func(i, j int) bool { return s.Files[i].Eval < s.Files[j].Eval })
	return s, nil
}

// diffTargets writes the targets file; agentPath is the agent's absolute path, for the target
// that runs in a suite workspace (a temporary directory with no agent in it).
func diffTargets(baseURL, agentPath string) string {
	return `# Differential targets: a cli agent (cwd relative to the eval file's directory), an
# OpenAI-compatible LM agent and the grader, both on the caller's loopback fake server.
targets:
  - name: cli
    provider: cli
    command: node agent.mjs {PROMPT} {OUTPUT_FILE}
    cwd: agents
    grader_target: grader
  - name: cli-workspace
    provider: cli
    command: node ` + yamlQuote(agentPath) + ` {PROMPT} {OUTPUT_FILE}
    grader_target: grader
  - name: claude-error
    provider: claude
    executable: ` + yamlQuote(filepath.Join(filepath.Dir(agentPath), "claude-error.mjs")) + `
    grader_target: grader
  - name: lm
    provider: openai
    base_url: ` + baseURL + `
    api_key: ${{ DIFF_FAKE_API_KEY }}
    model: ${{ DIFF_AGENT_MODEL }}
    grader_target: grader
  - name: grader
    provider: openai
    base_url: ` + baseURL + `
    api_key: ${{ DIFF_FAKE_API_KEY }}
    model: ${{ DIFF_GRADER_MODEL }}
`
}

// diffAnswer is one canned answer of the cli agent: the JSON its output file holds.
type diffAnswer struct {
	Text       string         `json:"text"`
	Output     []any          `json:"output,omitempty"`
	TokenUsage map[string]int `json:"token_usage,omitempty"`
	CostUSD    float64        `json:"cost_usd,omitempty"`
	DurationMS int            `json:"duration_ms,omitempty"`
}

func toolMsg(text string, calls ...map[string]any) []any {
	return []any{map[string]any{"role": "assistant", "content": text, "tool_calls": calls}}
}

func call(tool string, input map[string]any, output string) map[string]any {
	return map[string]any{"tool": tool, "input": input, "output": output, "duration_ms": 20}
}

// diffAnswers are the cli agent's answers, by the key a test's input names (case:KEY). A key
// with a list of answers (rotate-...) rotates through them, one per call.
var diffAnswers = map[string]any{
	"plain":     diffAnswer{Text: "The capital of France is Paris."},
	"json":      diffAnswer{Text: `{"name":"Ada","age":36,"born":"1815-12-10","city":"London","score":9.5}`},
	"number":    diffAnswer{Text: "5"},
	"day-first": diffAnswer{Text: `{"due":"01/02/2025"}`},
	"padded":    diffAnswer{Text: "  spaced answer  \n"},
	"raw":       map[string]string{"raw": "  raw answer, not JSON  \n"},
	"tools": diffAnswer{
		Text: "Searched twice and fetched once.",
		Output: toolMsg("Searched twice and fetched once.",
			call("search", map[string]any{"q": "paris", "limit": 5}, "results"),
			call("fetch", map[string]any{"url": "https://example.test/a"}, "page"),
			call("search", map[string]any{"q": "france", "limit": 5}, "more results"),
		),
		TokenUsage: map[string]int{"input": 1200, "output": 300},
		CostUSD:    0.02,
		DurationMS: 1500,
	},
	"skill": diffAnswer{
		Text:   "Used the skill.",
		Output: toolMsg("Used the skill.", call("Skill", map[string]any{"skill": "pdf-tools"}, "loaded")),
	},
	// Tool names and inputs spelled every way a payload's key conversion treats differently.
	"camel-tools": diffAnswer{
		Text: "Searched and read.",
		Output: toolMsg("Searched and read.",
			call("webSearch", map[string]any{"maxResults": 5, "query_text": "paris", "Top-K": 1, "filterOpts": map[string]any{"siteURL": "x", "v2Mode": true}}, "results"),
			call("Read", map[string]any{"filePath": "a.txt"}, "text"),
		),
	},
}

// Each trials suite rotates through its own answers: alpha, beta, alpha.
func init() {
	for _, s := range []string{"pass-at-k", "mean", "confidence-interval"} {
		diffAnswers["rotate-"+s] = []diffAnswer{{Text: "alpha"}, {Text: "beta"}, {Text: "alpha"}}
	}
	// The own-threshold trials suites score an answer by how many of five words it holds.
	words := func(n int) diffAnswer {
		return diffAnswer{Text: strings.Join(strings.Fields("one two three four five")[:n], " ") + "."}
	}
	for s, scores := range diffOwnThresholdTrials {
		for level, fifths := range scores {
			rot := make([]diffAnswer, len(fifths))
			for i, n := range fifths {
				rot[i] = words(n)
			}
			diffAnswers["rotate-own-"+s+"-"+level] = rot
		}
	}
}

// diffOwnThresholdTrials are the trial scores (in fifths) of each own-threshold trials test,
// by strategy and the test's threshold (low 0.5, high 0.9). They sit on either side of 0.8,
// where a trial's own verdict passes in 4.42.4, and of the test's threshold, which its status
// uses: pass_at_k low runs on past a trial at 0.6 to the one at 1, pass_at_k high stops at 0.8
// and fails, and a mean or confidence interval below the threshold still passes on one trial
// above it.
var diffOwnThresholdTrials = map[string]map[string][]int{
	"pass-at-k":           {"low": {3, 5, 0}, "high": {4, 5, 5}},
	"mean":                {"low": {3, 0, 0}, "high": {5, 0, 0}},
	"confidence-interval": {"low": {3, 0, 0}, "high": {5, 0, 0}},
}

// The cli agent: finds case:KEY in the prompt (its first argument, or the file after
// --prompt-file) and writes that answer to the output file: as JSON, or verbatim when the answer
// is {raw: text}. Rotating answers count their calls with exclusively created files, so concurrent
// trials stay exact. case:crash exits 3; case:workspace answers marker.txt of its working directory.
const diffAgent = `import fs from 'node:fs';
let [prompt, out] = process.argv.slice(2);
if (prompt === '--prompt-file') [prompt, out] = [fs.readFileSync(out, 'utf8'), process.argv[4]];
const answers = JSON.parse(fs.readFileSync(new URL('./answers.json', import.meta.url), 'utf8'));
const key = (/case:([a-z0-9-]+)/.exec(prompt) || [])[1];
if (key === 'crash') {
  console.error('the agent crashed on purpose');
  process.exit(3);
}
let answer = answers[key] ?? { text: 'no canned answer for ' + key };
if (key === 'echo') answer = { text: 'got: ' + prompt }; // shows what the target was sent
if (key === 'workspace') {
  // Answers what the suite's before_each hook left in the working directory (the workspace).
  answer = { text: fs.existsSync('marker.txt') ? fs.readFileSync('marker.txt', 'utf8') : 'no marker in ' + process.cwd() };
}
if (Array.isArray(answer)) {
  let n = 0;
  for (;; n++) {
    try { fs.writeFileSync(new URL('./.calls-' + key + '-' + n, import.meta.url), '', { flag: 'wx' }); break; }
    catch (e) { if (e.code !== 'EEXIST') throw e; }
  }
  answer = answers[key][n % answers[key].length];
}
fs.writeFileSync(out, answer.raw ?? JSON.stringify(answer));
`

// diffClaudeError stands in for Claude Code: its run ends with an error result (max_turns) and
// no answer, yet exits 0.
const diffClaudeError = `#!/usr/bin/env node
process.stdin.resume();
process.stdin.on('end', () => {
  console.log(JSON.stringify({ type: 'system', subtype: 'init', model: 'fake' }));
  console.log(JSON.stringify({ type: 'result', subtype: 'error_max_turns', is_error: true, result: '',
    errors: ['Reached maximum number of turns (1)'] }));
});
`

const diffClaude = `# A claude target whose run gives no answer.
name: diff-claude
execution:
  target: claude-error
tests:
  - id: claude-error-result
    input: What is six times seven?
    assertions:
      - {type: contains, value: error, negate: true}
`

// The nested agent answers differently, so a test shows which cwd the cli target ran in.
const diffNestedAgent = `import fs from 'node:fs';
const [, out] = process.argv.slice(2);
fs.writeFileSync(out, JSON.stringify({ text: 'nested agent answered' }));
`

// The recording code grader: writes the payload's key paths and JSON types (top level, one level
// into objects, and into the elements of arrays of objects) to $DIFF_PAYLOAD_DIR/<probe>.json,
// then answers config.give_score, or only assertions with config.assertions_only, or fails with
// config.fail (exit 1, a message on stderr).
const diffRecorder = `import fs from 'node:fs';
const payload = JSON.parse(fs.readFileSync(0, 'utf8'));
const type = (v) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
const shape = {};
const config = payload.config ?? {};
for (const [k, v] of Object.entries(payload)) {
  shape[k] = type(v);
  if (k === 'config' && !config.deep) continue; // the grader's own settings, compared by the test itself
  if (type(v) === 'object') for (const [k2, v2] of Object.entries(v)) shape[k + '.' + k2] = type(v2);
  if (type(v) === 'array') for (const el of v) if (type(el) === 'object') for (const [k2, v2] of Object.entries(el)) shape[k + '[].' + k2] = type(v2);
}
// config.deep: every key path below the fields that carry user data (the messages' tool calls,
// not their contents), and which input files (by name) and how many input messages it has.
const walk = (v, p) => {
  shape[p] = type(v);
  if (type(v) === 'object') for (const [k, v2] of Object.entries(v)) walk(v2, p + '.' + k);
  if (type(v) === 'array') for (const el of v) walk(el, p + '[]');
};
if (config.deep) {
  for (const k of ['config', 'metadata', 'input', 'expected_output', 'trace_summary']) if (k in payload) walk(payload[k], k);
  for (const m of payload.messages ?? []) if (m.tool_calls) walk(m.tool_calls, 'messages[].tool_calls');
  (payload.input_files ?? []).forEach((f, i) => (shape['input_files[' + i + ']'] = 'file ' + String(f).split(/[\\\\/]/).pop()));
  if (Array.isArray(payload.input)) shape['input.length'] = 'length ' + payload.input.length;
}
if (config.fail) {
  console.error('the grader failed on purpose');
  process.exit(1);
}
fs.writeFileSync(process.env.` + DiffPayloadEnv + ` + '/' + config.probe + '.json', JSON.stringify(shape, Object.keys(shape).sort(), 1));
if (config.assertions_only) {
  console.log(JSON.stringify({ assertions: [{ text: 'first', passed: true }, { text: 'second', passed: true }, { text: 'third', passed: false }] }));
} else {
  console.log(JSON.stringify({ score: config.give_score ?? 1, assertions: [{ text: 'recorded', passed: true }] }));
}
`

const diffCustomPrompt = `Grade the answer against the criteria.

Criteria: {{ criteria }}
Answer: {{ output }}
Expected: {{ expected_output }}
`

// detCase is one test of the deterministic suite: an answer key and assertion YAML (indented
// for the assertions list).
type detCase struct{ id, key, assertions string }

var detCases = []detCase{
	{"contains-pass", "plain", "- {type: contains, value: Paris}"},
	{"contains-fail", "plain", "- {type: contains, value: London}"},
	{"contains-negate", "plain", "- {type: contains, value: London, negate: true}"},
	{"contains-any-list", "plain", "- {type: contains-any, value: [Rome, Paris]}"},
	{"contains-any-miss", "plain", "- {type: contains-any, value: [Rome, Berlin]}"},
	{"contains-any-scalar", "plain", "- {type: contains-any, value: Paris}"},
	{"contains-all-pass", "plain", "- {type: contains-all, value: [capital, Paris]}"},
	{"contains-all-partial", "plain", "- {type: contains-all, value: [capital, Rome]}"},
	{"icontains", "plain", "- {type: icontains, value: PARIS}"},
	{"icontains-any", "plain", "- {type: icontains-any, value: [ROME, FRANCE]}"},
	{"icontains-all", "plain", "- {type: icontains-all, value: [CAPITAL, paris]}"},
	{"starts-with", "plain", "- {type: starts-with, value: The capital}"},
	{"ends-with", "plain", "- {type: ends-with, value: Paris.}"},
	{"ends-with-fail", "plain", "- {type: ends-with, value: London.}"},
	{"regex", "plain", "- {type: regex, value: 'capital of \\w+'}"},
	{"regex-flags", "plain", "- {type: regex, value: '^the CAPITAL', flags: i}"},
	{"regex-fail", "plain", "- {type: regex, value: '^Paris'}"},
	// JavaScript's regexes: lookaround, named groups and backreferences.
	{"regex-lookahead", "plain", "- {type: regex, value: 'capital(?= of France)'}"},
	{"regex-negative-lookahead", "plain", "- {type: regex, value: '^(?!The)'}"},
	{"regex-lookbehind-named", "plain", "- {type: regex, value: '(?<=is )(?<first>P)\\w+\\.$'}"},
	{"regex-backreference", "plain", "- {type: regex, value: '(?<c>[a-z])\\k<c>|(s).*\\2', flags: i}"},
	{"is-json-pass", "json", "- {type: is-json}"},
	{"is-json-fail", "plain", "- {type: is-json}"},
	{"equals-pass", "plain", "- {type: equals, value: The capital of France is Paris.}"},
	{"equals-fail", "plain", "- {type: equals, value: Paris}"},
	{"equals-number", "number", "- {type: equals, value: 5}"},
	{"untrimmed-answer", "padded", "- {type: starts-with, value: '  spaced'}\n- {type: equals, value: spaced answer}"},
	{"untrimmed-raw-answer", "raw", "- {type: starts-with, value: '  raw'}\n- {type: ends-with, value: \"JSON  \\n\"}\n- {type: equals, value: 'raw answer, not JSON'}"},
	{"field-accuracy", "json", `- type: field-accuracy
  fields:
    - {path: name, match: exact, expected: Ada}
    - {path: age, match: numeric_tolerance, expected: 35, tolerance: 2}
    - {path: born, match: date, expected: "1815-12-10"}
    - {path: city, match: exact, expected: Paris, weight: 2}
  aggregation: weighted_average`},
	{"field-accuracy-expected-output", "json", `- type: field-accuracy
  fields:
    - {path: name, match: exact}
    - {path: score, match: numeric_tolerance, tolerance: 0.1, relative: true}
    - {path: missing, match: exact, required: true}`},
	{"weights", "plain", "- {type: contains, value: Paris, weight: 3}\n- {type: contains, value: Rome, weight: 1}"},
	{"required-fails", "plain", "- {type: contains, value: Rome, required: true, weight: 0.1}\n- {type: contains, value: Paris}"},
	{"min-score", "plain", "- {type: contains-all, value: [Paris, Rome], min_score: 0.4}\n- {type: contains, value: Paris}"},
	{"named-assertion", "plain", "- {name: has-city, type: icontains, value: paris}"},
	{"vars", "plain", "- {type: contains, value: '{{city}}'}"},
	// 4.42.4 reads 01/02/2025 as January 2 whatever formats says (docs contradiction).
	{"field-accuracy-day-first", "day-first", `- type: field-accuracy
  fields:
    - {path: due, match: date, formats: [DD/MM/YYYY]}`},
}

// detExtra are tests whose graders sit elsewhere than under assertions.
const detExtra = `  - id: execution-assertions
    criteria: Names Paris grade=1
    input: case:plain
    execution:
      assertions:
        - {type: contains, value: Paris}
        - {type: contains, value: Rome}
  - id: execution-evaluators
    criteria: Names Paris grade=1
    input: case:plain
    execution:
      evaluators:
        - {type: contains, value: Paris}
  - id: agent-crash
    input: case:crash
    assertions:
      - {type: contains, value: Paris}
  - id: depends-on-crash
    input: case:plain
    depends_on: [agent-crash]
    assertions:
      - {type: contains, value: Paris}
  - id: depends-on-pass
    input: case:plain
    depends_on: [contains-pass]
    assertions:
      - {type: contains, value: Paris}
`

func diffDeterministic() string {
	var b strings.Builder
	b.WriteString("# Every deterministic assertion type, each alone in a test where it matters.\nname: diff-deterministic\nexecution:\n  target: cli\ntests:\n")
	for _, c := range detCases {
		fmt.Fprintf(&b, "  - id: %s\n    input: 'case:%s'\n", c.id, c.key)
		switch c.id {
		case "field-accuracy-expected-output":
			b.WriteString("    expected_output: {name: Ada, score: 9.0, missing: 1}\n")
		case "field-accuracy-day-first":
			b.WriteString("    expected_output: {due: \"2025-02-01\"}\n")
		case "vars":
			b.WriteString("    vars: {city: Paris}\n")
		}
		b.WriteString("    assertions:\n")
		for _, line := range strings.Split(c.assertions, "\n") {
			b.WriteString("      " + line + "\n")
		}
	}
	b.WriteString(detExtra)
	return b.String()
}

const diffStructured = `# Tool calls, usage, cost and duration from the cli agent's output file.
name: diff-structured
execution:
  target: cli
tests:
  - id: trajectory-any-order
    input: case:tools
    assertions:
      - {type: tool-trajectory, mode: any_order, minimums: {search: 2, fetch: 1}}
  - id: trajectory-any-order-short
    input: case:tools
    assertions:
      - {type: tool-trajectory, mode: any_order, minimums: {search: 3}}
  - id: trajectory-in-order
    input: case:tools
    assertions:
      - type: tool-trajectory
        mode: in_order
        expected: [{tool: search}, {tool: search}]
  - id: trajectory-exact
    input: case:tools
    assertions:
      - type: tool-trajectory
        mode: exact
        expected: [{tool: search}, {tool: fetch}, {tool: search}]
  - id: trajectory-exact-wrong
    input: case:tools
    assertions:
      - type: tool-trajectory
        mode: exact
        expected: [{tool: fetch}, {tool: search}, {tool: search}]
  - id: trajectory-superset
    input: case:tools
    assertions:
      - type: tool-trajectory
        mode: superset
        expected: [{tool: fetch}, {tool: open}]
  - id: trajectory-subset
    input: case:tools
    assertions:
      - type: tool-trajectory
        mode: subset
        expected: [{tool: search}, {tool: fetch}, {tool: open}]
  - id: trajectory-args
    input: case:tools
    assertions:
      - type: tool-trajectory
        mode: in_order
        args_match: superset
        expected:
          - {tool: search, args: {q: paris}}
          - {tool: search, args: {q: spain}}
  - id: trajectory-args-ignore
    input: case:tools
    assertions:
      - type: tool-trajectory
        mode: exact
        expected:
          - {tool: search, args: {q: wrong}, args_match: ignore}
          - {tool: fetch, args: any}
          - {tool: search, args: {q: france, limit: 5}, args_match: exact}
  - id: execution-metrics-pass
    input: case:tools
    assertions:
      - {type: execution-metrics, max_tool_calls: 5, max_tokens: 2000, max_cost_usd: 0.05, max_duration_ms: 2000}
  - id: execution-metrics-fail
    input: case:tools
    assertions:
      - {type: execution-metrics, max_tool_calls: 2, max_tokens: 1000, max_cost_usd: 0.05}
  - id: latency
    input: case:tools
    assertions:
      - {type: latency, threshold: 1000}
  - id: cost
    input: case:tools
    assertions:
      - {type: cost, budget: 0.05}
  - id: token-usage
    input: case:tools
    assertions:
      - {type: token-usage, max_total: 1400}
      - {type: token-usage, max_input: 1500, max_output: 400}
  - id: skill-trigger
    input: case:skill
    assertions:
      - {type: skill-trigger, skill: pdf-tools}
      - {type: skill-trigger, skill: xlsx, should_trigger: false}
  - id: skill-not-triggered
    input: case:plain
    assertions:
      - {type: skill-trigger, skill: pdf-tools}
`

const diffGraders = `# Code graders (recording their payload), LLM graders, rubrics and composites.
name: diff-graders
execution:
  target: cli
tests:
  - id: code-grader-payload
    criteria: The answer names Paris.
    input: case:plain
    expected_output: The capital of France is Paris.
    metadata: {owner: geo-team, priority: 2}
    assertions:
      - {name: recorder, type: code-grader, command: [node, graders/record.mjs], probe: code-grader-payload, give_score: 0.7}
  - id: code-grader-tools-payload
    criteria: Uses tools.
    input: [{role: user, content: "case:tools"}]
    assertions:
      - {name: recorder, type: code-grader, command: [node, graders/record.mjs], probe: code-grader-tools-payload, give_score: 1}
  - id: code-grader-assertions-only
    input: case:plain
    assertions:
      - {name: recorder, type: code-grader, command: [node, graders/record.mjs], probe: code-grader-assertions-only, assertions_only: true}
  - id: code-grader-config
    input: case:plain
    assertions:
      - name: recorder
        type: code-grader
        command: [node, graders/record.mjs]
        config: {probe: code-grader-config, give_score: 0.25}
  - id: llm-grader-freeform
    criteria: Names the capital grade=0.6
    input: case:plain
    assertions:
      - {type: llm-grader}
  - id: llm-grader-negated
    criteria: Names the capital grade=0.7
    input: case:plain
    assertions:
      - {type: llm-grader, negate: true}
  - id: llm-grader-min-score
    criteria: Names the capital grade=0.7
    input: case:plain
    assertions:
      - {type: llm-grader, min_score: 0.5, required: true}
  - id: criteria-only
    criteria: Names Paris grade=0.9
    input: case:plain
  - id: llm-grader-custom-prompt
    criteria: Says Paris grade=0.5
    input: case:plain
    assertions:
      - {name: custom, type: llm-grader, prompt: file://prompts/custom.md}
  - id: llm-grader-inline-prompt
    criteria: Says Paris
    input: case:plain
    assertions:
      - {name: inline, type: llm-grader, prompt: "Score it grade=0.3. Criteria {{ criteria }} answer {{ output }}"}
  - id: plain-string-criteria
    input: case:plain
    assertions:
      - Names Paris
      - Names Rome (no)
  - id: rubrics-weighted
    input: case:plain
    assertions:
      - type: rubrics
        criteria:
          - {id: city, outcome: Names Paris, weight: 3}
          - {id: country, outcome: Names Spain (no), weight: 1}
  - id: rubrics-required
    input: case:plain
    assertions:
      - type: rubrics
        criteria:
          - {id: city, outcome: Names Paris}
          - {id: must, outcome: Names Rome (no), required: true}
          - {id: extra, outcome: Is polite}
  - id: rubrics-score-ranges
    input: case:plain
    assertions:
      - type: rubrics
        criteria:
          - id: accuracy
            outcome: Accurate (s=7)
            score_ranges: {0: wrong, 5: partly, 8: right}
          - id: style
            outcome: Clear (s=10)
            weight: 2
            score_ranges: {0: unclear, 6: clear}
  - id: composite-weighted
    input: case:plain
    assertions:
      - name: combo
        type: composite
        assertions:
          - {name: a, type: contains, value: Paris}
          - {name: b, type: contains, value: Rome}
        aggregator: {type: weighted_average, weights: {a: 3, b: 1}}
  - id: composite-threshold
    input: case:plain
    assertions:
      - name: gate
        type: composite
        assertions:
          - {name: a, type: contains, value: Paris}
          - {name: b, type: contains, value: France}
          - {name: c, type: contains, value: Rome}
        aggregator: {type: threshold, threshold: 0.6}
  - id: composite-member-weight
    input: case:plain
    assertions:
      - name: combo
        type: composite
        assertions:
          - {name: a, type: contains, value: Paris, weight: 3}
          - {name: b, type: contains, value: Rome, weight: 1}
        aggregator: {type: weighted_average}
  - id: composite-unnamed-member
    input: case:plain
    assertions:
      - name: combo
        type: composite
        assertions:
          - {name: a, type: contains, value: Paris}
          - {type: contains, value: Rome}
        aggregator: {type: weighted_average}
  - id: code-grader-fails
    input: case:plain
    assertions:
      - {type: contains, value: Paris}
      - {name: broken, type: code-grader, command: [node, graders/record.mjs], probe: code-grader-fails, fail: true}
  - id: code-grader-fails-negated
    input: case:plain
    assertions:
      - {name: broken, type: code-grader, command: [node, graders/record.mjs], probe: code-grader-fails-negated, fail: true, negate: true}
  - id: composite-no-aggregator
    input: case:plain
    assertions:
      - {type: contains, value: Paris}
      - name: combo
        type: composite
        assertions:
          - {name: a, type: contains, value: Rome}
  - id: llm-grader-unreadable
    criteria: Names Paris reply=unreadable
    input: case:plain
    assertions:
      - {type: contains, value: Paris}
      - {name: unreadable, type: llm-grader}
  - id: mixed-graders
    criteria: Answers the question grade=0.8
    input: case:plain
    assertions:
      - {type: contains, value: Paris}
      - {type: llm-grader, weight: 2}
      - {name: recorder, type: code-grader, command: [node, graders/record.mjs], probe: mixed-graders, give_score: 0.5}
  - id: aggregator-prompt-file
    input: case:plain
    assertions:
      - name: judged
        type: composite
        assertions:
          - {name: a, type: contains, value: Paris}
        aggregator: {type: llm-grader, prompt: file://prompts/aggregator.md}
  - id: llm-grader-relative-prompt
    criteria: Says Paris
    input: case:plain
    assertions:
      - {name: relative, type: llm-grader, prompt: ./prompts/relative.md}
`

const diffConversation = `# Conversations on the LM target (the fake server echoes each turn's input).
name: diff-conversation
execution:
  target: lm
tests:
  - id: conversation-mean
    mode: conversation
    input: case:conversation
    turns:
      - input: first turn apples
        assertions: [{type: contains, value: apples}]
      - input: second turn pears
        assertions: [{type: contains, value: apples}]
      - input: third turn plums
        assertions: [{type: contains, value: plums}]
  - id: conversation-min
    mode: conversation
    input: case:conversation
    aggregation: min
    turns:
      - input: one apples
        assertions: [{type: contains, value: apples}]
      - input: two pears
        assertions: [{type: contains, value: apples}]
  - id: conversation-stop
    mode: conversation
    input: case:conversation
    on_turn_failure: stop
    turns:
      - input: one apples
        assertions: [{type: contains, value: pears}]
      - input: two pears
        assertions: [{type: contains, value: pears}]
  - id: lm-single
    input: what is the capital
    assertions:
      - {type: contains, value: "echo: what is the capital"}
      - {type: llm-grader}
`

// DiffTurnFolders are the tests whose conversation turns 4.42.4 can send to a cli target only
// when the folder $TMPDIR/agentv-<id> exists: it writes a turn's prompt file to
// agentv-<id>/turn-N-….prompt.txt there (providers/cli.ts:803) and fails every turn without
// it. The caller makes these folders in the TMPDIR both programs run with, so the comparison
// reaches what the target is sent; conv-cli-no-folder is left without one.
var DiffTurnFolders = []string{"conv-cli-turn-alone", "conv-cli-crash-max"}

const diffConversationCli = `# Conversations on the cli target, which answers "got: " and the prompt it was sent.
name: diff-conversation-cli
execution:
  target: cli
tests:
  # 4.42.4 sends an agent target the turn's input alone: the second answer has no apples.
  - id: conv-cli-turn-alone
    mode: conversation
    input: You are helpful.
    turns:
      - input: case:echo one apples
        assertions: [{type: contains, value: apples}]
      - input: case:echo two pears
        assertions: [{type: contains, value: apples}]
  # The agent fails the first turn; by max, 4.42.4 lets the second carry the test.
  - id: conv-cli-crash-max
    mode: conversation
    aggregation: max
    input: You are helpful.
    turns:
      - input: case:crash
        assertions: [{type: contains, value: got}]
      - input: case:echo fine
        assertions: [{type: contains, value: got}]
  # No folder for 4.42.4's prompt files: every turn fails there.
  - id: conv-cli-no-folder
    mode: conversation
    input: You are helpful.
    turns:
      - input: case:echo one
        assertions: [{type: contains, value: got}]
`

const diffNested = `# An eval file below the targets file: the cli target's relative cwd is this directory's.
name: diff-nested
execution:
  target: cli
tests:
  - id: cwd-relative-to-eval-file
    input: case:plain
    assertions:
      - {type: equals, value: nested agent answered}
`

func diffTrials(strategy string) string {
	key := strings.ReplaceAll(strategy, "_", "-")
	return `# Trials: the answer rotates through alpha, beta, alpha across calls.
name: diff-trials-` + key + `
execution:
  target: cli
  trials: {count: 3, strategy: ` + strategy + `}
tests:
  - id: trials-` + strategy + `
    input: case:rotate-` + key + `
    assertions:
      - {type: contains, value: alpha}
`
}

// diffTrialsOwnThreshold is a trials suite whose tests set their own execution.threshold, one
// below 0.8 and one above (see diffOwnThresholdTrials).
func diffTrialsOwnThreshold(strategy string) string {
	key := strings.ReplaceAll(strategy, "_", "-")
	test := func(level, threshold string) string {
		return `  - id: trials-own-` + key + `-` + level + `
    input: case:rotate-own-` + key + `-` + level + `
    execution: {threshold: ` + threshold + `}
    assertions: [{type: contains, value: one}, {type: contains, value: two}, {type: contains, value: three}, {type: contains, value: four}, {type: contains, value: five}]
`
	}
	return `# Trials whose tests set their own threshold: each answer scores the share of five words it holds.
name: diff-trials-own-` + key + `
execution:
  target: cli
  trials: {count: 3, strategy: ` + strategy + `}
tests:
` + test("low", "0.5") + test("high", "0.9")
}

const diffDefaults = `# Suite-level assertions, input and threshold.
name: diff-defaults
execution:
  target: cli
  threshold: 0.5
input: 'case:plain'
assertions:
  - {name: suite-contains, type: contains, value: Paris}
tests:
  - id: defaults-merged
    input: extra words
    assertions:
      - {type: contains, value: Rome}
  - id: defaults-skipped
    input: extra words
    execution: {skip_defaults: true}
    assertions:
      - {type: contains, value: Rome}
  - id: own-threshold
    input: extra words
    execution: {threshold: 0.9}
    assertions:
      - {type: contains, value: Paris}
      - {type: contains-all, value: [Paris, Rome, Berlin, Madrid, Lisbon, Vienna, Oslo, Bern, Kyiv, Riga]}
`

// diffInvalid holds settings 4.42.4 drops (with a warning or without a word) and agentv
// refuses with a positioned load error: those tests are missing on agentv's side. Each is a
// row of docs/agentv-4.md's deliberate differences; the control test runs on both.
const diffInvalid = `# Settings agentv refuses and 4.42.4 drops, each beside a check that passes.
name: diff-invalid
execution:
  target: cli
tests:
  - id: invalid-control
    input: case:plain
    assertions:
      - {type: contains, value: Paris}
  - id: invalid-missing-value
    input: case:plain
    assertions:
      - {type: contains, value: Paris}
      - {type: contains}
  - id: invalid-required-2
    input: case:plain
    assertions:
      - {type: contains, value: Paris}
      - {type: contains, value: Rome, required: 2, weight: 0.01}
  - id: invalid-rubric-without-outcome
    input: case:plain
    rubrics:
      - {id: rome, description: Names Rome (no)}
    assertions:
      - {type: contains, value: Paris}
  - id: invalid-conversation-mode
    mode: conversaton
    input: case:plain
    turns:
      - input: case:plain
        assertions: [{type: contains, value: Rome}]
    assertions:
      - {type: contains, value: Paris}
`

// diffTargetsNone runs on two targets; one test names neither (4.42.4 drops it without a word,
// agentv records it as an error), the other names one, so each test id has one record.
const diffTargetsNone = `# A test whose execution.targets names none of the suite's targets.
name: diff-targets-none
execution:
  targets: [cli, cli-workspace]
tests:
  - id: targets-control
    input: case:plain
    execution: {targets: [cli]}
    assertions:
      - {type: contains, value: Paris}
  - id: targets-none
    input: case:plain
    execution: {targets: [no-such-target]}
    assertions:
      - {type: contains, value: Paris}
`

const diffPromptFileTargets = `targets:
  - name: cli-prompt-file
    provider: cli
    command: node agent.mjs --prompt-file {PROMPT_FILE} {OUTPUT_FILE}
    cwd: ../agents
`

const diffPromptFile = `# The cli target reads its prompt from {PROMPT_FILE}.
name: diff-prompt-file
execution:
  target: cli-prompt-file
tests:
  - id: prompt-file
    input: case:plain
    assertions:
      - {type: contains, value: Paris}
`

const diffWorkspace = `# A suite workspace whose before_each hook leaves a marker the agent answers with.
name: diff-workspace
execution:
  target: cli-workspace
workspace:
  template: template
  hooks:
    before_each:
      command: [node, each.mjs]
tests:
  - id: before-each-hook
    input: case:workspace
    assertions:
      - {type: contains, value: before_each ran for before-each-hook}
`

// The before_each hook writes marker.txt into the workspace named on its stdin.
const diffEachHook = `import fs from 'node:fs';
import path from 'node:path';
const ctx = JSON.parse(fs.readFileSync(0, 'utf8'));
fs.writeFileSync(path.join(ctx.workspace_path, 'marker.txt'), 'before_each ran for ' + ctx.test_id);
`

const diffTemplates = `# Assertion templates (include:), an llm-grader's rubrics: key and metadata in a grader prompt.
name: diff-templates
execution:
  target: cli
tests:
  - id: include-template
    input: case:plain
    assertions:
      - include: city-checks
      - {type: contains, value: France}
  - id: llm-grader-rubrics-key
    input: case:plain
    assertions:
      - type: llm-grader
        rubrics:
          - {id: city, outcome: Names Paris}
          - {id: river, outcome: Names the Seine (no)}
  - id: metadata-template-vars
    input: case:plain
    metadata: {hint: grade=0.4}
    assertions:
      - {name: meta, type: llm-grader, prompt: "Metadata {{ metadata }} answer {{ output }}"}
`

// An assertion template, found by name in .agentv/templates.
const diffTemplate = `assertions:
  - {type: contains, value: Paris}
  - {type: contains, value: Rome}
`

// diffInputs: which input files and input messages a test gets when the suite and the test both
// set them (a test's input_files replaces the suite's, its input is added after the suite's), and
// the keys of the user data a code grader's payload carries: config, metadata, input and expected
// output contents, tool names and inputs (4.42.4 snake_cases every key that does not start with a
// capital).
const diffInputs = `# Suite and test input_files and input; the key spelling of a code grader's payload.
name: diff-inputs
execution:
  target: cli
input: Answer briefly.
input_files: [files/suite.txt]
tests:
  - id: input-files-suite
    input: case:plain
    assertions:
      - {name: recorder, type: code-grader, command: [node, graders/record.mjs], probe: input-files-suite, deep: true}
  - id: input-files-own
    input: case:plain
    input_files: [files/own.txt]
    assertions:
      - {name: recorder, type: code-grader, command: [node, graders/record.mjs], probe: input-files-own, deep: true}
  - id: input-files-null
    input: case:plain
    input_files: null
    assertions:
      - {name: recorder, type: code-grader, command: [node, graders/record.mjs], probe: input-files-null, deep: true}
  - id: input-files-skip-defaults
    input: case:plain
    execution: {skip_defaults: true}
    assertions:
      - {name: recorder, type: code-grader, command: [node, graders/record.mjs], probe: input-files-skip-defaults, deep: true}
  - id: payload-key-case
    input: {question: 'case:camel-tools', userName: ada, already_snake: 1, HTTPMode: fast, 'kebab-key': 2}
    execution: {skip_defaults: true}
    expected_output: {riskLevel: High, score_v2: 1, nestedObj: {innerKey: 1, XMLName: a}}
    metadata: {ownerTeam: geo, sub_area: maps, Region: EU, items: [{itemID: 1}]}
    assertions:
      - name: recorder
        type: code-grader
        command: [node, graders/record.mjs]
        probe: payload-key-case
        deep: true
        riskLevel: high
        userID: 7
        max-depth: 2
        already_snake: 1
        HTTPMode: x
        a1B2: 3
        nestedObj: {innerKey: 1, listOf: [{deepKey: 2}]}
`

const diffBuiltinGrader = `# Run with --grader-target agentv --model openai:fake-grader (diffArgs). 4.42.4 runs its
# built-in grader as an agent in the test's workspace, and a suite without one scores each LLM
# grader 0 without grading it, which negate turns into a pass; agentv grades the answer.
name: diff-builtin-grader
execution:
  target: cli
tests:
  - id: builtin-grader
    criteria: Names the capital grade=0.6
    input: case:plain
    assertions:
      - {type: llm-grader}
  - id: builtin-grader-negated
    criteria: Names the capital.
    input: case:plain
    assertions:
      - {type: llm-grader, prompt: "Does the answer insult the reader? grade=1", negate: true}
`

// yamlQuote is s as a single-quoted YAML scalar.
func yamlQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
