package e2e_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/agentv/action/action/actiontest"
	"github.com/agentv/action/results"
	"github.com/agentv/action/suite"
)

// pwned marks the payload of every forged workflow command below: a forged command's data
// starts with it, which none that agentv writes does.
const pwned = "PWNED"

// hostileBreaks are ways to start a new log line, or to fake one, before a forged command.
var hostileBreaks = []string{
	"\n::add-mask::" + pwned,
	"\r::stop-commands::" + pwned,
	"\r\n  ::error file=PWNED.go,line=1::" + pwned,
	"\u2028::set-output name=outcome::" + pwned,
	"\u2029::warning::" + pwned,
	"\u0085::notice::" + pwned,
	"\v::debug::" + pwned,
	"\f\t::group::" + pwned,
	"\x1b[2K\x1b[1G::add-mask::" + pwned,
	" ##[add-mask]" + pwned,
	"\u202e\n::endgroup::" + pwned,
}

// hostileText holds every break in one multi-line text (an answer, a prompt, a stderr).
var hostileText = "text" + strings.Join(hostileBreaks, " and ") + "\n::add-mask::" + pwned + "\n"

// yamlQ quotes s as a YAML double-quoted scalar with every control, separator and
// non-ASCII character escaped, so the YAML parser itself sees no line break.
func yamlQ(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r >= 0x7f:
			fmt.Fprintf(&b, "\\u%04x", r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// hostileWorkspace writes a repository whose case ids, inputs, answers, judge output, script
// errors, unknown keys and eval file names all try to forge workflow commands.
func hostileWorkspace(t *testing.T) string {
	t.Helper()
	ws := t.TempDir()
	var cases strings.Builder
	cases.WriteString("evalcases:\n")
	for i, br := range hostileBreaks {
		fmt.Fprintf(&cases, "  - id: %s\n    input: %s\n", yamlQ(fmt.Sprintf("c%d", i)+br), yamlQ(hostileText))
		if i%3 == 0 {
			fmt.Fprintf(&cases, "    %s: 1\n", yamlQ("key"+br)) // an unknown key: a warning
		}
		if i%4 == 1 { // an errored case: the script's stderr is in the error
			fmt.Fprintf(&cases, "    evaluators: [{name: boom, type: code_judge, script: [sh, -c, %s]}]\n",
				yamlQ("printf '%s' "+shellQuote("boom"+strings.Join(hostileBreaks, ""))+" >&2; exit 3"))
		}
	}
	judge, _ := json.Marshal(map[string]any{"score": 0.5, "hits": []string{"h" + hostileBreaks[0]}, "misses": []string{"m" + hostileBreaks[3]}, "reasoning": hostileText})
	writeFiles(t, ws, map[string]string{
		".git/HEAD": "ref: refs/heads/main\n",
		"targets.yaml": `targets:
  - name: default
    provider: cli
    command_template: ` + yamlQ(`printf '%s' {PROMPT}; printf '%s' `+shellQuote(hostileText)+` >&2`) + `
    judge_target: judge
  - name: judge
    provider: mock
    response: ` + yamlQ(string(judge)) + `
`,
		"evals/suite.yaml": cases.String(),
		// The same ids again in a file whose name forges commands: labels carry the file.
		"evals/f" + hostileBreaks[0] + ".yaml": cases.String(),
	})
	return ws
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// writeHostileResults writes a results file, as a fork's run could upload it, whose every
// text field forges commands.
func writeHostileResults(t *testing.T, path string) {
	t.Helper()
	var b bytes.Buffer
	for i, br := range hostileBreaks {
		rec := results.Record{
			Timestamp: "2026-01-01T00:00:00.000Z", EvalID: fmt.Sprintf("r%d", i) + br, Dataset: "d" + br,
			Score: float64(i%3) / 2, Hits: []string{"h" + br}, Misses: []string{"m" + br}, CandidateAnswer: hostileText,
			Target: "t" + br, Reasoning: hostileText, Verdict: results.VerdictFail, File: "evals/x" + br + ".yaml", Line: i + 1,
			EvaluatorResults: []results.EvaluatorResult{{Name: "e" + br, Type: "llm_judge", Score: 0.5, Verdict: "fail", Reasoning: hostileText}},
			Warnings:         []suite.Diagnostic{{File: "w" + br, Line: 1, Kind: "k" + br, Message: "warn" + br}},
		}
		if i%4 == 1 {
			rec.Verdict, rec.Error = results.VerdictError, "err"+br
		}
		line, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

var (
	stopTokenRE = regexp.MustCompile(`^agentv-[0-9a-f]{32}$`)
	// the commands agentv writes (through action.Commands)
	ourCommands = map[string]bool{"add-mask": true, "group": true, "endgroup": true, "error": true,
		"warning": true, "notice": true, "debug": true, "stop-commands": true}
)

// checkLog fails for every line of one output stream that a runner would take for a
// workflow command agentv did not mean to write, and for any raw line break or escape that
// could fake a line. masks are the only values agentv may mask; underActions says whether
// agentv writes commands at all.
func checkLog(t *testing.T, name, out string, underActions bool, masks ...string) {
	t.Helper()
	if i := strings.IndexAny(out, "\r\v\f\x1b\u0085\u2028\u2029\u202e"); i >= 0 {
		t.Errorf("%s: raw line break or escape %q in %q", name, out[i:i+1], lineAround(out, i))
	}
	open := ""
	for _, c := range actiontest.WorkflowCommands(out) {
		t0 := strings.TrimLeftFunc(c.Line, unicode.IsSpace)
		if !strings.HasPrefix(t0, "::") {
			t.Errorf("%s: legacy workflow command: %q", name, c.Line)
			continue
		}
		_, data, _ := strings.Cut(t0[2:], "::")
		switch {
		case !underActions:
			t.Errorf("%s: workflow command outside GitHub Actions: %q", name, c.Line)
		case open != "" && c.Name == open:
			open = ""
		case !ourCommands[c.Name]:
			t.Errorf("%s: forged workflow command %q", name, c.Line)
		case strings.HasPrefix(data, pwned):
			t.Errorf("%s: forged workflow command %q", name, c.Line)
		case c.Name == "add-mask" && !contains(masks, data):
			t.Errorf("%s: unexpected mask %q", name, c.Line)
		case c.Name == "stop-commands":
			if !stopTokenRE.MatchString(data) {
				t.Errorf("%s: stop-commands with a guessable token: %q", name, c.Line)
			}
			open = data
		}
	}
	if open != "" {
		t.Errorf("%s: commands stopped with %s and never resumed", name, open)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func lineAround(s string, i int) string {
	start := max(0, strings.LastIndexByte(s[:i], '\n')+1)
	end := len(s)
	if j := strings.IndexByte(s[i:], '\n'); j >= 0 {
		end = i + j
	}
	return s[start:end]
}

// runSplit runs the binary with stdout and stderr apart, as the runner reads them.
func runSplit(t *testing.T, dir string, env []string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(agentvBin, args...)
	cmd.Dir = dir
	cmd.Env = append(cleanEnv(), env...)
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return code, so.String(), se.String()
}

// actionEnv is the environment of the Action's container step.
func actionEnv(t *testing.T, ws string, gh *actiontest.GitHub, inputs map[string]string) []string {
	t.Helper()
	tmp := t.TempDir()
	env := []string{"GITHUB_ACTIONS=true", "CI=true", "GITHUB_WORKSPACE=" + ws,
		"GITHUB_OUTPUT=" + filepath.Join(tmp, "output"), "GITHUB_STEP_SUMMARY=" + filepath.Join(tmp, "summary"),
		"GITHUB_EVENT_NAME=pull_request", "GITHUB_EVENT_PATH=" + filepath.Join(repoRoot(t), "action", "testdata", "event-pull_request.json"),
		"GITHUB_API_URL=" + gh.APIURL(), "GITHUB_SERVER_URL=https://github.com", "GITHUB_REPOSITORY=octo-org/agent",
		"GITHUB_RUN_ID=99", "GITHUB_SHA=ffffffffffffffffffffffffffffffffffffffff",
		"INPUT_GITHUB-TOKEN=ghs_e2eSecretToken123", "INPUT_RESULTS-DIR=agentv-results", "INPUT_COMMENT=off"}
	for k, v := range inputs {
		env = append(env, "INPUT_"+strings.ToUpper(k)+"="+v)
	}
	return env
}

// Hostile case ids, answers, reasoning, script errors, unknown keys, file names and a hostile
// results file go through every console path — progress, the summary's lists, errors,
// diagnostics, --verbose, validate, report, the Action in run and report mode — and no line
// of stdout or stderr is a workflow command agentv did not mean to write.
func TestHostileTextCannotForgeWorkflowCommands(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	ws := hostileWorkspace(t)
	resultsFile := filepath.Join(ws, "hostile-results.jsonl")
	writeHostileResults(t, resultsFile)
	gh := actiontest.StartGitHub(t)
	const token = "ghs_e2eSecretToken123"
	out := t.TempDir()

	runs := []struct {
		name         string
		env          []string
		args         []string
		underActions bool
		wantCode     int
		verbatim     bool // verbose model text is fenced by ::stop-commands::
	}{
		{name: "validate", args: []string{"validate", "evals"}, wantCode: 0},
		{name: "eval verbose", args: []string{"eval", "evals", "--verbose", "--out", filepath.Join(out, "a", "results.jsonl")}, wantCode: 3},
		{name: "eval verbose under Actions", env: []string{"GITHUB_ACTIONS=true", "GITHUB_TOKEN=" + token},
			args: []string{"eval", "evals", "--verbose", "--out", filepath.Join(out, "b", "results.jsonl")}, underActions: true, wantCode: 3, verbatim: true},
		{name: "eval with a bad output path", args: []string{"eval", "evals", "--out", "/dev/null/x" + hostileBreaks[0] + "/results.jsonl"}, wantCode: 2},
		{name: "report", args: []string{"report", "--results", resultsFile, "--out-dir", filepath.Join(out, "c")}, wantCode: 3},
		{name: "report of a missing file", args: []string{"report", "--results", "missing" + hostileBreaks[1] + ".jsonl", "--out-dir", filepath.Join(out, "d")}, wantCode: 2},
		{name: "action run verbose", env: actionEnv(t, ws, gh, map[string]string{"evals": "evals", "verbose": "true", "details": "all"}),
			underActions: true, wantCode: 3, verbatim: true},
		{name: "action with a hostile input", env: actionEnv(t, ws, gh, map[string]string{"evals": "evals", "max-failures": "x" + hostileBreaks[0], "target": "t" + hostileBreaks[4]}),
			underActions: true, wantCode: 2},
		{name: "action report mode", env: actionEnv(t, ws, gh, map[string]string{"mode": "report", "results": "hostile-results.jsonl", "details": "all"}),
			underActions: true, wantCode: 3},
	}
	//nolint:paralleltest // the runs share one workspace and one fake GitHub, in this order.
	for _, r := range runs {
		t.Run(r.name, func(t *testing.T) {
			code, stdout, stderr := runSplit(t, ws, r.env, r.args...)
			if code != r.wantCode {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, r.wantCode, stdout, stderr)
			}
			checkLog(t, "stdout", stdout, r.underActions, token)
			checkLog(t, "stderr", stderr, r.underActions, token)
			if !strings.Contains(stdout+stderr, pwned) {
				t.Errorf("the hostile text is not shown at all:\nstdout:\n%s\nstderr:\n%s", stdout, stderr)
			}
			if r.verbatim {
				cmds := actiontest.WorkflowCommands(stdout)
				fenced := false
				for _, c := range cmds {
					if c.Name == "stop-commands" {
						_, tok, _ := strings.Cut(strings.TrimPrefix(c.Line, "::"), "::")
						block, _, _ := strings.Cut(stdout[strings.Index(stdout, c.Line)+len(c.Line):], "::"+tok+"::")
						fenced = fenced || strings.Contains(block, "\n::add-mask::"+pwned+"\n")
					}
				}
				if !fenced {
					t.Errorf("no verbose model text shown verbatim between ::stop-commands:: and its token:\n%s", stdout)
				}
			}
		})
	}
}

// A results file and a baseline from a fork's artifact, each holding 300,000 trials of one
// case: the report (the privileged half of the fork recipe) reads a run's maximum of each,
// says so, and compares them (its permutation test draws a bounded number of scores, see
// stats.MaxDraws). Before, the report decoded every trial and sampled splits of them all.
func TestReportHostileTrialCounts(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	const n = 300_000
	line := func(score int) string {
		var b strings.Builder
		fmt.Fprintf(&b, `{"eval_id":"big","dataset":"d","file":"s.yaml","target":"default","score":%d,"verdict":"pass","trial_strategy":"mean","trials":[`, score)
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"trial":%d,"score":%d,"verdict":"pass"}`, i+1, score)
		}
		b.WriteString("]}\n")
		return b.String()
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"results.jsonl": line(1), "base.jsonl": line(1)})
	rep := agentv(t, dir, nil, "report", "--results", "results.jsonl", "--baseline", "base.jsonl", "--out-dir", t.TempDir())
	if rep.code != 0 {
		t.Fatalf("exit %d\n%s%s", rep.code, rep.stdout, rep.stderr)
	}
	for _, want := range []string{
		fmt.Sprintf(`1 case record holds more trials than the %d a run records (line 1: "big" holds %d)`, suite.MaxTrials, n),
		fmt.Sprintf(`baseline base.jsonl: 1 case holds more trials than the %d a run records (line 1: "big" holds %d)`, suite.MaxTrials, n),
	} {
		if !strings.Contains(rep.stderr+rep.stdout, want) {
			t.Errorf("no note %q in:\n%s%s", want, rep.stdout, rep.stderr)
		}
	}
}
