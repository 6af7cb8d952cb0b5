package results

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestScanAgentV4Index reads the run directory AgentV 4.42.4 wrote for the e2e fixture: each
// row becomes a case record named by test_id within suite, its graders' assertions hits and
// misses, an execution error the error verdict, the answer read from the run's answer file.
func TestScanAgentV4Index(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("..", "test", "e2e", "testdata", "agentv442", "run")
	path, err := ResolvePath(dir)
	if err != nil || filepath.Base(path) != IndexFile {
		t.Fatalf("ResolvePath(%s) = %s, %v; want its %s", dir, path, err, IndexFile)
	}
	got := map[string]*Record{}
	if err := ScanFile(path, func(r *Record) error { got[r.EvalID] = r; return nil }); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		id      string
		score   float64
		verdict Verdict
		misses  int
		answer  string
		err     string
	}{
		{"hello", 1, "", 0, "answer: say hello", ""},
		{"bye", 0, "", 1, "answer: say bye", ""},
		{"half", 0.5, "", 1, "answer: half ok", ""},
		{"boom", 0, VerdictError, 0, "Error occurred: crash (exit code 3)", "crash (exit code 3)"},
	}
	for _, tt := range tests {
		r := got[tt.id]
		if r == nil {
			t.Errorf("case %s missing", tt.id)
			continue
		}
		if r.Dataset != "greet" || r.Target != "default" || r.Score != tt.score || r.Verdict != tt.verdict ||
			len(r.Misses) != tt.misses || r.CandidateAnswer != tt.answer || !strings.Contains(r.Error, tt.err) {
			t.Errorf("case %s = dataset %q target %q score %v verdict %q misses %q answer %q error %q", tt.id,
				r.Dataset, r.Target, r.Score, r.Verdict, r.Misses, r.CandidateAnswer, r.Error)
		}
	}
	if h := got["half"]; h != nil && (len(h.EvaluatorResults) != 2 || h.EvaluatorResults[1].Verdict != BandFail) {
		t.Errorf("half's evaluators = %+v, want two, the second failing", h.EvaluatorResults)
	}
}

// TestReadAnswerStaysInRunDir checks that a row's answer path cannot read outside its run
// directory.
func TestReadAnswerStaysInRunDir(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	run := filepath.Join(root, "run")
	if err := os.MkdirAll(filepath.Join(run, "a"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{"secret.txt": "outside", "run/a/answer.md": "inside\n"} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for rel, want := range map[string]string{"a/answer.md": "inside", "../secret.txt": "", filepath.Join(root, "secret.txt"): "", "a": ""} {
		if got := readAnswer(run, rel); got != want {
			t.Errorf("readAnswer(%q) = %q, want %q", rel, got, want)
		}
	}
}

// TestResolvePath: a directory names its results.jsonl (ours first), else index.jsonl.
func TestResolvePath(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if _, err := ResolvePath(dir); err == nil || !strings.Contains(err.Error(), "without results.jsonl or index.jsonl") {
		t.Errorf("empty dir: err %v", err)
	}
	for _, name := range []string{IndexFile, "results.jsonl"} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if got, _ := ResolvePath(dir); filepath.Base(got) != name {
			t.Errorf("with %s: %s", name, got)
		}
	}
	if got, _ := ResolvePath(filepath.Join(dir, "nope.jsonl")); filepath.Base(got) != "nope.jsonl" {
		t.Errorf("missing file resolved to %s", got)
	}
}

// TestWriteRunDir writes the 4.x layout from a results file with run records and reads its
// index.jsonl back: a row per case record (no run records, which 4.42.4 would refuse: it
// wants a score on every row), the execution status from the verdict, benchmark.json's
// per-target mean over the cases that did not error.
func TestWriteRunDir(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src := filepath.Join(dir, "results.jsonl")
	f, err := os.Create(src)
	if err != nil {
		t.Fatal(err)
	}
	w := NewWriter(f)
	cost := 0.25
	_ = w.WriteRun(&RunRecord{Kind: KindRunStart, Format: RunFormat})
	for _, r := range []*Record{
		{EvalID: "a", Dataset: "d", Target: "t", Score: 1, Verdict: VerdictPass, TraceSummary: &TraceSummary{CostUSD: &cost},
			EvaluatorResults: []EvaluatorResult{{Name: "c", Type: "contains", Score: 1, Weight: 1, Verdict: BandPass, Hits: []string{"has it"}}}},
		{EvalID: "b", Dataset: "d", Target: "t", Score: 0.5, Verdict: VerdictFail},
		{EvalID: "c", Dataset: "d", Target: "t", Score: 0, Verdict: VerdictError, Error: "boom"},
	} {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	_ = w.WriteRun(&RunRecord{Kind: KindRunEnd, Format: RunFormat})
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "run")
	if err := WriteRunDir(src, out, RunDirOptions{}); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(filepath.Join(out, IndexFile))
	if strings.Contains(string(raw), `"record"`) || strings.Count(string(raw), "\n") != 3 {
		t.Errorf("index.jsonl:\n%s", raw)
	}
	for _, want := range []string{`"test_id":"a","suite":"d"`, `"execution_status":"ok"`, `"execution_status":"quality_failure"`,
		`"execution_status":"execution_error","error":"boom"`, `"assertions":[{"text":"has it","passed":true}]`, `"cost_usd":0.25`} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("index.jsonl lacks %s:\n%s", want, raw)
		}
	}
	var back []*Record
	if err := ScanFile(filepath.Join(out, IndexFile), func(r *Record) error { back = append(back, r); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(back) != 3 || back[0].EvalID != "a" || back[0].Dataset != "d" || back[1].Score != 0.5 || back[2].Verdict != VerdictError {
		t.Errorf("read back: %+v", back)
	}
	bench, _ := os.ReadFile(filepath.Join(out, "benchmark.json"))
	if !strings.Contains(string(bench), `"mean": 0.75`) || !strings.Contains(string(bench), "1 test(s) had execution errors") {
		t.Errorf("benchmark.json:\n%s", bench)
	}
}

// TestWriteRunDirDefaultJudge: a test graded only by its criteria has no scores in the 4.x
// index.jsonl, as 4.42.4 writes it (its implicit llm-grader's score is the test's); a test
// with graders of its own keeps them, its verdicts as recorded.
func TestWriteRunDirDefaultJudge(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src := filepath.Join(dir, "results.jsonl")
	f, err := os.Create(src)
	if err != nil {
		t.Fatal(err)
	}
	w := NewWriter(f)
	_ = w.WriteRun(&RunRecord{Kind: KindRunStart, Format: RunFormat})
	judge := EvaluatorResult{Name: "llm_judge", Type: "llm_judge", Score: 0.7, Weight: 1, Verdict: BandFail, Reasoning: "close"}
	for _, r := range []*Record{
		{EvalID: "criteria-only", Dataset: "d", Target: "t", Score: 0.7, Verdict: VerdictFail,
			EvaluatorProviderRequest: []byte(`{"user_prompt":"p"}`), EvaluatorResults: []EvaluatorResult{judge}},
		{EvalID: "own-grader", Dataset: "d", Target: "t", Score: 0.7, Verdict: VerdictFail, EvaluatorResults: []EvaluatorResult{judge}},
	} {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	_ = w.WriteRun(&RunRecord{Kind: KindRunEnd, Format: RunFormat})
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "run")
	if err := WriteRunDir(src, out, RunDirOptions{}); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(filepath.Join(out, IndexFile))
	rows := strings.Split(strings.TrimSpace(string(raw)), "\n")
	if len(rows) != 2 || strings.Contains(rows[0], `"scores"`) || !strings.Contains(rows[0], `"score":0.7`) ||
		!strings.Contains(rows[1], `"scores":[{"name":"llm_judge","type":"llm_judge","score":0.7,"weight":1,"verdict":"fail"`) {
		t.Errorf("index.jsonl:\n%s", raw)
	}
}

// A 4.x row's grader verdicts are read as written, skip included; one left out is 4.x's
// pass or fail at 0.8, never a 2.5 band.
func TestScanAgentV4Verdicts(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), IndexFile)
	row := `{"test_id":"conv","suite":"s","target":"t","score":0.35,"execution_status":"quality_failure","scores":[` +
		`{"name":"turn-1","type":"rubrics","score":0.7},{"name":"turn-2","type":"rubrics","score":0,"verdict":"skip"}]}` + "\n"
	if err := os.WriteFile(path, []byte(row), 0o644); err != nil {
		t.Fatal(err)
	}
	var got []string
	if err := ScanFile(path, func(r *Record) error {
		for _, e := range r.EvaluatorResults {
			got = append(got, e.Name+":"+e.Verdict)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, " ") != "turn-1:fail turn-2:skip" {
		t.Errorf("verdicts %q, want turn-1:fail turn-2:skip", got)
	}
}
