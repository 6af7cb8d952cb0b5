package results

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentv/action/internal/safefile"
)

// AgentV 4.x writes a run as a directory (`agentv eval -o DIR`) whose index.jsonl holds one
// row per test: test_id, suite, target, score, scores (its graders), execution_status and
// error, with the answer in a file beside it (answer_path). This file reads those rows as
// case records, so 4.42.4's runs serve as baselines and reports, and writes them, so
// 4.42.4's `agentv compare` reads our runs.

// IndexFile is the name of a 4.x run directory's results file.
const IndexFile = "index.jsonl"

// Execution statuses of a 4.x row.
const (
	v4StatusOK      = "ok"
	v4StatusQuality = "quality_failure"
	v4StatusError   = "execution_error"
)

// v4Row is what a 4.x index.jsonl row holds beyond the fields it shares with our case
// record (timestamp, score, target, error, duration_ms).
type v4Row struct {
	TestID          *string   `json:"test_id"`
	Suite           string    `json:"suite"`
	Scores          []v4Score `json:"scores"`
	ExecutionStatus string    `json:"execution_status"`
	CostUSD         *float64  `json:"cost_usd"`
	TokenUsage      *struct {
		Input  int64 `json:"input"`
		Output int64 `json:"output"`
	} `json:"token_usage"`
	AnswerPath string `json:"answer_path"`
	OutputPath string `json:"output_path"`
	Projection *struct {
		Dimensions struct {
			EvalPath string `json:"eval_path"`
		} `json:"dimensions"`
	} `json:"projection_identity"`
}

// v4Score is one grader of a 4.x row.
type v4Score struct {
	Name       string          `json:"name"`
	Type       string          `json:"type"`
	Score      float64         `json:"score"`
	Weight     *float64        `json:"weight"`
	Verdict    string          `json:"verdict"`
	Reasoning  string          `json:"reasoning"`
	Assertions []v4Assertion   `json:"assertions"`
	Details    json.RawMessage `json:"details"`
	DurationMS int64           `json:"duration_ms"`
	Scores     []v4Score       `json:"scores"` // a composite's members
}

type v4Assertion struct {
	Text   string `json:"text"`
	Passed bool   `json:"passed"`
}

// fromV4 fills r, decoded from a 4.x row, with what the row says in its own names: the id
// and dataset (test_id, suite), the graders as evaluator results with their passed and
// failed assertions as hits and misses, and an execution error as the error verdict. A
// scored row keeps no verdict: readers grade it with their case threshold. The answer is in
// a file of the run directory (see answerPath), read by the scan of a file.
func fromV4(r *Record, v *v4Row) {
	r.EvalID = *v.TestID
	if r.Dataset == "" {
		r.Dataset = v.Suite
	}
	r.EvaluatorResults = v4Results(v.Scores)
	for _, e := range r.EvaluatorResults {
		r.Hits = append(r.Hits, e.Hits...)
		r.Misses = append(r.Misses, e.Misses...)
	}
	if r.Hits == nil {
		r.Hits = []string{}
	}
	if r.Misses == nil {
		r.Misses = []string{}
	}
	if v.ExecutionStatus == v4StatusError {
		r.Verdict = VerdictError
		if r.Error == "" {
			r.Error = "execution error (AgentV 4.x gave no reason)"
		}
	}
	if v.CostUSD != nil || v.TokenUsage != nil {
		ts := &TraceSummary{ToolNames: []string{}, ToolCallsByName: map[string]int{}, CostUSD: v.CostUSD}
		if u := v.TokenUsage; u != nil {
			ts.TokenUsage = &TokenUsage{Input: u.Input, Output: u.Output}
		}
		r.TraceSummary = ts
	}
	if p := v.Projection; p != nil && r.File == "" {
		r.File = p.Dimensions.EvalPath
	}
}

// answerPath is the answer file a 4.x row names, relative to its run directory.
func (v *v4Row) answerPath() string {
	if v.AnswerPath != "" {
		return v.AnswerPath
	}
	return v.OutputPath
}

func v4Results(scores []v4Score) []EvaluatorResult {
	if len(scores) == 0 {
		return nil
	}
	out := make([]EvaluatorResult, 0, len(scores))
	for _, s := range scores {
		e := EvaluatorResult{Name: s.Name, Type: s.Type, Score: s.Score, Weight: 1, Verdict: s.Verdict,
			Hits: []string{}, Misses: []string{}, Reasoning: s.Reasoning, Details: s.Details,
			DurationMS: s.DurationMS, EvaluatorResults: v4Results(s.Scores)}
		if s.Weight != nil {
			e.Weight = *s.Weight
		}
		if e.Verdict == "" || e.Verdict == "skip" {
			e.Verdict = Band(s.Score)
		}
		for _, a := range s.Assertions {
			if a.Passed {
				e.Hits = append(e.Hits, a.Text)
			} else {
				e.Misses = append(e.Misses, a.Text)
			}
		}
		out = append(out, e)
	}
	return out
}

// maxAnswerBytes bounds the answer read from a 4.x run directory's answer file.
const maxAnswerBytes = 1 << 20

// readAnswer reads the answer file a 4.x row names, relative to its run directory: only a
// regular file inside it, at most maxAnswerBytes. Anything else leaves the answer empty.
func readAnswer(dir, rel string) string {
	if rel == "" || filepath.IsAbs(rel) {
		return ""
	}
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if r, err := filepath.Rel(dir, p); err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return ""
	}
	f, err := safefile.Open(p)
	if err != nil {
		return ""
	}
	defer f.Close()
	b, _ := io.ReadAll(io.LimitReader(f, maxAnswerBytes))
	return strings.TrimRight(string(b), "\n")
}

// ResolvePath returns the results file a path names: the path itself, or for a directory
// (the folder of one of our runs, or a 4.x run directory) its results.jsonl, else its
// index.jsonl. A path that does not exist is returned as it is, for the caller to report.
func ResolvePath(path string) (string, error) {
	st, err := os.Stat(path)
	if err != nil || !st.IsDir() {
		return path, nil
	}
	for _, name := range []string{"results.jsonl", IndexFile} {
		p := filepath.Join(path, name)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		} else if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
	}
	return "", fmt.Errorf("%s is a directory without results.jsonl or %s (a results file, or a run directory, is expected)", path, IndexFile)
}
