package evaluators

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/agentv/action/internal/redact"
	"github.com/agentv/action/providers"
	"github.com/agentv/action/suite"
	"github.com/agentv/action/targets"
)

// fakeJudge is a providers.Provider for judge calls: it records requests and answers
// with a canned reply or error. With hang it blocks until its context ends.
type fakeJudge struct {
	name  string
	reply string
	err   error
	hang  bool

	mu   sync.Mutex
	reqs []*providers.Request
}

var _ providers.Provider = (*fakeJudge)(nil)

func (f *fakeJudge) Target() *targets.Target { return &targets.Target{Name: f.name, Kind: "mock"} }

func (f *fakeJudge) Invoke(ctx context.Context, req *providers.Request) (*providers.Response, error) {
	f.mu.Lock()
	f.reqs = append(f.reqs, req)
	f.mu.Unlock()
	if f.hang {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	if f.err != nil {
		return nil, f.err
	}
	return &providers.Response{
		Text:           f.reply,
		OutputMessages: []suite.Message{{Role: "assistant", Content: suite.Content{Kind: suite.ContentText, Text: f.reply}}},
	}, nil
}

func (f *fakeJudge) requests() []*providers.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]*providers.Request(nil), f.reqs...)
}

// judgeOpts returns options whose resolver hands out j and records the override it got.
func judgeOpts(j providers.Provider, override *string) *Options {
	return &Options{
		// Generous: tsx and bun start slowly on a loaded 2-core machine; tests of timeouts set their own.
		Timeout:  60 * time.Second,
		Redactor: &redact.Redactor{},
		Judges: func(_ *targets.Target, o string) (providers.Provider, error) {
			if override != nil {
				*override = o
			}
			return j, nil
		},
	}
}

func text(role, s string) suite.Message {
	return suite.Message{Role: role, Content: suite.Content{Kind: suite.ContentText, Text: s}}
}

func structured(role, raw string) suite.Message {
	return suite.Message{Role: role, Content: suite.Content{Kind: suite.ContentStructured, Structured: json.RawMessage(raw)}}
}

// riskCase is the risk-classification example case of the code judge payload docs.
func riskCase(dir string, evs ...*suite.EvaluatorSpec) *suite.Case {
	return &suite.Case{
		Suite:           &suite.Suite{Dir: dir, Dataset: "risk", Abs: filepath.Join(dir, "eval.yaml")},
		ID:              "risk-1",
		Line:            3,
		ExpectedOutcome: "Correctly classify as high risk",
		Input:           []suite.Message{text("user", "What is the risk level?")},
		Expected:        []suite.Message{structured("assistant", `{"riskLevel": "High"}`)},
		Question:        "What is the risk level?",
		Evaluators:      evs,
	}
}

// riskInput wraps a case with a target answer.
func riskInput(c *suite.Case, candidate string) *Input {
	return &Input{
		Case:      c,
		Target:    &targets.Target{Name: "agent", JudgeTarget: "judge"},
		Request:   &providers.Request{EvalID: c.ID, Question: "Formatted: " + c.Question + "  \n", Dir: c.Suite.Dir},
		Response:  &providers.Response{Text: candidate, OutputMessages: []suite.Message{text("assistant", candidate)}},
		Candidate: candidate,
	}
}

// writeFile writes a file under dir and returns its absolute path.
func writeFile(t testing.TB, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func needTool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("%s is not on PATH", name)
	}
	return p
}

func codeSpec(name string, script ...string) *suite.EvaluatorSpec {
	return &suite.EvaluatorSpec{Name: name, Type: suite.TypeCodeJudge, Weight: 1, Script: script}
}
