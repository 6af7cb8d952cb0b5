package e2e_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentv/action/results"
)

// sdk442Project is an AgentV 4.x project whose graders are written with @agentv/sdk: a code
// grader, a custom assertion, an llm-grader's prompt template, and a grader in Python that
// applies the checks of 4.42.4's Python helper. Its cli target answers with tool calls, usage
// and cost, so the payload carries a full trace; its config, metadata and tool inputs have
// camelCase keys, which 4.42.4 sends snake_cased and its SDK camelCases back. Each grader fails
// (score 0, naming the check) when the payload lacks what 4.42.4 sends, and errors when the SDK
// refuses the payload.
var sdk442Project = map[string]string{
	".git/HEAD": "ref: refs/heads/main\n",
	".agentv/targets.yaml": `targets:
  - name: default
    provider: cli
    command: python3 agent.py {OUTPUT_FILE}
  - name: judge
    provider: mock
    response: '{"score": 1, "assertions": [{"text": "fine", "passed": true}]}'
`,
	"evals/template.mjs": `import { definePromptTemplate } from '@agentv/sdk';

// An llm-grader's prompt built from the payload; the SDK refuses one 4.42.4's would refuse.
definePromptTemplate(({ criteria, answer, trace }) => ` + "`Criteria: ${criteria}\nAnswer: ${answer}\nEvents: ${trace?.events.length}`" + `);
`,
	"evals/agent.py": `import json, sys
out = {"text": "It says hello.", "output": [
    {"role": "assistant", "content": "Reading it.", "tool_calls": [
        {"tool": "read_file", "input": {"filePath": "a.txt"}, "output": "hello", "id": "c1", "duration_ms": 12}]},
    {"role": "tool", "content": "hello"},
    {"role": "assistant", "content": "It says hello."}],
    "token_usage": {"input": 10, "output": 5}, "cost_usd": 0.01, "duration_ms": 123}
open(sys.argv[1], "w").write(json.dumps(out))
`,
	".agentv/assertions/transcript.ts": `import { defineAssertion } from '@agentv/sdk';

// The trace as 4.42.4 builds it: one event per message, tool call, tool result, and the
// final response; and the test's metadata.
export default defineAssertion(({ output, trace, traceSummary, metadata, config }) => {
  const events = trace?.events ?? [];
  const checks: [string, boolean][] = [
    ['events in order', events.map((e) => e.type).join(',') === 'message,message,tool_call,tool_result,message,message,final_response'],
    ['tool call event', events.some((e) => e.type === 'tool_call' && e.tool?.name === 'read_file' && e.tool?.callId === 'c1')],
    ['tool input', trace?.messages?.[1]?.toolCalls?.[0]?.input?.filePath === 'a.txt'],
    ['final response is the answer', events.at(-1)?.message?.content === output],
    ['trace messages', (trace?.messages ?? []).map((m) => m.role).join(',') === 'user,assistant,tool,assistant'],
    ['summary', traceSummary?.toolCalls?.readFile === 1 && traceSummary?.llmCallCount === 2],
    ['metadata', metadata?.owner === 'team-a' && Array.isArray(metadata?.tags) && metadata?.ownerTeam === 'geo'],
    ['config', config?.minEvents === 3 && config?.riskLevel === 'high'],
  ];
  const failed = checks.filter(([, ok]) => !ok).map(([name]) => name);
  return {
    pass: failed.length === 0,
    assertions: checks.map(([text, passed]) => ({ text, passed })),
  };
});
`,
	"evals/grader.mjs": `import { defineCodeGrader } from '@agentv/sdk';

defineCodeGrader(({ criteria, output, input, expectedOutput, messages, tokenUsage, costUsd, inputFiles, fileChanges }) => {
  const checks = [
    ['criteria', criteria === 'Reads the file'],
    ['output', output === 'It says hello.'],
    ['input', input.length === 1 && input[0].content === 'What does a.txt say?'],
    ['expected output', expectedOutput[0]?.content === 'It says hello.'],
    ['messages', messages.length === 4 && messages[1].toolCalls?.[0]?.tool === 'read_file'],
    ['usage', tokenUsage?.input === 10 && costUsd === 0.01],
    ['input files', Array.isArray(inputFiles)],
    ['file changes', fileChanges === null || fileChanges === undefined],
  ];
  return {
    score: checks.every(([, ok]) => ok) ? 1 : 0,
    assertions: checks.map(([text, passed]) => ({ text, passed })),
  };
});
`,
	// The checks of 4.42.4's Python helper (docs: apps/web/src/content/docs/docs/graders/
	// python-helpers.mdx at v4.42.4, "Canonical fields only"): deprecated wire aliases are not
	// accepted, the canonical fields are read. It is not on a registry reachable here, so this
	// grader applies the same checks with the standard library.
	"evals/python_grader.py": `import json, sys

DEPRECATED = ["output_text", "input_text", "reference_answer", "question", "expected_outcome",
              "candidate_answer", "actual_output", "output_messages", "input_messages",
              "expected_messages", "guideline_files"]
payload = json.load(sys.stdin)
old = [k for k in DEPRECATED if k in payload]
if old:
    sys.stderr.write("Deprecated wire fields are not accepted: " + ", ".join(old) + "\n")
    sys.exit(1)
checks = [
    ("input", isinstance(payload.get("input"), list)),
    ("input_files", isinstance(payload.get("input_files"), list)),
    ("output", payload.get("output") == "It says hello."),
    ("expected_output", payload["expected_output"][0]["content"] == "It says hello."),
    ("trace", isinstance(payload["trace"]["events"], list) and isinstance(payload["trace"]["messages"], list)),
    ("trace_summary", payload["trace_summary"]["tool_calls"] == {"read_file": 1}),
    # 4.42.4 snake_cases every key that does not start with a capital, the user's too.
    ("config", payload["config"] == {"risk_level": "high", "HTTPMode": "x"}),
    ("metadata", payload["metadata"].get("owner_team") == "geo"),
    ("tool input", payload["messages"][1]["tool_calls"][0]["input"] == {"file_path": "a.txt"}),
]
print(json.dumps({"score": 1 if all(ok for _, ok in checks) else 0,
                  "assertions": [{"text": t, "passed": ok} for t, ok in checks]}))
`,
	"evals/sdk.eval.yaml": `name: sdk
metadata:
  owner: team-a
tests:
  - id: graders
    criteria: Reads the file
    input: What does a.txt say?
    expected_output: It says hello.
    metadata:
      tags: [files]
      ownerTeam: geo
    assertions:
      - type: transcript
        min_events: 3
        riskLevel: high
      - type: code-grader
        command: [node, grader.mjs]
      - type: code-grader
        name: python
        command: [python3, python_grader.py]
        riskLevel: high
        HTTPMode: x
      - type: llm-grader
        name: template
        target: judge
        prompt:
          command: [node, template.mjs]
`,
}

// runSDKProject runs sdk442Project with node_modules (nil: none, so agentv's own @agentv/sdk
// serves the imports) and checks every grader scored 1.
func runSDKProject(t *testing.T, nodeModules string) {
	t.Helper()
	requireTools(t, "python3", "node")
	if _, errBun := exec.LookPath("bun"); errBun != nil {
		requireTools(t, "tsx") // the custom assertion is TypeScript
	}
	dir := t.TempDir()
	writeFiles(t, dir, sdk442Project)
	if nodeModules != "" {
		if err := os.Symlink(nodeModules, filepath.Join(dir, "node_modules")); err != nil {
			t.Fatal(err)
		}
	}
	res := agentv(t, dir, nil, "eval", "evals/sdk.eval.yaml")
	rec := res.byID()["graders"]
	if rec == nil {
		t.Fatalf("exit %d, no record\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	checkAllOne(t, rec)
	if res.code != 0 {
		t.Errorf("exit %d\nstdout:\n%s", res.code, res.stdout)
	}
}

func checkAllOne(t *testing.T, rec *results.Record) {
	t.Helper()
	if len(rec.EvaluatorResults) != 4 {
		t.Fatalf("%d grader results, want 4: %+v", len(rec.EvaluatorResults), rec.EvaluatorResults)
	}
	for _, er := range rec.EvaluatorResults {
		if er.Score != 1 || er.Error != "" {
			t.Errorf("%s: score %v, error %q, misses %v", er.Name, er.Score, er.Error, er.Misses)
		}
	}
}

// TestSDK442RealPackage runs the project's graders on the real @agentv/sdk 4.42.4, found in
// $AGENTV_TEST_SDK442_DIR/node_modules: a copy the developer provides, since the npm registry does
// not serve it and this repository builds nothing from AgentV's source.
// The user's own node_modules wins over the copy agentv carries.
func TestSDK442RealPackage(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	dir := os.Getenv("AGENTV_TEST_SDK442_DIR")
	if dir == "" {
		t.Skip("AGENTV_TEST_SDK442_DIR is not set: no real @agentv/sdk 4.42.4 to run graders with (see .ci/run)")
	}
	pkg := filepath.Join(dir, "node_modules", "@agentv", "sdk", "package.json")
	raw, err := os.ReadFile(pkg)
	if err != nil {
		t.Skipf("AGENTV_TEST_SDK442_DIR has no @agentv/sdk: %v", err)
	}
	if !strings.Contains(string(raw), `"version": "4.42.4"`) {
		t.Fatalf("%s is not version 4.42.4", pkg)
	}
	runSDKProject(t, filepath.Join(dir, "node_modules"))
}

// TestSDK442Bundled runs the same graders on the @agentv/sdk agentv carries, which checks the
// payload at least as strictly as 4.42.4's.
func TestSDK442Bundled(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	runSDKProject(t, "")
}
