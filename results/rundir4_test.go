package results

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeResults writes recs as a results file in dir and returns its path.
func writeResults(t *testing.T, dir string, recs ...*Record) string {
	t.Helper()
	src := filepath.Join(dir, "results.jsonl")
	f, err := os.Create(src)
	if err != nil {
		t.Fatal(err)
	}
	w := NewWriter(f)
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return src
}

// TestArtifactSegment: suite names and test ids become one folder name each, as 4.42.4
// makes them, and never one that leaves the run directory.
func TestArtifactSegment(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"greet", "greet"},
		{"  spaced  ", "spaced"},
		{"", "unknown"},
		{"a/b\\c:d*e?f\"g<h>i|j", "a_b_c_d_e_f_g_h_i_j"},
		{"..", "__"},
		{".", "_"},
		{"../../etc", ".._.._etc"},
		{"nul\x00byte", "nul_byte"},
		{"ünïcode-ok", "ünïcode-ok"},
	} {
		if got := artifactSegment(tc.in, "unknown"); got != tc.want {
			t.Errorf("artifactSegment(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestWriteTestArtifacts writes a folder per test with 4.42.4's files and fields: grading.json
// (assertions with evidence, summary, execution metrics, graders), timing.json, input.md from
// the chat the target got, and the answer in outputs/, model text kept as data; the index row
// names each file. An id that looks like a path stays inside the run directory.
func TestWriteTestArtifacts(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	answer := "</script><b>{{ criteria }}</b> `rm -rf` \"quoted\"\n"
	recs := []*Record{
		{EvalID: "chat", Dataset: "s", Target: "t", Score: 0.5, Verdict: VerdictFail, CandidateAnswer: answer,
			LMProviderRequest: json.RawMessage(`{"chat_prompt":[{"role":"system","content":"be brief"},{"role":"user","content":"hi <there>"}]}`),
			TraceSummary:      &TraceSummary{ToolCallsByName: map[string]int{"Read": 2, "Bash": 1}, TokenUsage: &TokenUsage{Input: 10, Output: 5}},
			DurationMS:        1234,
			EvaluatorResults: []EvaluatorResult{
				{Name: "contains-x", Type: "contains", Score: 1, Weight: 1, Verdict: "pass", Hits: []string{"has x"}, Misses: []string{}},
				{Name: "judge", Type: "llm-grader", Score: 0, Weight: 2, Verdict: "fail", Hits: []string{}, Misses: []string{"polite"},
					Assertions: []Assertion{{Text: "polite", Passed: false, Evidence: "said <no>"}}},
			}},
		{EvalID: "../escape", Dataset: "..", Target: "t", Verdict: VerdictError, Error: "target crashed",
			AgentProviderRequest: json.RawMessage(`{"question":"do it","guideline_paths":[]}`)},
	}
	out := filepath.Join(dir, "run")
	if err := WriteRunDir(writeResults(t, dir, recs...), out, RunDirOptions{}); err != nil {
		t.Fatal(err)
	}
	var grading v4Grading
	b, err := os.ReadFile(filepath.Join(out, "s", "chat", "grading.json"))
	if err != nil || json.Unmarshal(b, &grading) != nil {
		t.Fatalf("grading.json: %v\n%s", err, b)
	}
	if len(grading.Assertions) != 2 || grading.Assertions[1] != (v4GradedAssertion{"polite", false, "said <no>"}) ||
		grading.Summary.Passed != 1 || grading.Summary.Total != 2 || grading.Summary.PassRate != 0.5 ||
		grading.ExecutionMetrics.TotalToolCalls != 3 || grading.ExecutionMetrics.ToolCalls["Read"] != 2 ||
		len(grading.Graders) != 2 || grading.Graders[1].Weight == nil || *grading.Graders[1].Weight != 2 || grading.Graders[1].Reasoning != "" {
		t.Errorf("grading.json:\n%s", b)
	}
	if !strings.Contains(string(b), `"evidence": ""`) || !strings.Contains(string(b), "said <no>") {
		t.Errorf("grading.json: want evidence always, and model text unescaped:\n%s", b)
	}
	timing, _ := os.ReadFile(filepath.Join(out, "s", "chat", "timing.json"))
	var tm v4Timing
	if json.Unmarshal(timing, &tm) != nil || tm.TotalTokens != 15 || tm.DurationMS != 1234 || tm.TotalDurationSeconds != 1.234 || tm.TokenUsage["reasoning"] != 0 {
		t.Errorf("timing.json:\n%s", timing)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "s", "chat", "input.md")); string(b) != "@[system]:\nbe brief\n\n@[user]:\nhi <there>" {
		t.Errorf("input.md = %q", b)
	}
	for _, name := range []string{"answer.md", "response.md"} {
		if b, _ := os.ReadFile(filepath.Join(out, "s", "chat", "outputs", name)); string(b) != answer {
			t.Errorf("%s = %q, want the answer byte for byte", name, b)
		}
	}
	// The hostile names: inside the run directory, the error as the one failed assertion.
	b, err = os.ReadFile(filepath.Join(out, "__", ".._escape", "grading.json"))
	if err != nil || !strings.Contains(string(b), `"text": "Error: target crashed"`) || !strings.Contains(string(b), `"errors_encountered": 1`) {
		t.Errorf("the errored test's grading.json (%v):\n%s", err, b)
	}
	if _, err := os.Stat(filepath.Join(out, "s", "chat", "outputs", "..", "..", "..", "escape")); err == nil {
		t.Error("a test id escaped the run directory")
	}
	if _, err := os.Stat(filepath.Join(out, "__", ".._escape", "outputs", "answer.md")); err == nil {
		t.Error("a test without an answer has an answer.md")
	}
	raw, _ := os.ReadFile(filepath.Join(out, IndexFile))
	rows := strings.Split(strings.TrimSpace(string(raw)), "\n")
	for _, want := range []string{`"artifact_dir":"s/chat"`, `"grading_path":"s/chat/grading.json"`, `"timing_path":"s/chat/timing.json"`,
		`"output_path":"s/chat/outputs/answer.md"`, `"answer_path":"s/chat/outputs/answer.md"`, `"input_path":"s/chat/input.md"`,
		`"response_path":"s/chat/outputs/response.md"`} {
		if !strings.Contains(rows[0], want) {
			t.Errorf("row lacks %s:\n%s", want, rows[0])
		}
	}
	if !strings.Contains(rows[1], `"input_path":"__/.._escape/input.md"`) || strings.Contains(rows[1], "answer_path") {
		t.Errorf("the errored test's row:\n%s", rows[1])
	}
	// What this program reads back of its own run directory: the answer from answer_path.
	var back []*Record
	if err := ScanFile(filepath.Join(out, IndexFile), func(r *Record) error { back = append(back, r); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(back) != 2 || back[0].CandidateAnswer != strings.TrimRight(answer, "\n") {
		t.Errorf("read back: %+v", back)
	}
}

// TestWriteRunDirAppend: with Fresh (after --rerun-failed) only the records run again get
// rows and folders, as 4.42.4 leaves a rerun: the earlier rows kept, but a test run again
// has its earlier row replaced by the new one and the new one appended; a row of another
// suite stays. Without an earlier index.jsonl every record gets its row.
func TestWriteRunDirAppend(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "run")
	recs := []*Record{
		{EvalID: "kept", Dataset: "s", Target: "t", Score: 1, Verdict: VerdictPass, CandidateAnswer: "new answer"},
		{EvalID: "again", Dataset: "s", Target: "t", Score: 1, Verdict: VerdictPass, CandidateAnswer: "fixed"},
	}
	fresh := func(r *Record) bool { return r.EvalID == "again" }
	if err := WriteRunDir(writeResults(t, dir, recs...), out, RunDirOptions{Fresh: fresh}); err != nil {
		t.Fatal(err)
	}
	if raw, _ := os.ReadFile(filepath.Join(out, IndexFile)); strings.Count(string(raw), "\n") != 2 {
		t.Fatalf("no earlier index.jsonl: want a row per record:\n%s", raw)
	}
	earlier := `{"test_id":"kept","suite":"s","target":"t","score":1,"execution_status":"ok"}` + "\n" +
		`{"test_id":"again","suite":"s","target":"t","score":0,"execution_status":"quality_failure"}` + "\n" +
		`{"test_id":"again","suite":"other","target":"t","score":0,"execution_status":"quality_failure"}` // no final newline
	if err := os.WriteFile(filepath.Join(out, IndexFile), []byte(earlier), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(out, "s")); err != nil {
		t.Fatal(err)
	}
	if err := WriteRunDir(writeResults(t, dir, recs...), out, RunDirOptions{Fresh: fresh}); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(filepath.Join(out, IndexFile))
	rows := strings.Split(strings.TrimSpace(string(raw)), "\n")
	lines := strings.Split(earlier, "\n")
	if len(rows) != 4 || rows[0] != lines[0] || rows[2] != lines[2] || rows[1] != rows[3] ||
		!strings.Contains(rows[3], `"test_id":"again","suite":"s"`) || !strings.Contains(rows[3], `"score":1`) {
		t.Errorf("index.jsonl after the rerun:\n%s", raw)
	}
	if _, err := os.Stat(filepath.Join(out, "s", "kept")); err == nil {
		t.Error("a carried-over test's folder was written again")
	}
	if b, _ := os.ReadFile(filepath.Join(out, "s", "again", "outputs", "answer.md")); string(b) != "fixed" {
		t.Errorf("the rerun test's answer.md = %q", b)
	}
	bench, _ := os.ReadFile(filepath.Join(out, "benchmark.json"))
	if !strings.Contains(string(bench), `"mean": 1`) {
		t.Errorf("benchmark.json summarises each test once, its latest result:\n%s", bench)
	}
}

// TestScanRerunIndex: reading a 4.x index.jsonl that a rerun appended to, only each test's
// last row on a target is a case record; a results.jsonl of ours is read as it is.
func TestScanRerunIndex(t *testing.T) {
	t.Parallel()
	rows := `{"test_id":"a","suite":"s","target":"t","score":1,"execution_status":"ok"}` + "\n" +
		`{"test_id":"b","suite":"s","target":"t","score":0,"execution_status":"quality_failure"}` + "\n" +
		`{"test_id":"b","suite":"other","target":"t","score":0.3,"execution_status":"quality_failure"}` + "\n" +
		`{"test_id":"b","suite":"s","target":"t","score":0.5,"execution_status":"quality_failure"}` + "\n" +
		`{"test_id":"b","suite":"s","target":"t","score":1,"execution_status":"ok"}` + "\n"
	dir := t.TempDir()
	path := filepath.Join(dir, IndexFile)
	if err := os.WriteFile(path, []byte(rows), 0o644); err != nil {
		t.Fatal(err)
	}
	var got []string
	err := ScanFileLines(path, Visitor{Case: func(r *Record, line int) error {
		got = append(got, fmt.Sprintf("%s/%s@%d=%g", r.Dataset, r.EvalID, line, r.Score))
		return nil
	}})
	if want := "[s/a@1=1 other/b@3=0.3 s/b@5=1]"; err != nil || fmt.Sprint(got) != want {
		t.Errorf("got %v, %v; want %s", got, err, want)
	}
}

// BenchmarkWriteRunDir writes the 4.x layout of 500 tests: index.jsonl, benchmark.json,
// timing.json and a folder of five files per test.
func BenchmarkWriteRunDir(b *testing.B) {
	dir := b.TempDir()
	f, err := os.Create(filepath.Join(dir, "results.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	w := NewWriter(f)
	for i := range 500 {
		_ = w.Write(&Record{EvalID: fmt.Sprintf("case-%d", i), Dataset: "d", Target: "t", Score: 1, Verdict: VerdictPass,
			CandidateAnswer: strings.Repeat("answer ", 40), LMProviderRequest: json.RawMessage(`{"question":"q","guidelines":""}`),
			EvaluatorResults: []EvaluatorResult{{Name: "c", Type: "contains", Score: 1, Weight: 1, Verdict: "pass", Hits: []string{"ok"}, Misses: []string{}}}})
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	f.Close()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := WriteRunDir(f.Name(), filepath.Join(dir, fmt.Sprint("run", i)), RunDirOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestNoWeight: an entry without a weight (AgentV 5.x's conversation turns) is written without
// one by every writer, read back so, and keeps the other entries' weights, 0 included.
func TestNoWeight(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	rec := &Record{EvalID: "conv", Dataset: "s", Target: "t", Score: 0.5, Verdict: VerdictFail,
		EvaluatorResults: []EvaluatorResult{
			{Name: "turn-1", Type: "llm-rubric", Score: 1, Weight: 1, NoWeight: true, Verdict: "pass", Reasoning: "said <b>&</b>",
				Hits: []string{}, Misses: []string{},
				EvaluatorResults: []EvaluatorResult{{Name: "inner", Type: "contains", Score: 1, Weight: 3, Verdict: "pass", Hits: []string{}, Misses: []string{}}}},
			{Name: "zero", Type: "contains", Score: 0, Weight: 0, Verdict: "fail", Hits: []string{}, Misses: []string{}},
		}}
	line, err := marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"name":"turn-1","type":"llm-rubric","score":1,"verdict":"pass","hits":[],"misses":[],"reasoning":"said <b>&</b>",` +
		`"evaluator_results":[{"name":"inner","type":"contains","score":1,"weight":3,"verdict":"pass","hits":[],"misses":[],"duration_ms":0}],"duration_ms":0},` +
		`{"name":"zero","type":"contains","score":0,"weight":0,"verdict":"fail","hits":[],"misses":[],"duration_ms":0}]`
	if !strings.Contains(string(line), want) {
		t.Errorf("results.jsonl line:\n%s\nwant the entries\n%s", line, want)
	}
	var back Record
	if err := json.Unmarshal(line, &back); err != nil {
		t.Fatal(err)
	}
	es := back.EvaluatorResults
	if len(es) != 2 || !es[0].NoWeight || es[0].Weight != 0 || es[0].EvaluatorResults[0].NoWeight || es[0].EvaluatorResults[0].Weight != 3 ||
		es[1].NoWeight || es[1].Weight != 0 {
		t.Errorf("read back: %+v", es)
	}
	// json.Marshal (HTML escaped) still escapes the entry's text, as before.
	if b, _ := json.Marshal(rec.EvaluatorResults[0]); !strings.Contains(string(b), `said \u003cb\u003e\u0026\u003c/b\u003e`) {
		t.Errorf("json.Marshal: %s", b)
	}

	out := filepath.Join(dir, "run")
	if err := WriteRunDir(writeResults(t, dir, rec), out, RunDirOptions{}); err != nil {
		t.Fatal(err)
	}
	files := 0
	err = filepath.WalkDir(out, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil || !strings.Contains(string(b), "turn-1") {
			return err
		}
		files++
		var v any
		if json.Unmarshal(b, &v) != nil { // index.jsonl: one line
			_ = json.Unmarshal([]byte(strings.SplitN(string(b), "\n", 2)[0]), &v)
		}
		if w, found := weightOf(v, "turn-1"); !found || w != nil {
			t.Errorf("%s: turn-1 has weight %v (found %v), want none:\n%s", path, w, found, b)
		}
		if w, found := weightOf(v, "zero"); found && w != 0.0 {
			t.Errorf("%s: zero has weight %v, want 0", path, w)
		}
		return nil
	})
	if err != nil || files < 2 {
		t.Fatalf("run dir: %v, %d files name the entry", err, files)
	}
}

// weightOf finds the object named name anywhere in v and returns its weight (nil: none).
func weightOf(v any, name string) (w any, found bool) {
	switch x := v.(type) {
	case map[string]any:
		if x["name"] == name {
			return x["weight"], true
		}
		for _, c := range x {
			if w, ok := weightOf(c, name); ok {
				return w, true
			}
		}
	case []any:
		for _, c := range x {
			if w, ok := weightOf(c, name); ok {
				return w, true
			}
		}
	}
	return nil, false
}
