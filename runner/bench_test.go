package runner

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentv/action/evaluators"
	"github.com/agentv/action/internal/redact"
	"github.com/agentv/action/plan"
	"github.com/agentv/action/providers"
	"github.com/agentv/action/results"
	"github.com/agentv/action/suite"
	"github.com/agentv/action/targets"
)

// benchCases is the size of the suite BenchmarkStreamJSONL runs per iteration.
const benchCases = 10000

// writeBenchSuite writes a JSONL suite and targets file shaped like bench/jsonl.py's: a mock
// target answering every case and a mock judge with a canned verdict.
func writeBenchSuite(b *testing.B, n int) (dir string) {
	b.Helper()
	dir = b.TempDir()
	var sb strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&sb, `{"id":"case-%06d","expected_outcome":"The assistant answers 42 as JSON.","input_messages":[{"role":"system","content":"Answer with a single JSON object."},{"role":"user","content":"Question %d: what is six times seven?"}],"expected_messages":[{"role":"assistant","content":"{\"answer\":\"42\"}"}]}`+"\n", i, i)
	}
	files := map[string]string{
		"eval.jsonl": sb.String(),
		"eval.yaml":  "description: JSONL scale suite\ndataset: scale\nexecution:\n  target: mock\n",
		"targets.yaml": "targets:\n  - name: mock\n    provider: mock\n    response: '{\"answer\":\"42\"}'\n    workers: 1\n    judge_target: judge\n" +
			"  - name: judge\n    provider: mock\n    response: '{\"score\":1,\"hits\":[\"ok\"],\"misses\":[],\"reasoning\":\"canned\"}'\n",
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

// BenchmarkStreamJSONL runs a 10,000-case JSONL suite end to end in process, as `agentv eval`
// does minus the cli: streamed loading, the lane, the mock target, the default llm_judge on a
// mock judge and results written as JSONL (to io.Discard). ns/case is the figure to watch.
func BenchmarkStreamJSONL(b *testing.B) {
	dir := writeBenchSuite(b, benchCases)
	red := &redact.Redactor{}
	tf := targets.Load(filepath.Join(dir, "targets.yaml"), func(string) (string, bool) { return "", false }, red)
	if suite.HasErrors(tf.Diagnostics) {
		b.Fatalf("targets: %v", tf.Diagnostics)
	}
	build := func(name string) providers.Provider {
		t, err := tf.Find(name)
		if err != nil {
			b.Fatal(err)
		}
		p, _, err := providers.New(t, providers.Options{})
		if err != nil {
			b.Fatal(err)
		}
		return p
	}
	target, judge := build("mock"), build("judge")
	judges := func(*targets.Target, string) (providers.Provider, error) { return judge, nil }
	b.ReportAllocs()
	var n int
	for b.Loop() {
		w := results.NewWriter(io.Discard)
		n = 0
		r := New(Options{Redactor: red, Evaluators: evaluators.Options{Judges: judges, Redactor: red}},
			func(rec *results.Record) {
				if rec.Verdict != results.VerdictPass {
					b.Fatalf("%s: %s %s", rec.EvalID, rec.Verdict, rec.Error)
				}
				if err := w.Write(rec); err != nil {
					b.Fatal(err)
				}
				n++
			})
		ch := make(chan *plan.Job)
		go func() {
			defer close(ch)
			suite.Load(filepath.Join(dir, "eval.jsonl"), suite.LoadOptions{Cwd: dir, OnCase: func(c *suite.Case) bool {
				ch <- &plan.Job{Case: c, Provider: target, File: "eval.jsonl"}
				return true
			}})
		}()
		r.Run(context.Background(), ch)
		if err := w.Flush(); err != nil {
			b.Fatal(err)
		}
	}
	if n != benchCases {
		b.Fatalf("%d records, want %d", n, benchCases)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchCases), "ns/case")
}
