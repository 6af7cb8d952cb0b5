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
