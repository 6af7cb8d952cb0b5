package e2e_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/agentv/action/internal/suitegen"
	"github.com/agentv/action/results"
)

// Suites written by the repository's generator (internal/suitegen, AgentV 2.5 format) run
// unchanged and every case scores 1; the provider and judges must have received each case's
// own input.
func TestGeneratedSuites(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	dir := t.TempDir()
	for _, mode := range suitegen.Modes {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			switch mode {
			case "code_py":
				requireTools(t, "python3")
			case "code_node":
				requireTools(t, "node")
			}
			suiteDir, err := suitegen.Write(dir, mode, 12)
			if err != nil {
				t.Fatal(err)
			}
			args := []string{"eval", "eval.yaml", "--workers", "4"}
			if mode == "delay" {
				args = append(args, "--dry-run", "--dry-run-delay", "20")
			}
			res := agentv(t, suiteDir, nil, args...)
			if res.code != 0 || len(res.records) != 12 {
				t.Fatalf("exit %d, %d records\n%s%s", res.code, len(res.records), res.stdout, res.stderr)
			}
			for _, r := range res.records {
				n := strings.TrimLeft(strings.TrimPrefix(r.EvalID, "case-"), "0")
				question := fmt.Sprintf("Question %s: what is six times seven?", n)
				if r.Score != 1 || r.Verdict != results.VerdictPass {
					t.Errorf("%s: score %v verdict %s", r.EvalID, r.Score, r.Verdict)
				}
				// The target got this case's question (system + user: role-marker form).
				if !strings.Contains(string(r.LMProviderRequest), question) || !strings.Contains(string(r.LMProviderRequest), "careful assistant") {
					t.Errorf("%s: target request %s lacks the case's messages", r.EvalID, r.LMProviderRequest)
				}
				want := `{"answer":"Mock dry-run response"}`
				if mode != "delay" {
					want = `{"answer":"42"}`
				}
				if r.CandidateAnswer != want {
					t.Errorf("%s: candidate %q, want %q", r.EvalID, r.CandidateAnswer, want)
				}
				if mode == "llm" || mode == "none" {
					req := judgeRequest(t, r)
					for _, w := range []string{question, "The assistant answers 42 as JSON.", `{"answer":"42"}`, "[[ ## candidate_answer ## ]]"} {
						if !strings.Contains(req.UserPrompt, w) {
							t.Errorf("%s: judge prompt lacks %q:\n%s", r.EvalID, w, req.UserPrompt)
						}
					}
					if req.Target != "mock_judge" {
						t.Errorf("%s: judge target %q, want mock_judge", r.EvalID, req.Target)
					}
				}
			}
		})
	}
}

type judgeReq struct {
	UserPrompt   string `json:"user_prompt"`
	SystemPrompt string `json:"system_prompt"`
	Target       string `json:"target"`
}

// judgeRequest returns the LLM judge request of a record: the default judge's at the top,
// else the first llm_judge evaluator's.
func judgeRequest(t *testing.T, r *results.Record) judgeReq {
	t.Helper()
	raw := r.EvaluatorProviderRequest
	for _, e := range r.EvaluatorResults {
		if raw == nil && e.Type == "llm_judge" {
			raw = e.EvaluatorProviderRequest
		}
	}
	return parseJudgeReq(t, raw)
}

func parseJudgeReq(t *testing.T, raw json.RawMessage) judgeReq {
	t.Helper()
	var req judgeReq
	if err := json.Unmarshal(raw, &req); err != nil {
		t.Fatalf("judge request %s: %v", raw, err)
	}
	return req
}
