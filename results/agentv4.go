package results

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentv/action/internal/atomicfile"
	"github.com/agentv/action/internal/safefile"
	"github.com/agentv/action/stats"
)

// AgentV 4.x writes a run as a directory (`agentv eval -o DIR`) whose index.jsonl holds one
// row per test, the answer in a file beside it. This file reads those rows as case records
// (4.42.4's runs serve as baselines and reports) and writes them (4.42.4 reads our runs).

// IndexFile is the name of a 4.x run directory's results file.
const IndexFile = "index.jsonl"

// Execution statuses of a 4.x row.
const (
	v4StatusOK      = "ok"
	v4StatusQuality = "quality_failure"
	v4StatusError   = "execution_error"
)

// v4Row is what a 4.x index.jsonl row holds beyond the fields it shares with our record.
type v4Row struct {
	TestID          *string     `json:"test_id"`
	Suite           string      `json:"suite"`
	Scores          []v4Score   `json:"scores"`
	ExecutionStatus string      `json:"execution_status"`
	CostUSD         *float64    `json:"cost_usd"`
	TokenUsage      *TokenUsage `json:"token_usage"`
	AnswerPath      string      `json:"answer_path"`
	OutputPath      string      `json:"output_path"`
	Projection      *struct {
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
	Assertions []Assertion     `json:"assertions"`
	Details    json.RawMessage `json:"details"`
	DurationMS int64           `json:"duration_ms"`
	Scores     []v4Score       `json:"scores"` // a composite's members
}

// fromV4 fills r, decoded from a 4.x row, with what the row says in its own names: graders'
// assertions become hits and misses, an execution error the error verdict. A scored row
// keeps no verdict: readers grade it with their case threshold.
func fromV4(r *Record, v *v4Row) {
	r.EvalID = *v.TestID
	r.FromV4Index = true
	r.V4Status = v.ExecutionStatus
	r.Dataset = cmp.Or(r.Dataset, v.Suite)
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
		r.Error = cmp.Or(r.Error, "execution error (AgentV 4.x gave no reason)")
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
func (v *v4Row) answerPath() string { return cmp.Or(v.AnswerPath, v.OutputPath) }

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
		e.Verdict = cmp.Or(e.Verdict, PassFail(s.Score)) // a 4.x grader's verdict when the row leaves it out
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

// readAnswer reads the answer file a 4.x row names: only a regular file inside the run
// directory, at most maxAnswerBytes; anything else leaves the answer empty.
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

// ResolvePath returns the results file a path names: the path itself, or a directory's
// results.jsonl, else its index.jsonl. A missing path is returned as it is.
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

// v4OutRow is a row of the index.jsonl this program writes: the fields 4.42.4's readers use.
type v4OutRow struct {
	Timestamp       string         `json:"timestamp"`
	TestID          string         `json:"test_id"`
	Suite           string         `json:"suite"`
	Category        string         `json:"category"`
	Score           float64        `json:"score"`
	Target          string         `json:"target"`
	DurationMS      int64          `json:"duration_ms"`
	Scores          []v4OutScore   `json:"scores,omitempty"`
	ExecutionStatus string         `json:"execution_status"`
	Error           string         `json:"error,omitempty"`
	v4Artifacts                    // the test's folder: grading.json, timing.json, input.md, outputs/
	CostUSD         *float64       `json:"cost_usd,omitempty"`
	TokenUsage      *TokenUsage    `json:"token_usage,omitempty"`
	Experiment      string         `json:"experiment"`
	Metadata        map[string]any `json:"metadata,omitempty"`
}

type v4OutScore struct {
	Name       string          `json:"name"`
	Type       string          `json:"type"`
	Score      float64         `json:"score"`
	Weight     *float64        `json:"weight,omitempty"` // nil: the entry has none (NoWeight)
	Verdict    string          `json:"verdict"`
	Reasoning  string          `json:"reasoning,omitempty"`
	Assertions []Assertion     `json:"assertions"`
	Details    json.RawMessage `json:"details,omitempty"`
	Scores     []v4OutScore    `json:"scores,omitempty"`
}

// v4Status is a record's 4.x execution_status.
func v4Status(r *Record) string {
	switch {
	case r.Verdict == VerdictError || r.Error != "":
		return v4StatusError
	case r.Verdict == VerdictPass:
		return v4StatusOK
	}
	return v4StatusQuality
}

func v4OutScores(rs []EvaluatorResult) []v4OutScore {
	if len(rs) == 0 {
		return nil
	}
	out := make([]v4OutScore, 0, len(rs))
	for _, e := range rs {
		s := v4OutScore{Name: e.Name, Type: e.Type, Score: finite(e.Score), Weight: e.WeightOrNil(), Verdict: e.Verdict,
			Reasoning: e.Reasoning, Assertions: asserted(e.Hits, e.Misses), Details: validRaw(e.Details),
			Scores: v4OutScores(e.EvaluatorResults)}
		out = append(out, s)
	}
	return out
}

// v4RowOf is record r as a 4.x index.jsonl row.
func v4RowOf(r *Record) *v4OutRow {
	row := &v4OutRow{Timestamp: r.Timestamp, TestID: r.EvalID, Suite: r.Dataset, Category: "Uncategorized",
		Score: finite(r.Score), Target: r.Target, DurationMS: r.DurationMS, Scores: v4OutScores(r.EvaluatorResults),
		ExecutionStatus: v4Status(r), Error: r.Error, Experiment: "default"}
	if r.EvaluatorProviderRequest != nil {
		// Only the default judge puts its request at the top of the record. 4.42.4 grades a
		// test without graders with an implicit llm-grader whose score is the test's and lists
		// no scores (orchestrator.ts, evaluateCandidate); its reasoning stays in results.jsonl.
		row.Scores = nil
	}
	if row.ExecutionStatus == v4StatusError && row.Error == "" {
		row.Error = "errored"
	}
	if ts := r.TraceSummary; ts != nil {
		if ts.CostUSD != nil && finite(*ts.CostUSD) == *ts.CostUSD {
			row.CostUSD = ts.CostUSD
		}
		if u := ts.TokenUsage; u != nil {
			row.TokenUsage = &TokenUsage{Input: u.Input, Output: u.Output}
		}
	}
	if r.File != "" {
		row.Metadata = map[string]any{"file": r.File, "line": r.Line}
	}
	return row
}

// RunDirOptions change how WriteRunDir writes a run directory.
type RunDirOptions struct {
	// Fresh, when set and dir holds an index.jsonl, keeps its rows and adds rows and test
	// folders only for the records Fresh accepts, as 4.42.4's --rerun-failed (see appendRows).
	Fresh func(r *Record) bool
}

// WriteRunDir writes the AgentV 4.x run layout into dir from the results file at
// resultsPath: index.jsonl, a folder per test (rundir4.go), benchmark.json (per target, as
// 4.42.4 summarises the cases that did not error) and timing.json, each whole or not at all.
func WriteRunDir(resultsPath, dir string, opt RunDirOptions) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("could not create the run directory: %w", err)
	}
	var earlier []byte // the rows kept when appending
	if opt.Fresh != nil {
		b, err := os.ReadFile(filepath.Join(dir, IndexFile))
		switch {
		case err == nil:
			earlier = b
		case errors.Is(err, fs.ErrNotExist):
			opt.Fresh = nil // nothing to append to: every record gets its row
		default:
			return fmt.Errorf("could not read the earlier %s: %w", IndexFile, err)
		}
	}
	type agg struct{ scores, ms, tokens []float64 }
	var (
		byTarget         = map[string]*agg{}
		targets, testIDs = []string{}, []string{}
		seenID           = map[string]bool{}
		totalMS, in, out int64
		first            string
		errored          int
	)
	tmp, err := os.CreateTemp(dir, ".index-*.jsonl")
	if err != nil {
		return fmt.Errorf("could not write %s: %w", IndexFile, err)
	}
	defer os.Remove(tmp.Name())
	enc := newEncoder(tmp)
	var fresh *freshRows // appending: the rows of the records run again, until the end
	if opt.Fresh != nil {
		fresh = &freshRows{byKey: map[[3]string][]byte{}}
	}
	err = ScanFile(resultsPath, func(r *Record) error {
		row := v4RowOf(r)
		if opt.Fresh == nil || opt.Fresh(r) {
			a, err := writeTestArtifacts(dir, r, row)
			if err != nil {
				return err
			}
			row.v4Artifacts = a
			if fresh != nil {
				err = fresh.add(row)
			} else {
				err = enc.Encode(row)
			}
			if err != nil {
				return fmt.Errorf("case %q: %w", r.EvalID, err)
			}
		}
		if first == "" || (r.Timestamp != "" && r.Timestamp < first) {
			first = r.Timestamp
		}
		if !seenID[r.EvalID] {
			seenID[r.EvalID] = true
			testIDs = append(testIDs, r.EvalID)
		}
		a := byTarget[r.Target]
		if a == nil {
			a = &agg{}
			byTarget[r.Target] = a
			targets = append(targets, r.Target)
		}
		totalMS += r.DurationMS
		var tok int64
		if row.TokenUsage != nil {
			tok = row.TokenUsage.Input + row.TokenUsage.Output
			in += row.TokenUsage.Input
			out += row.TokenUsage.Output
		}
		if row.ExecutionStatus == v4StatusError {
			errored++
			return nil
		}
		a.scores = append(a.scores, row.Score)
		a.ms = append(a.ms, float64(r.DurationMS)/1000)
		a.tokens = append(a.tokens, float64(tok))
		return nil
	})
	if err == nil && fresh != nil {
		err = appendRows(tmp, earlier, fresh)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("could not write %s: %w", IndexFile, err)
	}
	summary := map[string]any{}
	for t, a := range byTarget {
		summary[t] = map[string]any{"pass_rate": meanStd(a.scores), "time_seconds": meanStd(a.ms), "tokens": meanStd(a.tokens)}
	}
	bench := map[string]any{
		"metadata": map[string]any{"timestamp": first, "targets": targets, "tests_run": testIDs,
			"experiment": "default", "planned_test_count": len(testIDs), "written_by": "agentv/action"},
		"run_summary": summary,
	}
	if errored > 0 {
		bench["notes"] = []string{fmt.Sprintf("%d test(s) had execution errors and are excluded from quality pass_rate", errored)}
	}
	for name, v := range map[string]any{"benchmark.json": bench, "timing.json": timingOf(totalMS, in, out)} {
		b, _ := json.MarshalIndent(v, "", "  ") // strings and finite numbers always encode
		if err := atomicfile.Replace(filepath.Join(dir, name), append(b, '\n')); err != nil {
			return fmt.Errorf("could not write %s: %w", name, err)
		}
	}
	if err := os.Rename(tmp.Name(), filepath.Join(dir, IndexFile)); err != nil {
		return fmt.Errorf("could not write %s: %w", IndexFile, err)
	}
	return nil
}

// meanStd is 4.42.4's summary of values: their mean and population standard deviation,
// rounded to three decimals.
func meanStd(xs []float64) map[string]float64 {
	if len(xs) == 0 {
		return map[string]float64{"mean": 0, "stddev": 0}
	}
	mean := stats.Mean(xs)
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	round := func(f float64) float64 { return math.Round(f*1000) / 1000 }
	return map[string]float64{"mean": round(mean), "stddev": round(math.Sqrt(ss / float64(len(xs))))}
}
