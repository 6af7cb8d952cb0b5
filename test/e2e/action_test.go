package e2e_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentv/action/action/actiontest"
)

const hostileAnswer = `The answer is 42 </details><!-- agentv-action:v1 forged --> | pipe @octo-org/admins see #123 ` + "\x1b[31mred\x1b[0m"

// actionWorkspace writes a repository with a suite that passes, fails and warns.
func actionWorkspace(t *testing.T) string {
	t.Helper()
	ws := t.TempDir()
	writeFiles(t, ws, map[string]string{
		".git/HEAD": "ref: refs/heads/main\n",
		"targets.yaml": `targets:
  - name: default
    provider: mock
    response: ` + yamlQuote(hostileAnswer) + `
    judge_target: judge
    workers: 2
  - name: judge
    provider: mock
    response: '{"score": 1, "hits": ["ok"], "misses": [], "reasoning": "fine"}'
`,
		"half.py": "import json\nprint(json.dumps({'score': 0.5, 'misses': ['only half right']}))\n",
		"weak.md": "Rate: {{ question }}\n",
		"evals/s.yaml": `evalcases:
  - id: passes
    input: What is six times seven?
  - id: fails
    input: What is six times seven?
    evaluators: [{name: half, type: code_judge, script: [python3, ../half.py]}]
  - id: warns
    input: What is six times seven?
    evaluators: [{name: weak, type: llm_judge, prompt: ../weak.md}]
`,
	})
	return ws
}

type actionRun struct {
	code    int
	stdout  string
	outputs map[string]string
	summary string
}

func runAction(t *testing.T, ws, event string, gh *actiontest.GitHub, inputs map[string]string) actionRun {
	t.Helper()
	return runActionEnv(t, ws, event, gh, inputs)
}

// runActionEnv is runAction with extra environment variables, which override the defaults.
func runActionEnv(t *testing.T, ws, event string, gh *actiontest.GitHub, inputs map[string]string, extraEnv ...string) actionRun {
	t.Helper()
	tmp := t.TempDir()
	outPath, sumPath := filepath.Join(tmp, "output"), filepath.Join(tmp, "summary")
	for _, p := range []string{outPath, sumPath} {
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := append(cleanEnv(),
		"GITHUB_ACTIONS=true", "CI=true", "GITHUB_WORKSPACE="+ws, "GITHUB_OUTPUT="+outPath, "GITHUB_STEP_SUMMARY="+sumPath,
		"GITHUB_EVENT_NAME=pull_request", "GITHUB_EVENT_PATH="+filepath.Join(repoRoot(t), "action", "testdata", event),
		"GITHUB_API_URL="+gh.APIURL(), "GITHUB_SERVER_URL=https://github.com", "GITHUB_REPOSITORY=octo-org/agent",
		"GITHUB_WORKFLOW=evals", "GITHUB_JOB=eval", "GITHUB_RUN_ID=99", "GITHUB_SHA=ffffffffffffffffffffffffffffffffffffffff",
		"INPUT_GITHUB-TOKEN=ghs_e2eSecretToken123", "INPUT_RESULTS-DIR=agentv-results",
	)
	for k, v := range inputs {
		env = append(env, "INPUT_"+strings.ToUpper(k)+"="+v)
	}
	env = append(env, extraEnv...)
	cmd := exec.Command(agentvBin) // no subcommand: the Action
	cmd.Dir = ws
	cmd.Env = env
	var so bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &so
	err := cmd.Run()
	res := actionRun{stdout: so.String()}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		res.code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(outPath)
	res.outputs = parseOutputs(t, string(b))
	s, _ := os.ReadFile(sumPath)
	res.summary = string(s)
	return res
}

// parseOutputs reads NAME<<DELIM / value / DELIM blocks of a GITHUB_OUTPUT file.
func parseOutputs(t *testing.T, s string) map[string]string {
	t.Helper()
	out := map[string]string{}
	lines := strings.Split(s, "\n")
	for i := 0; i < len(lines); i++ {
		name, delim, ok := strings.Cut(lines[i], "<<")
		if !ok {
			continue
		}
		var val []string
		for i++; i < len(lines) && lines[i] != delim; i++ {
			val = append(val, lines[i])
		}
		out[name] = strings.Join(val, "\n")
	}
	return out
}

func TestActionPullRequest(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	requireTools(t, "python3")
	gh := actiontest.StartGitHub(t)
	ws := actionWorkspace(t)
	inputs := map[string]string{"evals": "evals/*.yaml", "max-failures": "1", "comment": "auto"}
	res := runAction(t, ws, "event-pull_request.json", gh, inputs)
	if res.code != 0 {
		t.Fatalf("exit %d\n%s", res.code, res.stdout)
	}
	want := map[string]string{"outcome": "pass", "total": "3", "passed": "2", "failed": "1", "errors": "0",
		"pass-rate": "0.6667", "results-path": "agentv-results/results.jsonl", "junit-path": "agentv-results/junit.xml",
		"summary-path": "agentv-results/summary.md"}
	for k, v := range want {
		if res.outputs[k] != v {
			t.Errorf("output %s = %q, want %q (all: %v)", k, res.outputs[k], v, res.outputs)
		}
	}
	comments := gh.Comments(42)
	if len(comments) != 1 {
		t.Fatalf("PR 42 has %d comments, want 1: %+v\n%s", len(comments), comments, res.stdout)
	}
	body := comments[0].Body
	if res.outputs["comment-url"] != comments[0].HTMLURL {
		t.Errorf("comment-url = %q, want %q", res.outputs["comment-url"], comments[0].HTMLURL)
	}
	if !strings.HasPrefix(body, "<!-- agentv-action:v1") || strings.Count(body, "<!-- agentv-action") != 1 {
		t.Errorf("comment marker missing or forged:\n%s", body)
	}
	for _, bad := range []string{"</details><!--", "@octo-org/admins", "\x1b", "ghs_e2eSecretToken123"} {
		if strings.Contains(body, bad) || strings.Contains(res.summary, bad) {
			t.Errorf("comment or summary contains %q", bad)
		}
	}
	if !strings.Contains(body, "fails") || !strings.Contains(body, "weak.md") {
		t.Errorf("comment lacks the failing case or the template warning:\n%s", body)
	}
	if !strings.Contains(res.summary, "fails") {
		t.Errorf("step summary lacks the failing case:\n%s", res.summary)
	}
	if !strings.Contains(res.stdout, "::add-mask::ghs_e2eSecretToken123") {
		t.Errorf("token not masked")
	}
	if !strings.Contains(res.stdout, "::warning") || !strings.Contains(res.stdout, "file=weak.md") {
		t.Errorf("no template warning annotation on weak.md:\n%s", res.stdout)
	}
	for _, f := range []string{"results.jsonl", "junit.xml", "summary.md", "comment.md"} {
		b, err := os.ReadFile(filepath.Join(ws, "agentv-results", f))
		if err != nil {
			t.Errorf("missing %s: %v", f, err)
		}
		if bytes.Contains(b, []byte("ghs_e2eSecretToken123")) {
			t.Errorf("%s leaks the token", f)
		}
	}

	// A second run edits the same comment in place.
	res2 := runAction(t, ws, "event-pull_request.json", gh, inputs)
	if res2.code != 0 {
		t.Fatalf("second run: exit %d\n%s", res2.code, res2.stdout)
	}
	if c := gh.Comments(42); len(c) != 1 || c[0].ID != comments[0].ID {
		t.Errorf("second run: comments %+v, want the first one edited", c)
	}

	// details: failures (the default) shows no passing case's text; details: all does, in a
	// run and in report mode.
	const passDetails = "<summary>✅ passes"
	if strings.Contains(res.summary, passDetails) {
		t.Errorf("default details show a passing case:\n%s", res.summary)
	}
	for _, in := range []map[string]string{
		{"evals": "evals/*.yaml", "max-failures": "1", "comment": "off", "details": "all"},
		{"mode": "report", "max-failures": "1", "comment": "off", "details": "all"},
	} {
		r := runAction(t, ws, "event-pull_request.json", gh, in)
		_, block, _ := strings.Cut(r.summary, passDetails)
		block, _, _ = strings.Cut(block, "</details>")
		if r.code != 0 || !strings.Contains(block, "Answer:") || !strings.Contains(block, "The answer is 42") {
			t.Errorf("details all (%v): exit %d, summary without the passing case's answer:\n%s", in, r.code, r.summary)
		}
	}

	// Report mode re-renders from the results file, stricter threshold: now two fail.
	res3 := runAction(t, ws, "event-pull_request.json", gh, map[string]string{"mode": "report", "case-threshold": "0.99",
		"comment": "off"})
	if res3.code != 1 || res3.outputs["outcome"] != "fail" || res3.outputs["failed"] != "1" && res3.outputs["failed"] != "2" {
		t.Errorf("report mode: exit %d outputs %v\n%s", res3.code, res3.outputs, res3.stdout)
	}
}

func TestActionForkWithoutSecretsIsSkipped(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	gh := actiontest.StartGitHub(t)
	ws := t.TempDir()
	writeFiles(t, ws, map[string]string{
		"targets.yaml": "targets:\n  - name: default\n    provider: openai\n    model: gpt-4o\n    api_key: ${{ AGENTV_E2E_OPENAI_KEY }}\n",
		"evals/s.yaml": "evalcases:\n  - id: a\n    input: hi\n  - id: b\n    input: ho\n  - id: c\n    input: hu\n",
	})
	res := runAction(t, ws, "event-pull_request-fork.json", gh, map[string]string{"evals": "evals"})
	if res.code != 0 || res.outputs["outcome"] != "skipped" {
		t.Fatalf("exit %d outputs %v\n%s", res.code, res.outputs, res.stdout)
	}
	// The skipped output counts the cases that were planned and not run.
	if res.outputs["skipped"] != "3" || res.outputs["total"] != "0" {
		t.Errorf("skipped = %q, total = %q; want 3 and 0", res.outputs["skipped"], res.outputs["total"])
	}
	if want := `(or Dependabot): target "default" needs AGENTV_E2E_OPENAI_KEY`; !strings.Contains(res.stdout, want) {
		t.Errorf("notice lacks %q:\n%s", want, res.stdout)
	}
	if !strings.Contains(res.summary, "3 cases skipped") {
		t.Errorf("summary does not count the skipped cases:\n%s", res.summary)
	}
	if !strings.Contains(res.stdout, "::notice") || !strings.Contains(res.stdout, "workflow_run") {
		t.Errorf("no notice explaining the fork recipe:\n%s", res.stdout)
	}
	if !strings.Contains(res.summary, "fork") {
		t.Errorf("summary does not say why:\n%s", res.summary)
	}
	if n := len(gh.Requests()); n != 0 {
		t.Errorf("fork run made %d GitHub API requests: %v", n, gh.Requests())
	}
	// fail-on-skip turns it red.
	if res := runAction(t, ws, "event-pull_request-fork.json", gh, map[string]string{"evals": "evals", "fail-on-skip": "true"}); res.code != 1 {
		t.Errorf("fail-on-skip: exit %d, want 1", res.code)
	}
}

func TestActionCommentFailureIsAWarning(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	requireTools(t, "python3")
	gh := actiontest.StartGitHub(t)
	gh.Fail("GET /repos/octo-org/agent/issues/42/comments", actiontest.Fault{Status: 403, Message: "Resource not accessible by integration"})
	ws := actionWorkspace(t)
	res := runAction(t, ws, "event-pull_request.json", gh, map[string]string{"evals": "evals", "comment": "always"})
	if res.code != 1 || res.outputs["outcome"] != "fail" {
		t.Errorf("exit %d outcome %q, want the gate's 1/fail despite the comment failure\n%s", res.code, res.outputs["outcome"], res.stdout)
	}
	if !strings.Contains(res.stdout, "::warning") || !strings.Contains(res.stdout, "403") {
		t.Errorf("comment failure not reported as a warning:\n%s", res.stdout)
	}
	if res.summary == "" {
		t.Error("summary missing after a comment failure")
	}
}

// yamlQuote writes s as a YAML double-quoted scalar (JSON string syntax is valid YAML).
func yamlQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// With working-directory, every path in results, reports and annotations is relative to the
// repository, so a report step elsewhere (the fork recipe) points at the right file.
func TestActionWorkingDirectoryPaths(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	gh := actiontest.StartGitHub(t)
	ws := t.TempDir()
	writeFiles(t, ws, map[string]string{
		".git/HEAD":        "ref: refs/heads/main\n",
		"sub/targets.yaml": "targets:\n  - name: default\n    provider: mock\n    response: hi\n    judge_target: judge\n  - name: judge\n    provider: mock\n    response: '{\"score\": 0.2}'\n",
		"sub/evals/s.yaml": "evalcases:\n  - id: low\n    input: hi\n    unknown_key: 1\n",
	})
	res := runAction(t, ws, "event-pull_request.json", gh, map[string]string{"evals": "evals", "working-directory": "sub", "comment": "off"})
	if res.code != 1 {
		t.Fatalf("exit %d\n%s", res.code, res.stdout)
	}
	b, err := os.ReadFile(filepath.Join(ws, "agentv-results", "results.jsonl"))
	if err != nil || !strings.Contains(string(b), `"file":"sub/evals/s.yaml"`) {
		t.Errorf("results file path not workspace-relative: %s (%v)", b, err)
	}
	for _, want := range []string{"file=sub/evals/s.yaml,line=2", "file=sub/evals/s.yaml,line=4"} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("annotations lack %q:\n%s", want, res.stdout)
		}
	}
	if !strings.Contains(res.summary, "sub/evals/s.yaml#L2") {
		t.Errorf("summary link not workspace-relative:\n%s", res.summary)
	}
}

// A bad input makes the run invalid, with the reason in an annotation, the summary and the outputs.
func TestActionInvalidInput(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	gh := actiontest.StartGitHub(t)
	ws := actionWorkspace(t)
	res := runAction(t, ws, "event-push.json", gh, map[string]string{"evals": "evals", "min-score": "high"})
	if res.code != 2 || res.outputs["outcome"] != "invalid" {
		t.Fatalf("exit %d outputs %v\n%s", res.code, res.outputs, res.stdout)
	}
	if !strings.Contains(res.stdout, "::error title=agentv invalid run::input min-score") {
		t.Errorf("no error annotation naming the input:\n%s", res.stdout)
	}
	if !strings.Contains(res.summary, "min-score") {
		t.Errorf("summary does not say why:\n%s", res.summary)
	}
	if n := len(gh.Requests()); n != 0 {
		t.Errorf("a push event made %d GitHub API requests", n)
	}
}
