package htmlreport_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentv/action/compare"
	"github.com/agentv/action/gate"
	"github.com/agentv/action/internal/golden"
	"github.com/agentv/action/report"
	"github.com/agentv/action/report/htmlreport"
	"github.com/agentv/action/results"
)

func f(x float64) *float64 { return &x }

// smallRun is a pass, a failure with graders, an error, a conversation and a flaky case with
// trials, compared with a baseline in which the failure scored higher.
func smallRun(t *testing.T, answer, reasoning string) (*report.Run, []*results.Record, htmlreport.History) {
	t.Helper()
	recs := []*results.Record{
		{EvalID: "greet", Dataset: "basics", Target: "gpt", File: "evals/basics.yaml", Line: 3, Score: 1, Verdict: results.VerdictPass,
			CandidateAnswer: "Hello!", DurationMS: 820, LMProviderRequest: json.RawMessage(`{"question":"Say hello"}`),
			EvaluatorResults: []results.EvaluatorResult{{Name: "says-hello", Type: "contains", Score: 1, Weight: 1, Verdict: "pass", Hits: []string{"hello"}}},
			TraceSummary:     &results.TraceSummary{CostUSD: f(0.0012), TokenUsage: &results.TokenUsage{Input: 120, Output: 8}}},
		{EvalID: "refund", Dataset: "billing", Target: "gpt", File: "evals/billing.yaml", Line: 9, Score: 0.4, Verdict: results.VerdictFail,
			CandidateAnswer: answer, Reasoning: reasoning, DurationMS: 4100, Misses: []string{"no refund window"},
			LMProviderRequest: json.RawMessage(`{"question":"How do refunds work?"}`),
			EvaluatorResults: []results.EvaluatorResult{
				{Name: "judge", Type: "llm-judge", Score: 0.4, Weight: 1, Verdict: "fail", Reasoning: reasoning, Misses: []string{"no refund window"},
					Assertions: []results.Assertion{{Text: "names the window", Passed: false, Evidence: answer}}},
			},
			TraceSummary: &results.TraceSummary{CostUSD: f(0.031), TokenUsage: &results.TokenUsage{Input: 900, Output: 310}, ToolNames: []string{"search"}}},
		{EvalID: "timeout", Dataset: "billing", Target: "gpt", File: "evals/billing.yaml", Line: 20, Verdict: results.VerdictError,
			Error: "target timed out after 60s", DurationMS: 60000},
		{EvalID: "chat", Dataset: "basics", Target: "gpt", File: "evals/basics.yaml", Line: 12, Score: 0.9, Verdict: results.VerdictPass, DurationMS: 2000,
			Turns: []results.Turn{{Turn: 1, Input: "Hi", Answer: "Hello, how can I help?", Score: 1, Verdict: "pass", DurationMS: 900},
				{Turn: 2, Input: "Refund please", Answer: answer, Score: 0.8, Verdict: "pass", DurationMS: 1100}}},
		{EvalID: "flaky", Dataset: "basics", Target: "gpt", File: "evals/basics.yaml", Line: 30, Score: 0.85, Verdict: results.VerdictPass, Flaky: true, DurationMS: 3000,
			Trials: []results.Trial{{Trial: 1, Score: 0.9, Verdict: results.VerdictPass, CandidateAnswer: "yes", DurationMS: 1000, CostUSD: f(0.001)},
				{Trial: 2, Score: 0.3, Verdict: results.VerdictFail, CandidateAnswer: answer, DurationMS: 1000}}},
	}
	var base bytes.Buffer
	w := results.NewWriter(&base)
	for _, r := range recs[:4] {
		b := *r
		if b.EvalID == "refund" {
			b.Score, b.Verdict = 0.95, results.VerdictPass
		}
		_ = w.Write(&b)
	}
	_ = w.Write(&results.Record{EvalID: "gone", Dataset: "basics", Score: 1, Verdict: results.VerdictPass})
	_ = w.Flush()
	bl, err := compare.Read(&base)
	if err != nil {
		t.Fatal(err)
	}
	cmpr := compare.NewComparer(bl, compare.DefaultMargin)
	for _, r := range recs {
		cmpr.Add(r)
	}
	counts := gate.Counts{Total: 5, Passed: 3, Failed: 1, Errors: 1, MeanScore: (1 + 0.4 + 0.9 + 0.85) / 5}
	g := gate.Defaults()
	run := &report.Run{Records: recs, Counts: counts, Gate: g, Decision: gate.Decide(counts, g), Version: "1.2.3",
		Started: time.Date(2026, 11, 27, 9, 30, 0, 0, time.UTC), Duration: 71 * time.Second, Baseline: cmpr.Result(),
		Links: report.Links{RunURL: "https://github.com/acme/evals/actions/runs/42"}}
	hist := htmlreport.History{htmlreport.Key("billing", "refund", "gpt"): {
		{Run: "#40", URL: "https://github.com/acme/evals/actions/runs/40", Score: 1, Status: "pass"},
		{Run: "#41", URL: "https://github.com/acme/evals/actions/runs/41", Score: 0.95, Status: "pass"},
	}}
	return run, recs, hist
}

func write(t *testing.T, run *report.Run, recs []*results.Record, hist htmlreport.History) string {
	t.Helper()
	var b bytes.Buffer
	if err := htmlreport.Write(&b, run, htmlreport.FromSlice(recs), hist); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

var (
	styleRe = regexp.MustCompile(`(?s)<style>.*?</style>`)
	codeRe  = regexp.MustCompile(`(?s)<script>.*?</script>`)
	cspRe   = regexp.MustCompile(`script-src 'sha256-([A-Za-z0-9+/=]+)'`)
	dataRe  = regexp.MustCompile(`(?s)<script type="application/json" id="([a-z-]+)">(.*?)</script>`)
)

// shape is the page without its fixed style and script (the browser test checks those), so
// the golden files show what a run puts in the page.
func shape(page string) string {
	page = styleRe.ReplaceAllString(page, "<style>/* assets/report.css */</style>")
	return codeRe.ReplaceAllString(page, "<script>/* assets/report.js */</script>")
}

// data is the JSON of the page's data block id.
func data(t *testing.T, page, id string) string {
	t.Helper()
	for _, m := range dataRe.FindAllStringSubmatch(page, -1) {
		if m[1] == id {
			return m[2]
		}
	}
	t.Fatalf("no data block %s", id)
	return ""
}

func TestGolden(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, answer, reasoning string }{
		{"small", "Refunds are possible.", "It does not say within how many days."},
		{"hostile", `</script><script>alert(1)</script><!-- <img src=x onerror=alert(2)> <a href="javascript:alert(3)">x</a> <style>*{display:none}</style>` + "\u2028\u2029&amp;",
			`<script type="application/json" id="agentv-run">{"head":{}}</script>`},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			run, recs, hist := smallRun(t, c.answer, c.reasoning)
			golden.Check(t, filepath.Join("testdata", "golden", c.name+".html"), shape(write(t, run, recs, hist)))
		})
	}
}

// TestDataCannotEndItsScript checks what the page's safety rests on: the embedded JSON holds no
// character that HTML parsing of a script element reacts to, so model text cannot end it, open
// a comment or start a tag, and it parses back to the texts given.
func TestDataCannotEndItsScript(t *testing.T) {
	t.Parallel()
	hostile := "</script><script>window.x=1</script><!--<\u2028\u2029>&</SCRIPT >"
	run, recs, hist := smallRun(t, hostile, "<style>body{display:none}</style>")
	hist[htmlreport.Key("billing", "refund", "gpt")][0].Run = hostile
	page := write(t, run, recs, hist)
	if n := strings.Count(strings.ToLower(page), "</script"); n != 3 {
		t.Errorf("the page has %d script ends, want 3 (two data blocks and the script)", n)
	}
	blocks := dataRe.FindAllStringSubmatch(page, -1)
	if len(blocks) != 2 {
		t.Fatalf("found %d data blocks, want 2", len(blocks))
	}
	for _, b := range blocks {
		if i := strings.IndexAny(b[2], "<>&\u2028\u2029"); i >= 0 {
			t.Errorf("%s holds %q raw at %d", b[1], b[2][i:i+1], i)
		}
		var v any
		if err := json.Unmarshal([]byte(b[2]), &v); err != nil {
			t.Errorf("%s is not JSON: %v", b[1], err)
		}
	}
	var details []struct {
		Answer string `json:"ans"`
	}
	if err := json.Unmarshal([]byte(data(t, page, "agentv-details")), &details); err != nil {
		t.Fatal(err)
	}
	// U+2028 and U+2029 become LF, as every report shows line breaks.
	if want := strings.NewReplacer("\u2028", "\n", "\u2029", "\n").Replace(hostile); details[1].Answer != want {
		t.Errorf("answer read back %q, want %q", details[1].Answer, want)
	}
}

// TestPolicyAllowsOnlyTheScript: the CSP's hash is the inline script's, and the policy allows
// no source of any kind.
func TestPolicyAllowsOnlyTheScript(t *testing.T) {
	t.Parallel()
	run, recs, hist := smallRun(t, "a", "b")
	page := write(t, run, recs, hist)
	m := cspRe.FindStringSubmatch(page)
	code := codeRe.FindString(page)
	if m == nil || code == "" {
		t.Fatal("no policy hash or no script")
	}
	code = strings.TrimSuffix(strings.TrimPrefix(code, "<script>"), "</script>")
	sum := sha256.Sum256([]byte(code))
	if got := base64.StdEncoding.EncodeToString(sum[:]); got != m[1] {
		t.Errorf("the policy allows sha256-%s, the script is sha256-%s", m[1], got)
	}
	style := styleRe.FindString(page)
	sum = sha256.Sum256([]byte(strings.TrimSuffix(strings.TrimPrefix(style, "<style>"), "</style>")))
	if want := "style-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"; !strings.Contains(page, want) {
		t.Errorf("the policy does not allow the style by its hash (%s)", want)
	}
	for _, want := range []string{"default-src 'none'", "img-src 'none'", "base-uri 'none'", "form-action 'none'"} {
		if !strings.Contains(page, want) {
			t.Errorf("the policy lacks %s", want)
		}
	}
	// The page's own code neither loads anything nor parses text as HTML.
	for _, bad := range []string{"url(", "@import", "@font-face"} {
		if strings.Contains(style, bad) {
			t.Errorf("the style has %s", bad)
		}
	}
	for _, bad := range []string{"innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "Function(", "fetch(", "XMLHttpRequest", "import(", "setAttribute(\"href", "srcdoc"} {
		if strings.Contains(code, bad) {
			t.Errorf("the script uses %s", bad)
		}
	}
}

// TestHistoryPoints: links only http(s), scores within [0, 1], at most the newest 100 points.
func TestHistoryPoints(t *testing.T) {
	t.Parallel()
	run, recs, _ := smallRun(t, "a", "b")
	var pts []htmlreport.Point
	for i := range 150 {
		pts = append(pts, htmlreport.Point{Run: "r", URL: "https://example.com/" + string(rune('a'+i%26)), Score: float64(i) / 100, Status: "pass"})
	}
	pts[149].URL, pts[148].URL, pts[147].Score = "javascript:alert(1)", `https://x/"onmouseover=1`, math.NaN()
	page := write(t, run, recs, htmlreport.History{htmlreport.Key("basics", "greet", "gpt"): pts})
	var details []struct {
		Hist []htmlreport.Point `json:"hist"`
	}
	if err := json.Unmarshal([]byte(data(t, page, "agentv-details")), &details); err != nil {
		t.Fatal(err)
	}
	got := details[0].Hist
	if len(got) != 100 {
		t.Fatalf("%d points kept, want the newest 100", len(got))
	}
	if got[99].URL != "" || got[98].URL != "" {
		t.Errorf("unsafe links kept: %q, %q", got[98].URL, got[99].URL)
	}
	if got[97].Score != 0 || got[96].Score != 1 {
		t.Errorf("scores %v, %v: want NaN as 0 and 1.46 clamped to 1", got[97].Score, got[96].Score)
	}
}

// A results file with a broken line gives the cases before it, as the other reports do.
func TestFromFileKeepsCasesBeforeABrokenLine(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "results.jsonl")
	lines := `{"eval_id":"a","score":1,"verdict":"pass"}` + "\n" + `{broken` + "\n" + `{"eval_id":"c","score":1,"verdict":"pass"}` + "\n"
	if err := os.WriteFile(path, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	var ids []string
	if err := htmlreport.FromFile(path)(func(r *results.Record) error { ids = append(ids, r.EvalID); return nil }); err != nil {
		t.Fatal(err)
	}
	if strings.Join(ids, " ") != "a" {
		t.Errorf("read %q, want a", ids)
	}
	if err := htmlreport.FromFile(path + ".missing")(func(*results.Record) error { return nil }); err == nil {
		t.Error("a missing file is no error")
	}
}
