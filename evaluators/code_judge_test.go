package evaluators

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentv/action/suite"
	"github.com/google/go-cmp/cmp"
)

// judgePy reads the payload and grades by the current payload names, echoing some of what it saw.
const judgePy = `import json, sys
d = json.load(sys.stdin)
ok = d["expected_output"][0]["content"]["riskLevel"] in d["actual_output"]
print(json.dumps({"score": 1 if ok else 0, "hits": ["saw " + d["input"][0]["content"]] if ok else [],
                  "misses": [] if ok else ["wrong level"], "reasoning": "py judge, rubric=" + str((d["config"] or {}).get("rubric")),
                  "details": {"riskLevel": d["expected_output"][0]["content"]["riskLevel"], "refIsNull": d["reference_answer"] is None}}))
`

const judgeMjs = `let s = '';
process.stdin.on('data', (c) => { s += c; });
process.stdin.on('end', () => {
  const d = JSON.parse(s);
  const ok = d.candidate_answer.includes('High');
  process.stdout.write(JSON.stringify({ score: ok ? 0.9 : 0, hits: ok ? ['node ok'] : [], misses: [], reasoning: 'node judge' }));
});
`

func TestCodeJudgeGood(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, dir, "judge.py", judgePy)
	writeFile(t, dir, "judge.mjs", judgeMjs)
	writeFile(t, dir, "judge.sh", "#!/bin/sh\ncat >/dev/null\necho '{\"score\": 0.25}'\n")
	tests := []struct {
		name   string
		tool   string
		spec   *suite.EvaluatorSpec
		want   float64
		hits   []string
		reason string
		detail string
	}{
		{name: "python3", tool: "python3", spec: codeSpec("py", "python3", "judge.py"), want: 1, hits: []string{"saw What is the risk level?"},
			reason: "py judge, rubric=strict", detail: `{"riskLevel":"High","refIsNull":true}`},
		{name: "node", tool: "node", spec: codeSpec("node", "node", "judge.mjs"), want: 0.9, hits: []string{"node ok"}, reason: "node judge"},
		{name: "string script via sh -c", tool: "sh", spec: codeSpec("sh", "sh", "-c", `cat >/dev/null; echo '{"score": 0.5, "hits": ["", "sh"]}'`),
			want: 0.5, hits: []string{"sh"}},
		{name: "relative executable in cwd", tool: "sh", spec: codeSpec("rel", "./judge.sh"), want: 0.25, hits: []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			needTool(t, tt.tool)
			tt.spec.Config = json.RawMessage(`{"rubric": "strict"}`)
			out := Evaluate(t.Context(), riskInput(riskCase(dir, tt.spec), "High"), &Options{Timeout: 20 * time.Second})
			res := out.Results[0]
			if out.Errored || res.Score != tt.want || res.Type != suite.TypeCodeJudge {
				t.Fatalf("result = %+v", res)
			}
			if diff := cmp.Diff(tt.hits, res.Hits); diff != "" {
				t.Errorf("hits (-want +got):\n%s", diff)
			}
			if res.Reasoning != tt.reason || string(res.Details) != tt.detail {
				t.Errorf("reasoning %q details %s", res.Reasoning, res.Details)
			}
			var req struct {
				Script []string `json:"script"`
				Cwd    string   `json:"cwd"`
			}
			if err := json.Unmarshal(res.EvaluatorProviderRequest, &req); err != nil || req.Cwd != dir || !cmp.Equal(req.Script, tt.spec.Script) {
				t.Errorf("evaluator_provider_request = %s (%v)", res.EvaluatorProviderRequest, err)
			}
		})
	}
}

func TestCodeJudgeBadOutput(t *testing.T) {
	t.Parallel()
	needTool(t, "python3")
	needTool(t, "node")
	dir := t.TempDir()
	tests := []struct {
		name      string
		script    []string
		wantScore float64
		wantErr   []string // substrings of Error and of the miss; nil: no error
		wantMiss  string   // a miss when there is no error
	}{
		{name: "garbage", script: []string{"python3", "-c", "print('I think it is fine')"},
			wantErr: []string{"did not print one JSON object", "I think it is fine"}},
		{name: "exit 1 with stderr", script: []string{"python3", "-c", "import sys; print('{\"score\": 1}'); sys.stderr.write('Traceback: KeyError candidate\\n'); sys.exit(1)"},
			wantErr: []string{"exited with code 1", "Traceback: KeyError candidate"}},
		{name: "exit 2 without stderr quotes stdout", script: []string{"node", "-e", "console.log('partial output'); process.exit(2)"},
			wantErr: []string{"exited with code 2", "partial output"}},
		{name: "two objects", script: []string{"node", "-e", `console.log('{"score": 1}'); console.log('{"score": 0}')`},
			wantErr: []string{"did not print one JSON object", `{"score": 1}`}},
		{name: "prints nothing", script: []string{"python3", "-c", "import sys; sys.stderr.write('oops')"},
			wantErr: []string{"printed nothing", "oops"}},
		{name: "json array", script: []string{"node", "-e", "console.log('[1]')"}, wantErr: []string{"did not print one JSON object"}},
		{name: "command not found", script: []string{filepath.Join(dir, "no-such-judge")}, wantErr: []string{"no-such-judge"}},
		{name: "score 7 clamps to 1", script: []string{"python3", "-c", `print('{"score": 7}')`}, wantScore: 1},
		{name: "score -1 clamps to 0", script: []string{"node", "-e", `console.log(JSON.stringify({score: -1, misses: ["bad"]}))`}, wantMiss: "bad"},
		{name: "string score is 0", script: []string{"python3", "-c", `print('{"score": "0.9"}')`}, wantMiss: "no numeric score"},
		{name: "missing score is 0", script: []string{"python3", "-c", `print('{"hits": ["x"]}')`}, wantMiss: "no numeric score"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ok := codeSpec("ok", "sh", "-c", `cat >/dev/null; echo '{"score": 1}'`)
			out := Evaluate(t.Context(), riskInput(riskCase(dir, codeSpec("cj", tt.script...), ok), "x"), &Options{Timeout: 20 * time.Second})
			res := out.Results[0]
			if len(out.Results) != 2 || out.Results[1].Score != 1 || out.Results[1].Error != "" {
				t.Errorf("the other evaluator did not run cleanly: %+v", out.Results[1])
			}
			if res.Score != tt.wantScore {
				t.Errorf("score = %v, want %v", res.Score, tt.wantScore)
			}
			if tt.wantErr == nil {
				if res.Error != "" || out.Errored {
					t.Errorf("unexpected error %q", res.Error)
				}
				if tt.wantMiss != "" && !strings.Contains(strings.Join(res.Misses, "|"), tt.wantMiss) {
					t.Errorf("misses %q lack %q", res.Misses, tt.wantMiss)
				}
				return
			}
			if !out.Errored || len(res.Misses) == 0 {
				t.Fatalf("want an errored evaluator with a miss: %+v", res)
			}
			for _, w := range tt.wantErr {
				if !strings.Contains(res.Error, w) || !strings.Contains(res.Misses[0], w) {
					t.Errorf("error %q / miss %q lack %q", res.Error, res.Misses[0], w)
				}
			}
			if out.Score != 0.5 {
				t.Errorf("case score = %v, want the mean of 0 and 1", out.Score)
			}
		})
	}
}

// TestCodeJudgeTimeoutKillsGroup runs a judge that starts a grandchild and hangs: the
// evaluator must error after the timeout and the whole process group must be gone.
func TestCodeJudgeTimeoutKillsGroup(t *testing.T) {
	t.Parallel()
	needTool(t, "python3")
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "child.pid")
	writeFile(t, dir, "hang.py", `import subprocess, time
p = subprocess.Popen(["sleep", "120"])
open("child.pid.tmp", "w").write(str(p.pid))
import os; os.rename("child.pid.tmp", "child.pid")
time.sleep(120)
`)
	out := Evaluate(t.Context(), riskInput(riskCase(dir, codeSpec("hang", "python3", "hang.py")), "x"), &Options{Timeout: 3 * time.Second})
	res := out.Results[0]
	if !out.Errored || !strings.Contains(res.Error, "timed out after 3s") {
		t.Fatalf("result = %+v", res)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("the judge never started its child: %v", err)
	}
	pid, _ := strconv.Atoi(string(b))
	deadline := time.Now().Add(10 * time.Second)
	for !processGone(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("grandchild %d still running after the judge timed out", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestCodeJudgeHugeOutput is not parallel: it measures allocation while a judge prints
// 50 MB, which must be cut off (a few MiB kept) and reported as an error.
//
//nolint:paralleltest // measures this process's allocation, which other tests would add to.
func TestCodeJudgeHugeOutput(t *testing.T) {
	needTool(t, "python3")
	dir := t.TempDir()
	writeFile(t, dir, "big.py", "import sys\nsys.stdin.read()\nchunk = 'x' * 1000000\nfor _ in range(50):\n    sys.stdout.write(chunk)\n")
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	out := Evaluate(t.Context(), riskInput(riskCase(dir, codeSpec("big", "python3", "big.py")), "x"), &Options{Timeout: 60 * time.Second})
	runtime.ReadMemStats(&after)
	res := out.Results[0]
	if !out.Errored || !strings.Contains(res.Error, "more than 4 MiB") {
		t.Fatalf("result error = %q", res.Error)
	}
	if len(res.Error) > 2000 || len(res.Misses[0]) > 1000 {
		t.Errorf("error (%d bytes) or miss (%d bytes) not truncated", len(res.Error), len(res.Misses[0]))
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 32<<20 {
		t.Errorf("allocated %d MiB for a 50 MB print, want under 32 MiB", alloc>>20)
	}
}

func TestCodeJudgeNoScript(t *testing.T) {
	t.Parallel()
	out := Evaluate(t.Context(), riskInput(riskCase(t.TempDir(), codeSpec("empty")), "x"), &Options{})
	if !out.Errored || !strings.Contains(out.Results[0].Error, "no script") {
		t.Errorf("result = %+v", out.Results[0])
	}
}

func TestCodeJudgeEnvDropsToken(t *testing.T) {
	t.Parallel()
	opts := &Options{Timeout: 20 * time.Second, Env: []string{"PATH=" + os.Getenv("PATH"), "GITHUB_TOKEN=ghs_secret", "JUDGE_MODE=strict"}}
	spec := codeSpec("env", "sh", "-c", `cat >/dev/null; echo "{\"score\": 1, \"reasoning\": \"token=${GITHUB_TOKEN:-none} mode=$JUDGE_MODE\"}"`)
	out := Evaluate(t.Context(), riskInput(riskCase(t.TempDir(), spec), "x"), opts)
	if got := out.Results[0].Reasoning; got != "token=none mode=strict" {
		t.Errorf("reasoning = %q (error %q)", got, out.Results[0].Error)
	}
}

// AgentV 4.x graders print {score?, assertions: [{text, passed, evidence?}]}: the checks become
// hits and misses, and without a score the share of passed checks is the score.
func TestParseJudgeOutputAssertions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		out          string
		score        float64
		hits, misses []string
		reasoning    string
	}{
		{name: "score and checks", out: `{"score": 0.7, "reasoning": "7 words", "assertions": [{"text": "at most 5", "passed": false, "evidence": "counted"}, {"text": "greets", "passed": true}]}`,
			score: 0.7, hits: []string{"greets"}, misses: []string{"at most 5"}, reasoning: "7 words at most 5: counted"},
		{name: "no score: share passed", out: `{"assertions": [{"text": "a", "passed": true}, {"text": "b", "passed": false}, {"text": "c", "passed": true}, {"text": "d", "passed": true}]}`,
			score: 0.75, hits: []string{"a", "c", "d"}, misses: []string{"b"}},
		{name: "malformed checks skipped", out: `{"assertions": [{"passed": true}, "x", {"text": "ok", "passed": true}]}`,
			score: 1, hits: []string{"ok"}, misses: []string{}},
		{name: "with 2.5 hits", out: `{"score": 1, "hits": ["old"], "assertions": [{"text": "new", "passed": true}]}`,
			score: 1, hits: []string{"old", "new"}, misses: []string{}},
		{name: "empty checks, no score", out: `{"assertions": []}`,
			score: 0, hits: []string{}, misses: []string{"code judge result has no numeric score"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			v := parseJudgeOutput([]byte(tt.out))
			if v.err != nil || v.score != tt.score || v.reasoning != tt.reasoning {
				t.Fatalf("score %v reasoning %q err %v, want %v %q", v.score, v.reasoning, v.err, tt.score, tt.reasoning)
			}
			if diff := cmp.Diff(tt.hits, v.hits); diff != "" {
				t.Errorf("hits (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.misses, v.misses); diff != "" {
				t.Errorf("misses (-want +got):\n%s", diff)
			}
		})
	}
}
