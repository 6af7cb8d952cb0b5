package evaluators

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/agentv/action/internal/suitegen"
	"github.com/agentv/action/providers"
	"github.com/agentv/action/suite"
	"github.com/agentv/action/targets"
)

// benchJudgePy does real work: it parses the payload and scores word overlap between the
// answer and the expected output.
const benchJudgePy = `import json, sys
d = json.load(sys.stdin)
want = set(json.dumps(d["expected_output"]).lower().replace('"', ' ').split())
got = set(d["actual_output"].lower().split())
score = len(want & got) / max(1, len(want))
print(json.dumps({"score": score, "hits": sorted(want & got)[:4], "misses": sorted(want - got)[:4], "reasoning": "overlap"}))
`

// BenchmarkCodeJudgeOverhead compares a python3 judge run through the code_judge evaluator
// with the same script run by hand (exec.Command, payload on stdin, stdout read). The
// difference of the two ns/op is the evaluator's overhead (the goal: at most 1 ms per case).
func BenchmarkCodeJudgeOverhead(b *testing.B) {
	py, err := exec.LookPath("python3")
	if err != nil {
		b.Skip("python3 is not on PATH")
	}
	// Resolve shims (pyenv) once so both sides start the same interpreter directly.
	if out, err := exec.Command(py, "-c", "import sys; print(sys.executable)").Output(); err == nil {
		py = strings.TrimSpace(string(out))
	}
	dir := b.TempDir()
	script := writeFile(b, dir, "judge.py", benchJudgePy)
	spec := codeSpec("bench", py, script)
	c := riskCase(dir, spec)
	c.Expected = []suite.Message{text("assistant", "The risk level is High because the account shows repeated chargebacks")}
	in := riskInput(c, "Risk level: High, repeated chargebacks on the account")
	opts := &Options{Timeout: time.Minute}
	payload, err := Payload(in, nil)
	if err != nil {
		b.Fatal(err)
	}

	b.Run("evaluator", func(b *testing.B) {
		for b.Loop() {
			out := Evaluate(b.Context(), in, opts)
			if out.Errored || out.Score == 0 {
				b.Fatalf("judge failed: %+v", out.Results[0])
			}
		}
	})
	byHand := func(b *testing.B) {
		cmd := exec.CommandContext(b.Context(), py, script)
		cmd.Dir = dir
		cmd.Stdin = bytes.NewReader(payload)
		out, err := cmd.Output()
		var v struct{ Score float64 }
		if err != nil || json.Unmarshal(out, &v) != nil || v.Score == 0 {
			b.Fatalf("judge failed: %v %s", err, out)
		}
	}
	b.Run("by_hand", func(b *testing.B) {
		for b.Loop() {
			byHand(b)
		}
	})
	// On a busy machine process start-up varies by more than the overhead itself; running
	// both in alternation and reporting the mean difference cancels most of that drift. The
	// parent's own CPU time (rusage, children excluded) is reported too: it is what the
	// evaluator adds in this process and hardly depends on the machine's load.
	b.Run("paired", func(b *testing.B) {
		var viaEval, viaHand, cpuEval, cpuHand time.Duration
		for b.Loop() {
			c0, t0 := selfCPU(), time.Now()
			if out := Evaluate(b.Context(), in, opts); out.Errored {
				b.Fatalf("judge failed: %+v", out.Results[0])
			}
			c1, t1 := selfCPU(), time.Now()
			byHand(b)
			c2, t2 := selfCPU(), time.Now()
			viaEval += t1.Sub(t0)
			viaHand += t2.Sub(t1)
			cpuEval += c1 - c0
			cpuHand += c2 - c1
		}
		n := float64(b.N)
		b.ReportMetric(float64(viaEval.Nanoseconds())/n, "evaluator-ns/op")
		b.ReportMetric(float64(viaHand.Nanoseconds())/n, "by-hand-ns/op")
		b.ReportMetric(float64((viaEval-viaHand).Nanoseconds())/n, "overhead-ns/op")
		b.ReportMetric(float64((cpuEval-cpuHand).Nanoseconds())/n, "overhead-cpu-ns/op")
	})
}

// BenchmarkInProcessEvaluators measures the per-case cost of evaluators that spawn nothing:
// field_accuracy (gen.py mode fa) and the default llm_judge against an in-memory judge.
func BenchmarkInProcessEvaluators(b *testing.B) {
	fa := faSpec(`{"fields": [{"path": "answer", "match": "exact"}]}`)
	t, _ := suite.LookupEvaluator(fa.Type)
	fa.Parsed, _ = t.Parse(fa) // at load time, as the loader does
	cases := map[string]*suite.Case{"field_accuracy": riskCase("/evals", fa), "default_llm_judge": riskCase("/evals")}
	for name, c := range cases {
		c.Expected = []suite.Message{text("assistant", `{"answer":"42"}`)}
		in := riskInput(c, `{"answer":"42"}`)
		opts := judgeOpts(benchJudge{}, nil)
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if out := Evaluate(b.Context(), in, opts); out.Score != 1 {
					b.Fatalf("score %v: %+v", out.Score, out.Results[0])
				}
			}
		})
	}
}

// benchJudge answers every judge call with a canned verdict, recording nothing.
type benchJudge struct{}

func (benchJudge) Target() *targets.Target { return &targets.Target{Name: "bench-judge"} }

func (benchJudge) Invoke(context.Context, *providers.Request) (*providers.Response, error) {
	return &providers.Response{Text: `{"score":1,"hits":["canned hit"],"misses":[],"reasoning":"canned verdict"}`}, nil
}

// BenchmarkLoadV4_5000 loads a 5,000-test AgentV 4.x suite (criteria, messages and four
// assertions per test). It lives here rather than in package suite because the 4.x
// assertion types are registered by this package; retained-B is the heap the loaded suite
// keeps, which must stay well under 100 MiB.
func BenchmarkLoadV4_5000(b *testing.B) {
	dir, err := suitegen.Write(b.TempDir(), "v4", 5000)
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(dir, "eval.yaml")
	b.ReportAllocs()
	var retained uint64
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		s := suite.Load(path, suite.LoadOptions{Cwd: dir})
		runtime.GC()
		runtime.ReadMemStats(&after)
		if len(s.Cases) != 5000 || suite.HasErrors(s.Diagnostics) {
			b.Fatalf("loaded %d tests, %d diagnostics", len(s.Cases), len(s.Diagnostics))
		}
		retained = after.HeapAlloc - before.HeapAlloc
		runtime.KeepAlive(s)
	}
	b.ReportMetric(float64(retained), "retained-B")
}
