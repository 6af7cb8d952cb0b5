package results

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentv/action/internal/atomicfile"
)

// AgentV 4.42.4's run directory holds a folder per test beside index.jsonl
// (packages/core/src/evaluation/run-artifacts.ts, writePerTestArtifacts): SUITE/TEST_ID/ with
// grading.json, timing.json, input.md, outputs/answer.md and response.md, and
// outputs/trace.json and transcript.jsonl (trace4.go); the index row names them. Model text
// goes into the JSON files JSON-encoded and into the .md files as it is.

// v4Artifacts are the per-test paths of an index row, relative to the run directory.
type v4Artifacts struct {
	ArtifactDir    string `json:"artifact_dir,omitempty"`
	GradingPath    string `json:"grading_path,omitempty"`
	TimingPath     string `json:"timing_path,omitempty"`
	OutputPath     string `json:"output_path,omitempty"`
	AnswerPath     string `json:"answer_path,omitempty"`
	TranscriptPath string `json:"transcript_path,omitempty"`
	InputPath      string `json:"input_path,omitempty"`
	ResponsePath   string `json:"response_path,omitempty"`
}

// v4Grading is a test's grading.json (4.42.4's GradingArtifact).
type v4Grading struct {
	Assertions []v4GradedAssertion `json:"assertions"`
	Summary    struct {
		Passed   int     `json:"passed"`
		Failed   int     `json:"failed"`
		Total    int     `json:"total"`
		PassRate float64 `json:"pass_rate"`
	} `json:"summary"`
	ExecutionMetrics struct {
		ToolCalls         map[string]int `json:"tool_calls"`
		TotalToolCalls    int            `json:"total_tool_calls"`
		ErrorsEncountered int            `json:"errors_encountered"`
	} `json:"execution_metrics"`
	Graders      []v4GradingGrader `json:"graders,omitempty"`
	Conversation *v4Conversation   `json:"conversation,omitempty"`
}

// v4GradedAssertion is an assertion of grading.json: evidence always present, "" if none.
type v4GradedAssertion struct {
	Text     string `json:"text"`
	Passed   bool   `json:"passed"`
	Evidence string `json:"evidence"`
}

// v4GradingGrader is a grader of grading.json; 4.42.4 leaves its reasoning empty.
type v4GradingGrader struct {
	Name       string          `json:"name"`
	Type       string          `json:"type"`
	Score      float64         `json:"score"`
	Reasoning  string          `json:"reasoning"`
	Weight     *float64        `json:"weight,omitempty"` // nil: the entry has none (NoWeight)
	Verdict    string          `json:"verdict"`
	Assertions []Assertion     `json:"assertions"`
	Details    json.RawMessage `json:"details,omitempty"`
}

type v4Conversation struct {
	Turns          int    `json:"turns"`
	ConversationID string `json:"conversation_id"`
}

// v4Timing is a test's timing.json, and the run's (4.42.4's TimingArtifact).
type v4Timing struct {
	TotalTokens          int64            `json:"total_tokens"`
	DurationMS           int64            `json:"duration_ms"`
	TotalDurationSeconds float64          `json:"total_duration_seconds"`
	TokenUsage           map[string]int64 `json:"token_usage"`
}

// asserted is hits and misses as 4.x assertions: the hits passed, the misses failed.
func asserted(hits, misses []string) []Assertion {
	out := make([]Assertion, 0, len(hits)+len(misses))
	for _, h := range hits {
		out = append(out, Assertion{Text: h, Passed: true})
	}
	for _, m := range misses {
		out = append(out, Assertion{Text: m})
	}
	return out
}

// gradingOf is record r's grading.json: its graders' assertions in order (an errored test
// without any holds one failed `Error: ...`), as 4.42.4 flattens them.
func gradingOf(r *Record, row *v4OutRow) *v4Grading {
	g := &v4Grading{Assertions: []v4GradedAssertion{}}
	for i := range r.EvaluatorResults {
		e := &r.EvaluatorResults[i]
		as := e.Assertions // a grader's own when its verdict had them
		if as == nil {
			as = asserted(e.Hits, e.Misses)
		}
		for _, a := range as {
			g.Assertions = append(g.Assertions, v4GradedAssertion(a))
		}
		if row.Scores != nil { // the default judge is no grader of the row, nor here
			g.Graders = append(g.Graders, v4GradingGrader{Name: e.Name, Type: e.Type, Score: finite(e.Score),
				Weight: e.WeightOrNil(), Verdict: e.Verdict, Assertions: as, Details: validRaw(e.Details)})
		}
	}
	if len(g.Assertions) == 0 && r.Error != "" {
		g.Assertions = append(g.Assertions, v4GradedAssertion{Text: "Error: " + r.Error})
	}
	for _, a := range g.Assertions {
		if a.Passed {
			g.Summary.Passed++
		} else {
			g.Summary.Failed++
		}
	}
	g.Summary.Total = len(g.Assertions)
	if g.Summary.Total > 0 {
		g.Summary.PassRate = math.Round(float64(g.Summary.Passed)/float64(g.Summary.Total)*1000) / 1000
	}
	g.ExecutionMetrics.ToolCalls = map[string]int{}
	if ts := r.TraceSummary; ts != nil {
		for name, n := range ts.ToolCallsByName {
			g.ExecutionMetrics.ToolCalls[name] = n
			g.ExecutionMetrics.TotalToolCalls += n
		}
	}
	if r.Error != "" {
		g.ExecutionMetrics.ErrorsEncountered = 1
	}
	if r.ConversationID != "" {
		turns := len(r.Turns)
		if turns == 0 && r.CandidateAnswer != "" {
			turns = 1
		}
		g.Conversation = &v4Conversation{Turns: turns, ConversationID: r.ConversationID}
	}
	return g
}

// timingOf is the timing.json of durationMS and tokens.
func timingOf(durationMS, in, out int64) *v4Timing {
	return &v4Timing{TotalTokens: in + out, DurationMS: durationMS, TotalDurationSeconds: float64(durationMS) / 1000,
		TokenUsage: map[string]int64{"input": in, "output": out, "reasoning": 0}}
}

// inputOf is record r's input as 4.42.4's input.md writes it: each message as `@[role]:`
// and its content, blank lines between; "" when the record holds none.
func inputOf(r *Record) string {
	msgs := requestOf(r)
	parts := make([]string, len(msgs))
	for i, m := range msgs {
		parts[i] = "@[" + m.Role + "]:\n" + m.Content
	}
	return strings.Join(parts, "\n\n")
}

// chatMessage is a message of a record's request.
type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// requestOf is the input record r's target was sent: its chat_prompt, else its question as
// one user message; nil when the record holds neither.
func requestOf(r *Record) []chatMessage {
	raw := r.LMProviderRequest
	if raw == nil {
		raw = r.AgentProviderRequest
	}
	var req struct {
		Question string        `json:"question"`
		Chat     []chatMessage `json:"chat_prompt"`
	}
	if raw == nil || json.Unmarshal(raw, &req) != nil {
		return nil
	}
	if len(req.Chat) == 0 && req.Question != "" {
		return []chatMessage{{"user", req.Question}}
	}
	return req.Chat
}

// artifactSegment is a suite name or test id as a folder name: 4.42.4 replaces / \ : * ? "
// < > | with _ (run-artifacts.ts, safeArtifactPathSegment); NUL too, and "." and ".." are
// made "_" and "__" so that no id names a folder outside the run directory.
func artifactSegment(v, fallback string) string {
	v = strings.TrimSpace(v)
	if v == "" {
		return fallback
	}
	v = strings.Map(func(c rune) rune {
		if strings.ContainsRune("/\\:*?\"<>|\x00", c) {
			return '_'
		}
		return c
	}, v)
	switch v {
	case ".":
		return "_"
	case "..":
		return "__"
	}
	return v
}

// artifactFile is a file of a test's folder: data JSON-encoded, or a string as it is.
type artifactFile struct {
	rel  string
	data any
}

// writeTestArtifacts writes record r's folder in run directory dir and returns the paths the
// row names. A test on several targets shares its folder, the last written winning, as in
// 4.42.4.
func writeTestArtifacts(dir string, r *Record, row *v4OutRow) (v4Artifacts, error) {
	sub := artifactSegment(r.EvalID, "unknown")
	if r.Dataset != "" {
		sub = path.Join(artifactSegment(r.Dataset, "default"), sub)
	}
	testDir := filepath.Join(dir, filepath.FromSlash(sub))
	if err := os.MkdirAll(filepath.Join(testDir, "outputs"), 0o755); err != nil {
		return v4Artifacts{}, fmt.Errorf("test %q: %w", r.EvalID, err)
	}
	a := v4Artifacts{ArtifactDir: sub, GradingPath: path.Join(sub, "grading.json"), TimingPath: path.Join(sub, "timing.json")}
	var in, out int64
	if row.TokenUsage != nil {
		in, out = row.TokenUsage.Input, row.TokenUsage.Output
	}
	files := []artifactFile{
		{a.GradingPath, gradingOf(r, row)},
		{a.TimingPath, timingOf(r.DurationMS, in, out)},
	}
	if s := inputOf(r); s != "" {
		a.InputPath = path.Join(sub, "input.md")
		files = append(files, artifactFile{a.InputPath, s})
	}
	if r.CandidateAnswer != "" {
		a.AnswerPath = path.Join(sub, "outputs", "answer.md")
		a.OutputPath, a.ResponsePath = a.AnswerPath, path.Join(sub, "outputs", "response.md")
		for _, rel := range []string{a.AnswerPath, a.ResponsePath} {
			files = append(files, artifactFile{rel, r.CandidateAnswer})
		}
	}
	// outputs/trace.json always, outputs/transcript.jsonl when there is a message, as 4.42.4.
	runID := filepath.Base(filepath.Clean(dir))
	env := traceOf(r, row, a, runID, time.Now())
	rows := transcriptOf(env, row)
	if len(rows) > 0 {
		a.TranscriptPath = path.Join(sub, "outputs", "transcript.jsonl")
		env.Artifacts.TranscriptPath = "outputs/transcript.jsonl"
		var buf bytes.Buffer
		enc := newEncoder(&buf)
		for i := range rows {
			if err := enc.Encode(&rows[i]); err != nil {
				return v4Artifacts{}, fmt.Errorf("test %q: %s: %w", r.EvalID, a.TranscriptPath, err)
			}
		}
		files = append(files, artifactFile{a.TranscriptPath, buf.String()})
	}
	files = append(files, artifactFile{path.Join(sub, "outputs", "trace.json"), env})
	for _, f := range files {
		var b []byte
		if s, ok := f.data.(string); ok {
			b = []byte(s)
		} else {
			var buf bytes.Buffer
			enc := newEncoder(&buf) // model text stays as written: no HTML escapes
			enc.SetIndent("", "  ")
			if err := enc.Encode(f.data); err != nil {
				return v4Artifacts{}, fmt.Errorf("test %q: %s: %w", r.EvalID, f.rel, err)
			}
			b = buf.Bytes()
		}
		if err := atomicfile.Replace(filepath.Join(dir, filepath.FromSlash(f.rel)), b); err != nil {
			return v4Artifacts{}, fmt.Errorf("test %q: could not write %s: %w", r.EvalID, f.rel, err)
		}
	}
	return a, nil
}
