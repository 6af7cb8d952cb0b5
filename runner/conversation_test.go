package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/agentv/action/internal/redact"
	"github.com/agentv/action/providers"
	"github.com/agentv/action/results"
	"github.com/agentv/action/suite"
	"github.com/agentv/action/targets"
)

// loadConversation loads a 4.x eval file holding conversation tests.
func loadConversation(t *testing.T, src string) *suite.Suite {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "conv.eval.yaml")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	s := suite.Load(path, suite.LoadOptions{Cwd: dir})
	if suite.HasErrors(s.Diagnostics) {
		t.Fatalf("load: %v", s.Diagnostics)
	}
	return s
}

// chatLog is a target that answers "re: <last user message>" (or fails on a message holding
// "FAIL") and keeps every request it was sent.
type chatLog struct {
	mu   sync.Mutex
	reqs []*providers.Request
}

func (l *chatLog) provider(kind string) *fakeProvider {
	return &fakeProvider{target: &targets.Target{Name: "t", Kind: kind},
		answer: func(_ context.Context, req *providers.Request) (*providers.Response, error) {
			l.mu.Lock()
			l.reqs = append(l.reqs, req)
			l.mu.Unlock()
			last := req.Question
			if n := len(req.Chat); n > 0 {
				last = req.Chat[n-1].Content
			} else if i := strings.LastIndex(last, "@[User]:\n"); i >= 0 {
				last = last[i+len("@[User]:\n"):]
			}
			if strings.Contains(last, "FAIL") {
				return nil, errors.New("connection refused")
			}
			return &providers.Response{Text: "re: " + last}, nil
		}}
}

// chatText renders a chat prompt as "role: content" lines for comparison.
func chatText(chat []providers.ChatMessage) string {
	var lines []string
	for _, m := range chat {
		lines = append(lines, m.Role+": "+m.Content)
	}
	return strings.Join(lines, "\n")
}

// TestConversationHistory checks what each turn sends: to an LM target, the test's input, then
// every earlier turn's input and the target's own answer (not the expected output), as chat
// messages, window_size keeping the system messages and the last 2 × N others; to an agent
// target, the turn's input alone.
func TestConversationHistory(t *testing.T) {
	t.Parallel()
	src := `tests:
  - id: chat
    mode: conversation
    input:
      - role: system
        content: Be brief.
      - role: user
        content: Context here.
    turns:
      - input: one
        expected_output: not sent
      - input: two
      - input: three
`
	windowed := strings.Replace(src, "mode: conversation\n", "mode: conversation\n    window_size: 1\n", 1)
	tests := []struct {
		name, src, kind string
		want            []string // per turn: the chat prompt (LM) or the question (agent)
	}{
		{"lm chat", src, targets.KindMock, []string{
			"system: Be brief.\nuser: Context here.\nuser: one",
			"system: Be brief.\nuser: Context here.\nuser: one\nassistant: re: one\nuser: two",
			"system: Be brief.\nuser: Context here.\nuser: one\nassistant: re: one\nuser: two\nassistant: re: two\nuser: three",
		}},
		// As in AgentV 4.42.4, an agent target gets the turn's input alone.
		{"agent question", src, targets.KindCLI, []string{"one", "two", "three"}},
		{"claude question", src, targets.KindClaude, []string{"one", "two", "three"}},
		{"window of one exchange", windowed, targets.KindMock, []string{
			"system: Be brief.\nuser: Context here.\nuser: one",
			"system: Be brief.\nassistant: re: one\nuser: two", // one exchange: two messages
			"system: Be brief.\nassistant: re: two\nuser: three",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := loadConversation(t, tt.src)
			var log chatLog
			var col collector
			jobs := jobsFor(s, log.provider(tt.kind))
			ws := t.TempDir() // the suite's workspace: every turn runs there, as in 4.42.4
			jobs[0].Workspace = ws
			New(testOptions(1), col.CaseFinished).Run(t.Context(), feed(t.Context(), jobs))
			if len(log.reqs) != len(tt.want) {
				t.Fatalf("%d requests, want %d", len(log.reqs), len(tt.want))
			}
			for i, req := range log.reqs {
				got := req.Question
				if tt.kind == targets.KindMock {
					got = chatText(req.Chat)
				}
				if got != tt.want[i] {
					t.Errorf("turn %d sent:\n%s\nwant:\n%s", i+1, got, tt.want[i])
				}
				if req.Workspace != ws {
					t.Errorf("turn %d sent with workspace %q, want the suite's %q", i+1, req.Workspace, ws)
				}
				if want := "chat/turn-" + strconv.Itoa(i+1); req.EvalID != want {
					t.Errorf("turn %d eval id %q, want %q", i+1, req.EvalID, want)
				}
			}
			r := col.recs[0]
			if r.CandidateAnswer != "re: three" || len(r.Turns) != 3 || r.Turns[1].Answer != "re: two" || r.Turns[1].Input != "two" {
				t.Errorf("record: answer %q, turns %+v", r.CandidateAnswer, r.Turns)
			}
		})
	}
}

// TestConversationScoring checks the aggregation of turn scores (and of the transcript's, from
// the test's own assertions), what on_turn_failure: stop leaves unsent, and that a target that
// fails on a turn makes the case an error naming the turn.
func TestConversationScoring(t *testing.T) {
	t.Parallel()
	turns := `    turns:
      - input: alpha
        assertions:
          - type: contains
            value: alpha
      - input: beta
        assertions:
          - type: contains
            value: nope
      - input: gamma
`
	tests := []struct {
		name, keys   string
		extraTurns   string
		wantScore    float64
		wantVerdict  results.Verdict
		wantCalls    int
		wantEntries  string // name:verdict of each evaluator_results entry
		wantMiss     string // the record's first miss
		wantTurnVerd string // verdict of each recorded turn
	}{
		{name: "mean", wantScore: 2.0 / 3, wantVerdict: results.VerdictFail, wantCalls: 3,
			wantEntries: "turn-1:pass turn-2:fail turn-3:pass", wantMiss: `turn-2: Output does not contain "nope"`, wantTurnVerd: "pass fail pass"},
		{name: "min", keys: "    aggregation: min\n", wantScore: 0, wantVerdict: results.VerdictFail, wantCalls: 3,
			wantEntries: "turn-1:pass turn-2:fail turn-3:pass", wantMiss: `turn-2: Output does not contain "nope"`, wantTurnVerd: "pass fail pass"},
		{name: "max", keys: "    aggregation: max\n", wantScore: 1, wantVerdict: results.VerdictPass, wantCalls: 3,
			wantEntries: "turn-1:pass turn-2:fail turn-3:pass", wantMiss: `turn-2: Output does not contain "nope"`, wantTurnVerd: "pass fail pass"},
		{name: "stop", keys: "    on_turn_failure: stop\n", wantScore: 1.0 / 3, wantVerdict: results.VerdictFail, wantCalls: 2,
			wantEntries: "turn-1:pass turn-2:fail turn-3:skip", wantMiss: `turn-2: Output does not contain "nope"`, wantTurnVerd: "pass fail not_sent"},
		{name: "continue is the default", keys: "    on_turn_failure: continue\n", wantScore: 2.0 / 3, wantVerdict: results.VerdictFail, wantCalls: 3,
			wantEntries: "turn-1:pass turn-2:fail turn-3:pass", wantMiss: `turn-2: Output does not contain "nope"`, wantTurnVerd: "pass fail pass"},
		{name: "transcript assertions", keys: "    assertions:\n      - type: contains\n        value: \"user: gamma\"\n",
			wantScore: 3.0 / 4, wantVerdict: results.VerdictFail, wantCalls: 3,
			wantEntries: "turn-1:pass turn-2:fail turn-3:pass conversation:pass", wantMiss: `turn-2: Output does not contain "nope"`, wantTurnVerd: "pass fail pass"},
		{name: "the test's threshold", keys: "    execution: {threshold: 0.5}\n", wantScore: 2.0 / 3, wantVerdict: results.VerdictPass, wantCalls: 3,
			wantEntries: "turn-1:pass turn-2:fail turn-3:pass", wantMiss: `turn-2: Output does not contain "nope"`, wantTurnVerd: "pass fail pass"},
		{name: "target fails on a turn", extraTurns: "      - input: FAIL now\n      - input: later\n        assertions: [{type: contains, value: later}]\n",
			wantScore: 3.0 / 5, wantVerdict: results.VerdictError, wantCalls: 5,
			wantEntries: "turn-1:pass turn-2:fail turn-3:pass turn-4:error turn-5:pass", wantMiss: `turn-2: Output does not contain "nope"`,
			wantTurnVerd: "pass fail pass error pass"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			src := "tests:\n  - id: conv\n    mode: conversation\n    input: Start.\n" + tt.keys + turns + tt.extraTurns
			s := loadConversation(t, src)
			var log chatLog
			var col collector
			New(testOptions(1), col.CaseFinished).Run(t.Context(), feed(t.Context(), jobsFor(s, log.provider(targets.KindMock))))
			r := col.recs[0]
			if len(log.reqs) != tt.wantCalls {
				t.Errorf("%d target calls, want %d", len(log.reqs), tt.wantCalls)
			}
			if diff := r.Score - tt.wantScore; diff > 1e-9 || diff < -1e-9 || r.Verdict != tt.wantVerdict {
				t.Errorf("score %v verdict %s, want %v %s", r.Score, r.Verdict, tt.wantScore, tt.wantVerdict)
			}
			var entries, verdicts []string
			for _, e := range r.EvaluatorResults {
				entries = append(entries, e.Name+":"+e.Verdict)
			}
			for _, tr := range r.Turns {
				verdicts = append(verdicts, tr.Verdict)
			}
			if got := strings.Join(entries, " "); got != tt.wantEntries {
				t.Errorf("entries %q, want %q", got, tt.wantEntries)
			}
			if got := strings.Join(verdicts, " "); got != tt.wantTurnVerd {
				t.Errorf("turn verdicts %q, want %q", got, tt.wantTurnVerd)
			}
			if len(r.Misses) == 0 || r.Misses[0] != tt.wantMiss {
				t.Errorf("misses %q, want first %q", r.Misses, tt.wantMiss)
			}
		})
	}
}

// TestConversationStopRecord checks what a stopped conversation records about the turns it did
// not send, and that the error of a turn whose target failed names that turn.
func TestConversationStopRecord(t *testing.T) {
	t.Parallel()
	s := loadConversation(t, `tests:
  - id: stops
    mode: conversation
    on_turn_failure: stop
    input: Start.
    turns:
      - input: FAIL please
      - input: after
`)
	var log chatLog
	var col collector
	New(testOptions(1), col.CaseFinished).Run(t.Context(), feed(t.Context(), jobsFor(s, log.provider(targets.KindMock))))
	r := col.recs[0]
	if len(log.reqs) != 1 {
		t.Errorf("%d target calls, want 1 (the second turn is not sent)", len(log.reqs))
	}
	if r.Verdict != results.VerdictError || r.Score != 0 || !strings.HasPrefix(r.Error, "turn-1: the target gave no answer: ") {
		t.Errorf("verdict %s score %v error %q", r.Verdict, r.Score, r.Error)
	}
	if len(r.Turns) != 2 || r.Turns[1].Verdict != results.TurnNotSent || r.Turns[1].Answer != "" {
		t.Fatalf("turns %+v", r.Turns)
	}
	if got := r.EvaluatorResults[1].Misses; len(got) != 1 || got[0] != "not sent: turn 1 failed and on_turn_failure is stop" {
		t.Errorf("turn-2 misses %q", got)
	}
}

// TestConversationJudgedTurn checks that a turn with only expected_output is scored by the
// default judge, which sees that turn's reference answer, and that a turn with neither
// assertions nor expected output scores 1 without a judge.
func TestConversationJudgedTurn(t *testing.T) {
	t.Parallel()
	s := loadConversation(t, `tests:
  - id: judged
    mode: conversation
    input: Start.
    turns:
      - input: hello
        expected_output: Hello to you.
      - input: bye
`)
	var log chatLog
	var col collector
	New(testOptions(0.5), col.CaseFinished).Run(t.Context(), feed(t.Context(), jobsFor(s, log.provider(targets.KindMock))))
	r := col.recs[0]
	if r.Score != 0.75 { // (0.5 + 1) / 2
		t.Errorf("score %v, want 0.75", r.Score)
	}
	if len(r.EvaluatorResults) != 2 || len(r.EvaluatorResults[0].EvaluatorResults) != 1 || len(r.EvaluatorResults[1].EvaluatorResults) != 0 {
		t.Fatalf("entries %+v", r.EvaluatorResults)
	}
	judge := r.EvaluatorResults[0].EvaluatorResults[0]
	if judge.Name != "llm_judge" || !strings.Contains(string(judge.EvaluatorProviderRequest), "Hello to you.") {
		t.Errorf("turn-1 judge %s request %s: want the default judge given the turn's reference", judge.Name, judge.EvaluatorProviderRequest)
	}
}

// TestConversationRedacts checks that a secret a target echoes in a turn's answer, or that a
// turn's input holds, is masked in the record's turns like everywhere else in the record, and
// in each trial's turns when the test runs as trials.
func TestConversationRedacts(t *testing.T) {
	t.Parallel()
	const secret = "sk-conv-secret-123456"
	for _, trials := range []int{1, 2} {
		t.Run(fmt.Sprintf("%d trials", trials), func(t *testing.T) {
			t.Parallel()
			s := loadConversation(t, "tests:\n  - id: leak\n    mode: conversation\n    input: Start.\n    turns:\n      - input: key "+secret+"\n      - input: again\n")
			var log chatLog
			var col collector
			opts := testOptions(1)
			opts.Redactor = &redact.Redactor{}
			opts.Redactor.Add(secret)
			opts.Trials = suite.Trials{Count: trials, Strategy: suite.TrialsMean}
			New(opts, col.CaseFinished).Run(t.Context(), feed(t.Context(), jobsFor(s, log.provider(targets.KindMock))))
			r := col.recs[0]
			all := [][]results.Turn{r.Turns}
			for _, tr := range r.Trials {
				all = append(all, tr.Turns)
			}
			if want := map[int]int{1: 0, 2: 2}[trials]; len(r.Trials) != want {
				t.Fatalf("%d trials in the record, want %d", len(r.Trials), want)
			}
			for _, turns := range all {
				if len(turns) != 2 {
					t.Fatalf("turns %+v", turns)
				}
				for _, tr := range turns {
					if strings.Contains(tr.Input+tr.Answer, secret) {
						t.Errorf("turn %d keeps the secret: input %q answer %q", tr.Turn, tr.Input, tr.Answer)
					}
				}
				if !strings.Contains(turns[0].Answer, "re: key ") {
					t.Errorf("turn 1 answer %q, want the masked echo", turns[0].Answer)
				}
			}
		})
	}
}
