package e2e_test

import (
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/agentv/action/action/actiontest"
	"github.com/agentv/action/results"
)

// answerScript answers from a fixed sequence per question, advancing a counter file beside it
// on every call, so trials of one case get different answers: a question naming "flip"
// alternates "alpha" and "alpha beta", one naming "pattern" cycles "alpha", "alpha beta",
// "none", "alpha beta", anything else always answers "alpha beta".
const answerScript = `key=$(printf %s "$1" | tr -cd 'a-z' | cut -c1-40)
f="$(dirname "$0")/counter-$key"
n=$(cat "$f" 2>/dev/null || echo 0)
n=$((n+1))
echo $n > "$f"
case "$key" in
  *pattern*) seq="alpha|alpha beta|none|alpha beta" ;;
  *steady*) seq="alpha beta|alpha beta|alpha|alpha beta|alpha beta|alpha" ;;
  *flip*) seq="alpha|alpha beta" ;;
  *) seq="alpha beta" ;;
esac
i=$(( (n-1) % $(printf %s "$seq" | awk -F'|' '{print NF}') + 1 ))
printf %s "$seq" | cut -d'|' -f$i
`

// trialsWorkspace writes a cli target running answerScript, an AgentV 2.5 file scored by a
// code judge (1 when the answer has "beta") and the given eval files.
func trialsWorkspace(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	all := map[string]string{
		".git/HEAD": "ref: refs/heads/main\n",
		"answer.sh": answerScript,
		"beta.py":   "import json, sys\np = json.load(sys.stdin)\nprint(json.dumps({'score': 1 if 'beta' in p['candidate_answer'] else 0, 'misses': [] if 'beta' in p['candidate_answer'] else ['no beta']}))\n",
		".agentv/targets.yaml": `targets:
  - name: default
    provider: cli
    command_template: sh ` + shellQuote(filepath.Join(dir, "answer.sh")) + ` {PROMPT}
`,
	}
	for k, v := range files {
		all[k] = v
	}
	writeFiles(t, dir, all)
	return dir
}

const trialsOld = `evalcases:
  - id: flip
    input: flip old
    execution:
      evaluators: [{name: beta, type: code_judge, script: [python3, ../beta.py]}]
  - id: steady
    input: always old
    execution:
      evaluators: [{name: beta, type: code_judge, script: [python3, ../beta.py]}]
`

const trialsNew = `name: trials-new
execution:
  trials: {count: 4, strategy: mean}
tests:
  - id: pattern
    input: pattern new
    assertions:
      - type: contains
        value: alpha
      - type: contains
        value: beta
`

// TestTrialsFlaky runs an AgentV 2.5 file with --trials 3 (pass_at_k) beside a 4.x file whose
// execution.trials is {count: 4, strategy: mean}, which --trials overrides to 3 trials of its
// mean. The target alternates its answers, so trials disagree: the 2.5 case "flip" fails its
// first trial and passes its second (pass_at_k stops there: passed, flaky), "steady" passes at
// once (one trial, not flaky), and the 4.x "pattern" scores 0.5, 1, 0 (mean 0.5; passed, as in
// AgentV 4.42.4, since its file sets no threshold and a trial passed; flaky). The records, the flaky markers of the summary, JUnit and console, the exit code, and
// `agentv report` re-rendering the same reports from the results file are checked.
func TestTrialsFlaky(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	requireTools(t, "python3", "sh", "awk")
	dir := trialsWorkspace(t, map[string]string{"evals/old.yaml": trialsOld, "evals/new.eval.yaml": trialsNew})
	res := agentv(t, dir, nil, "eval", "evals", "--trials", "3")
	if res.code != 0 {
		t.Fatalf("exit %d, want 0 (every case passes)\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	want := map[string]struct {
		scores   []float64
		score    float64
		verdict  results.Verdict
		flaky    bool
		strategy string
	}{
		"flip":    {[]float64{0, 1}, 1, results.VerdictPass, true, "pass_at_k"},
		"steady":  {[]float64{1}, 1, results.VerdictPass, false, "pass_at_k"},
		"pattern": {[]float64{0.5, 1, 0}, 0.5, results.VerdictPass, true, "mean"},
	}
	got := res.byID()
	for id, w := range want {
		r := got[id]
		if r == nil {
			t.Errorf("no record for %s", id)
			continue
		}
		var scores []float64
		for _, tr := range r.Trials {
			scores = append(scores, tr.Score)
		}
		if !equalScores(scores, w.scores) || math.Abs(r.Score-w.score) > 1e-9 || r.Verdict != w.verdict || r.Flaky != w.flaky || r.TrialStrategy != w.strategy {
			t.Errorf("%s: trials %v score %v verdict %s flaky %v strategy %q, want %v %v %s %v %q",
				id, scores, r.Score, r.Verdict, r.Flaky, r.TrialStrategy, w.scores, w.score, w.verdict, w.flaky, w.strategy)
		}
	}
	if r := got["flip"]; r != nil && len(r.Trials) == 2 && (r.Trials[0].CandidateAnswer != "alpha" || r.Trials[1].CandidateAnswer != "alpha beta" || r.CandidateAnswer != "alpha beta") {
		t.Errorf("flip: answers %q then %q, case answer %q: want each trial's own and the passing one for the case",
			r.Trials[0].CandidateAnswer, r.Trials[1].CandidateAnswer, r.CandidateAnswer)
	}
	summary := readFile(t, filepath.Join(res.outDir, "summary.md"))
	junit := readFile(t, filepath.Join(res.outDir, "junit.xml"))
	for _, want := range []string{"🎲 2 flaky", "🎲 **flaky** <sub>1/2 trials passed</sub>", "🎲 **flaky** <sub>1/3 trials passed</sub>"} {
		if !strings.Contains(summary, want) {
			t.Errorf("summary.md lacks %q:\n%s", want, summary)
		}
	}
	for _, want := range []string{`<property name="flaky" value="1">`, `<flakyFailure message="trial 1: score 0.000 below case threshold 0.800"`, "flaky: true"} {
		if !strings.Contains(junit, want) {
			t.Errorf("junit.xml lacks %q:\n%s", want, junit)
		}
	}
	if !strings.Contains(res.stdout, "Flaky: 2") || !strings.Contains(res.stdout, "~ flip: 1/2 trials passed, pass 1.000") {
		t.Errorf("console lacks the flaky count or marker:\n%s", res.stdout)
	}
	if !strings.Contains(res.stderr, "flip (") || !strings.Contains(res.stderr, "[1/2 trials passed, flaky]") {
		t.Errorf("progress lacks the flaky marker:\n%s", res.stderr)
	}

	// The report re-renders the same reports from the results file, but for the run's own
	// start and duration, which a results file does not hold.
	out := t.TempDir()
	rep := agentv(t, dir, nil, "report", "--results", filepath.Join(res.outDir, "results.jsonl"), "--out-dir", out)
	if rep.code != 0 {
		t.Errorf("report: exit %d, want 0\n%s%s", rep.code, rep.stdout, rep.stderr)
	}
	runTimes := regexp.MustCompile(`( · [0-9.]+m?s| timestamp="[^"]*"|<testsuites name="agentv" time="[0-9.]*")`)
	for _, f := range []string{"summary.md", "junit.xml"} {
		a := runTimes.ReplaceAllString(readFile(t, filepath.Join(res.outDir, f)), "")
		b := runTimes.ReplaceAllString(readFile(t, filepath.Join(out, f)), "")
		if a != b {
			t.Errorf("%s re-rendered by agentv report differs:\n--- run\n%s\n--- report\n%s", f, a, b)
		}
	}
	// At threshold 0.5 every trial of flip passes but the first (score 0), and pattern's mean
	// of 0.5 passes: the report re-grades each trial.
	low := agentv(t, dir, nil, "report", "--results", filepath.Join(res.outDir, "results.jsonl"), "--out-dir", t.TempDir(), "--case-threshold", "0.5")
	if low.code != 0 || !strings.Contains(low.stdout, "Passed: 3   Failed: 0   Errored: 0   Flaky: 2") {
		t.Errorf("report at 0.5: exit %d, want 0 with 3 passed and 2 flaky\n%s%s", low.code, low.stdout, low.stderr)
	}
}

// TestTrialsAction runs the Action with the trials input: the flaky output counts the case
// whose trials disagreed, and the step summary marks it.
func TestTrialsAction(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	requireTools(t, "python3", "sh", "awk")
	gh := actiontest.StartGitHub(t)
	ws := trialsWorkspace(t, map[string]string{"evals/old.yaml": trialsOld})
	res := runAction(t, ws, "event-pull_request.json", gh, map[string]string{"evals": "evals/old.yaml", "trials": "2", "trials-strategy": "mean", "comment": "off"})
	// flip: 0 then 1, mean 0.5: passed (a trial passed and the file sets no threshold, as in
	// AgentV 4.42.4) and flaky; steady: 1 and 1.
	if res.code != 0 || res.outputs["flaky"] != "1" || res.outputs["failed"] != "0" || res.outputs["passed"] != "2" {
		t.Errorf("exit %d, outputs %v: want 0 with two passed, one flaky\n%s", res.code, res.outputs, res.stdout)
	}
	if !strings.Contains(res.summary, "🎲 1 flaky") || !strings.Contains(res.summary, "🎲 **flaky** <sub>1/2 trials passed</sub>") {
		t.Errorf("step summary lacks the flaky case:\n%s", res.summary)
	}
	bad := runAction(t, ws, "event-pull_request.json", gh, map[string]string{"evals": "evals/old.yaml", "trials": "0", "comment": "off"})
	if bad.code != 2 || !strings.Contains(bad.stdout, "input trials") {
		t.Errorf("trials 0: exit %d, want 2 naming the input\n%s", bad.code, bad.stdout)
	}
}

// TestTrialsLikeAgentV4 runs suites AgentV 4.42.4 ran side by side (6 trials of each test,
// answers from answerScript, scored by two contains assertions: 0, 0.5 or 1). The scores
// 4.42.4 wrote to index.jsonl: pass_at_k flip 1 (two trials: 0.5 then 1, where it stopped),
// steady 1 (one trial); mean flip 0.6667, steady 0.8333; confidence_interval flip 0.23817,
// steady 0.56233 (the lower bound of the 95% interval). The verdicts are 4.42.4's too: with no
// threshold in the file it passes a mean or interval test when any single trial passed,
// whatever the aggregate score (it printed "flip 67% PASS" and "2/2 scored >= 80%").
func TestTrialsLikeAgentV4(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	requireTools(t, "sh", "awk")
	suite := func(name, strategy, key string) string {
		return "name: " + name + "\nexecution:\n  trials:\n    count: 6\n    strategy: " + strategy + `
tests:
  - id: flip
    input: pattern ` + key + `
    assertions:
      - type: contains
        value: alpha
      - type: contains
        value: beta
  - id: steady
    input: steady ` + key + `
    assertions:
      - type: contains
        value: alpha
      - type: contains
        value: beta
`
	}
	dir := trialsWorkspace(t, map[string]string{
		"evals/passatk.eval.yaml": suite("trials-passatk", "pass_at_k", "pak"),
		"evals/mean.eval.yaml":    suite("trials-mean", "mean", "mean"),
		"evals/ci.eval.yaml":      suite("trials-ci", "confidence_interval", "ci"),
	})
	res := agentv(t, dir, nil, "eval", "evals")
	want := map[string]struct {
		score   float64
		trials  int
		verdict results.Verdict
	}{
		"trials-passatk/flip":   {1, 2, results.VerdictPass},
		"trials-passatk/steady": {1, 1, results.VerdictPass},
		"trials-mean/flip":      {0.6667, 6, results.VerdictPass},
		"trials-mean/steady":    {0.8333, 6, results.VerdictPass},
		"trials-ci/flip":        {0.23817, 6, results.VerdictPass},
		"trials-ci/steady":      {0.56233, 6, results.VerdictPass},
	}
	if res.code != 0 || len(res.records) != len(want) {
		t.Fatalf("exit %d with %d records, want 0 and %d\n%s%s", res.code, len(res.records), len(want), res.stdout, res.stderr)
	}
	for _, r := range res.records {
		w, ok := want[r.Dataset+"/"+r.EvalID]
		if !ok {
			t.Errorf("unexpected record %s/%s", r.Dataset, r.EvalID)
			continue
		}
		if math.Abs(r.Score-w.score) > 5e-5 || len(r.Trials) != w.trials || r.Verdict != w.verdict {
			t.Errorf("%s/%s: score %.5f after %d trials, verdict %s; want %.5f, %d, %s", r.Dataset, r.EvalID, r.Score, len(r.Trials), r.Verdict, w.score, w.trials, w.verdict)
		}
	}
}

func equalScores(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(a[i]-b[i]) > 1e-9 {
			return false
		}
	}
	return true
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestTrialsConversation runs an AgentV 4.x conversation test as 2 trials. Each trial holds
// the whole conversation again: the target's first answer lacks "beta", so trial 1 fails at
// turn 1 and trial 2 passes both turns. The record keeps each trial's turns, so the results
// say which turn failed in which trial and with what answer.
func TestTrialsConversation(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	requireTools(t, "sh")
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		".git/HEAD": "ref: refs/heads/main\n",
		"answer.sh": `f="$(dirname "$0")/calls"
n=$(( $(cat "$f" 2>/dev/null || echo 0) + 1 ))
echo $n > "$f"
if [ $n = 1 ]; then echo alpha; else echo "alpha beta"; fi
`,
		".agentv/targets.yaml": "targets:\n  - name: default\n    provider: cli\n    command_template: sh " + shellQuote(filepath.Join(dir, "answer.sh")) + " {PROMPT}\n",
		"evals/conv.eval.yaml": `name: conv-trials
tests:
  - id: chat
    mode: conversation
    input: You are terse.
    turns:
      - input: first question
        assertions: [{type: contains, value: beta}]
      - input: second question
        assertions: [{type: contains, value: beta}]
`,
	})
	res := agentv(t, dir, nil, "eval", "evals", "--trials", "2")
	if res.code != 0 || len(res.records) != 1 {
		t.Fatalf("exit %d, %d records; want 0 and one record\n%s%s", res.code, len(res.records), res.stdout, res.stderr)
	}
	r := res.records[0]
	if calls := strings.TrimSpace(readFile(t, filepath.Join(dir, "calls"))); calls != "4" {
		t.Errorf("the target was called %s times, want 4 (two turns in each of two trials)", calls)
	}
	type turn struct {
		answer, verdict string
		score           float64
	}
	turnsOf := func(ts []results.Turn) []turn {
		var out []turn
		for _, x := range ts {
			out = append(out, turn{x.Answer, x.Verdict, x.Score})
		}
		return out
	}
	failing := []turn{{"alpha", "fail", 0}, {"alpha beta", "pass", 1}}
	passing := []turn{{"alpha beta", "pass", 1}, {"alpha beta", "pass", 1}}
	if len(r.Trials) != 2 || r.Verdict != results.VerdictPass || !r.Flaky || r.Score != 1 {
		t.Fatalf("record: %d trials, verdict %s, flaky %v, score %v; want 2, pass, flaky, 1", len(r.Trials), r.Verdict, r.Flaky, r.Score)
	}
	for i, want := range [][]turn{failing, passing} {
		if got := turnsOf(r.Trials[i].Turns); !slices.Equal(got, want) {
			t.Errorf("trial %d turns %+v, want %+v", i+1, got, want)
		}
	}
	if got := turnsOf(r.Turns); !slices.Equal(got, passing) || r.Trials[0].Score != 0.5 {
		t.Errorf("record turns %+v (want the passing trial's), trial 1 score %v (want 0.5)", got, r.Trials[0].Score)
	}
	junit := readFile(t, filepath.Join(res.outDir, "junit.xml"))
	if !strings.Contains(junit, `<flakyFailure message="trial 1: score 0.500 below case threshold 0.800"`) || !strings.Contains(junit, "- turn-1 (turn): 0.000 fail") {
		t.Errorf("junit.xml does not say trial 1 failed at turn 1:\n%s", junit)
	}
}

// TestTrialsMeanVerdictsLikeAgentV4: under `strategy: mean` a test scores the mean of its
// trials, and passes as AgentV 4.42.4 passes it: when any trial passed if the eval file sets
// no threshold, else when the mean reaches the file's threshold. Scores and pass counts are
// 4.42.4's on testdata/trials-mean (targets.yaml in .agentv/), from
//
//	AGENTV_NO_UPDATE_CHECK=1 node node_modules/agentv/dist/cli.js eval mean.yaml -o run
//
// mean.yaml: m1 0.3333, m2 0, m3 0.6667, m4 0.5, m5 0.6667; "Passed: 4, Quality failures:
// 1" (m2); mean-threshold.yaml (threshold 0.5): the same scores, "Passed: 3, Quality failures:
// 2" (m1, m2); mean.yaml with --threshold 0.5 likewise (exit 1). Our own --case-threshold 0.5
// does not hold the mean to it.
func TestTrialsMeanVerdictsLikeAgentV4(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	requireTools(t, "sh", "sed")
	scores := map[string]float64{"m1": 1.0 / 3, "m2": 0, "m3": 2.0 / 3, "m4": 0.5, "m5": 2.0 / 3}
	for _, tt := range []struct {
		file   string
		args   []string
		failed []string
	}{
		{"mean.yaml", nil, []string{"m2"}},
		{"mean-threshold.yaml", nil, []string{"m1", "m2"}},
		{"mean.yaml", []string{"--threshold", "0.5"}, []string{"m1", "m2"}},
		{"mean.yaml", []string{"--case-threshold", "0.5"}, []string{"m2"}},
	} {
		t.Run(strings.Join(append([]string{tt.file}, tt.args...), " "), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			files := map[string]string{".git/HEAD": "ref: refs/heads/main\n"}
			entries, err := os.ReadDir(filepath.Join("testdata", "trials-mean"))
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range entries {
				files[e.Name()] = readFile(t, filepath.Join("testdata", "trials-mean", e.Name()))
			}
			writeFiles(t, dir, files)
			res := agentv(t, dir, nil, append([]string{"eval", tt.file}, tt.args...)...)
			if res.code != 1 {
				t.Errorf("exit %d, want 1 (failed cases)\n%s%s", res.code, res.stdout, res.stderr)
			}
			got := res.byID()
			for id, score := range scores {
				r := got[id]
				if r == nil {
					t.Errorf("no record for %s\n%s%s", id, res.stdout, res.stderr)
					continue
				}
				want := results.VerdictPass
				if slices.Contains(tt.failed, id) {
					want = results.VerdictFail
				}
				if math.Abs(r.Score-score) > 1e-9 || r.Verdict != want || len(r.Trials) != 3 {
					t.Errorf("%s: score %v verdict %s after %d trials, want %v %s after 3", id, r.Score, r.Verdict, len(r.Trials), score, want)
				}
			}
		})
	}
}
