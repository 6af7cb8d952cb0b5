package e2e_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// workerProject is a 4.x project whose JavaScript graders (a code grader, a custom assertion, a
// prompt template) and Python graders (a code grader, a prompt template; 4.x custom assertions
// are TypeScript or JavaScript) append which process served them to a file: the JavaScript ones their pid, the Python ones
// the name of their parent process (a fork server's child has python3 for a parent).
var workerProject = map[string]string{
	".git/HEAD": "ref: refs/heads/main\n",
	".agentv/targets.yaml": `targets:
  - name: default
    provider: mock
    response: '42'
  - name: judge
    provider: mock
    response: '{"score": 1, "assertions": [{"text": "fine", "passed": true}]}'
`,
	".agentv/assertions/served.ts": `import { appendFileSync } from 'node:fs';
import { defineAssertion } from '@agentv/sdk';
export default defineAssertion(({ output }) => {
  appendFileSync('js-assertion.pids', process.pid + '\n');
  return { pass: output === '42' };
});
`,
	"evals/grader.mjs": `import { appendFileSync } from 'node:fs';
import { defineCodeGrader } from '@agentv/sdk';
defineCodeGrader(({ output }) => {
  appendFileSync('js-grader.pids', process.pid + '\n');
  return { score: output === '42' ? 1 : 0 };
});
`,
	"evals/template.mjs": `import { appendFileSync } from 'node:fs';
import { definePromptTemplate } from '@agentv/sdk';
definePromptTemplate(({ criteria, output }) => {
  appendFileSync('js-template.pids', process.pid + '\n');
  return 'Criteria: ' + criteria + '\nAnswer: ' + output;
});
`,
	"evals/grader.py": `import json, os, sys
payload = json.load(sys.stdin)
with open("py-grader.parents", "a") as f:
    f.write(open("/proc/%d/comm" % os.getppid()).read())
print(json.dumps({"score": 1 if payload.get("output") == "42" else 0}))
`,
	"evals/template.py": `import json, os, sys
payload = json.load(sys.stdin)
with open("py-template.parents", "a") as f:
    f.write(open("/proc/%d/comm" % os.getppid()).read())
print("Criteria: " + payload["criteria"])
`,
	"evals/served.eval.yaml": `name: served
tests:
  - id: t1
    criteria: Answers 42
    input: Six times seven?
  - id: t2
    criteria: Answers 42
    input: Seven times six?
  - id: t3
    criteria: Answers 42
    input: Forty-two?
assertions:
  - type: code-grader
    name: js
    command: [node, grader.mjs]
  - type: served
  - type: llm-grader
    name: js-template
    target: judge
    prompt:
      command: [node, template.mjs]
  - type: code-grader
    name: py
    command: [python3, grader.py]
  - type: llm-grader
    name: py-template
    target: judge
    prompt:
      command: [python3, template.py]
`,
}

// TestGraderWorkers: under --grader-isolation fork, JavaScript SDK graders, custom assertions
// and prompt templates run in one worker process per script (with --workers 1, one pid for
// all three tests), and the Python ones are forked by a fork server; under process each call is
// its own process, a child of agentv. Scores are the same both ways.
//
//nolint:paralleltest // it counts the processes agentv starts, which a parallel test would add to
func TestGraderWorkers(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	requireTools(t, "python3", "node")
	if _, err := os.Stat("/proc/self/comm"); err != nil {
		t.Skip("no /proc: the graders cannot name their parent")
	}
	for _, mode := range []string{"fork", "process"} {
		t.Run(mode, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, workerProject)
			res := agentv(t, dir, nil, "eval", "evals/served.eval.yaml", "--workers", "1", "--grader-isolation", mode)
			if len(res.records) != 3 {
				t.Fatalf("exit %d, %d records\nstdout:\n%s\nstderr:\n%s", res.code, len(res.records), res.stdout, res.stderr)
			}
			for _, rec := range res.records {
				if len(rec.EvaluatorResults) != 5 {
					t.Fatalf("%s: %d grader results, want 5", rec.EvalID, len(rec.EvaluatorResults))
				}
				for _, er := range rec.EvaluatorResults {
					if er.Score != 1 || er.Error != "" {
						t.Errorf("%s/%s: score %v, error %q", rec.EvalID, er.Name, er.Score, er.Error)
					}
				}
			}
			// The assertion runs with the eval file's folder as its working directory, like the rest.
			for _, name := range []string{"js-grader.pids", "js-assertion.pids", "js-template.pids"} {
				lines := readLines(t, filepath.Join(dir, "evals", name))
				distinct := map[string]bool{}
				for _, l := range lines {
					distinct[l] = true
				}
				want := 3
				if mode == "fork" {
					want = 1
				}
				if len(lines) != 3 || len(distinct) != want {
					t.Errorf("%s: pids %v, want 3 calls from %d processes", name, lines, want)
				}
			}
			for _, name := range []string{"py-grader.parents", "py-template.parents"} {
				for _, parent := range readLines(t, filepath.Join(dir, "evals", name)) {
					if forked := strings.HasPrefix(parent, "python"); forked != (mode == "fork") {
						t.Errorf("%s: parent %q under %s", name, parent, mode)
					}
				}
			}
		})
	}
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Fields(string(b))
}
