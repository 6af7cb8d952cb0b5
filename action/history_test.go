package action

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/agentv/action/action/actiontest"
	"github.com/agentv/action/gate"
	"github.com/agentv/action/history"
	"github.com/agentv/action/report"
	"github.com/agentv/action/results"
)

// fiveRuns seeds the fake with the pull request's run (99) and five successful push runs of
// its workflow on main (runs 31–35, ids 131–135), around runs that must not be read. In each,
// case "a" of dataset "qa" passes until run 33 and fails from then on; "b" always passes.
func fiveRuns(t *testing.T, gh *actiontest.GitHub) { fiveRunsExcept(t, gh, nil) }

// fiveRunsExcept is fiveRuns where some runs' artifacts are "expired", "missing", "404" (the
// download is not found) or "big" (its results.jsonl is 8 KiB of one line).
func fiveRunsExcept(t *testing.T, gh *actiontest.GitHub, bad map[int64]string) {
	t.Helper()
	run := func(id int64, wid int64, branch, event, conclusion, created string) actiontest.WorkflowRun {
		return actiontest.WorkflowRun{ID: id, RunNumber: int(id - 100), WorkflowID: wid, HeadBranch: branch, HeadSHA: "abcdef1234567890",
			Event: event, Status: "completed", Conclusion: conclusion, CreatedAt: created,
			HTMLURL: "https://github.example/octo/repo/actions/runs/" + strconv.FormatInt(id, 10)}
	}
	gh.AddRun(run(99, 7, "feature", "pull_request", "", "2026-01-20T00:00:00Z"))
	for i := range int64(5) {
		id := 131 + i
		gh.AddRun(run(id, 7, "main", "push", "success", fmt.Sprintf("2026-01-%02dT00:00:00Z", 10+i)))
		a := `{"eval_id":"a","dataset":"qa","score":1,"verdict":"pass"}`
		if id >= 133 {
			a = `{"eval_id":"a","dataset":"qa","score":0.2,"verdict":"fail"}`
		}
		body := `{"record":"run_start","format":1,"timestamp":"2026-01-10T00:00:00Z"}` + "\n" + a + "\n" +
			`{"eval_id":"b","dataset":"qa","score":0.9,"verdict":"pass"}` + "\n" +
			fmt.Sprintf(`{"eval_id":"c","dataset":"tools","score":%.1f,"verdict":"pass"}`, 0.5+float64(i)/10) + "\n"
		switch bad[id] {
		case "missing":
		case "big":
			gh.AddArtifact(id, "agentv-results", zipOf(t, map[string]string{"results.jsonl": strings.Repeat("x", 8192)}), false)
		default:
			art := gh.AddArtifact(id, "agentv-results", zipOf(t, map[string]string{"results.jsonl": body, "junit.xml": "<x/>"}), bad[id] == "expired")
			if bad[id] == "404" {
				gh.Fail("GET /repos/octo/repo/actions/artifacts/"+strconv.FormatInt(art, 10)+"/zip", actiontest.Fault{Status: 404, Message: "Not Found"})
			}
		}
	}
	gh.AddRun(run(136, 7, "main", "push", "failure", "2026-01-16T00:00:00Z")) // failed: not read
	gh.AddRun(run(137, 8, "main", "push", "success", "2026-01-17T00:00:00Z")) // another workflow
	gh.AddRun(run(138, 7, "main", "pull_request", "success", "2026-01-18T00:00:00Z"))
	gh.AddRun(run(120, 7, "main", "push", "success", "2026-01-01T00:00:00Z")) // older than the five
	gh.AddArtifact(120, "agentv-results", zipOf(t, map[string]string{"results.jsonl": "not read\n"}), false)
}

var historyQuery = BaselineQuery{RunID: 99, Branch: "main", Artifact: "agentv-results"}

// A history of five base runs is read oldest first, and with this run's records it gives the
// trend chart and "failing since" in the summary and the comment.
func TestHistoryOfFiveRuns(t *testing.T) {
	t.Parallel()
	for _, unfiltered := range []bool{false, true} {
		gh := startGitHub(t)
		if unfiltered {
			gh.IgnoreRunFilters()
		}
		fiveRuns(t, gh)
		s, _ := newTestStore(t, gh)
		runs, warnings, err := s.FetchHistory(context.Background(), historyQuery, 5, t.TempDir())
		if err != nil || len(warnings) > 0 {
			t.Fatalf("unfiltered %v: %v, warnings %q", unfiltered, err, warnings)
		}
		var got []string
		for _, r := range runs {
			got = append(got, strconv.Itoa(r.Number))
			if _, err := os.Stat(r.Path); err != nil {
				t.Errorf("run %d: %v", r.Number, err)
			}
		}
		if strings.Join(got, " ") != "31 32 33 34 35" {
			t.Errorf("unfiltered %v: runs %v, want 31 … 35 oldest first", unfiltered, got)
		}
		for _, r := range gh.Requests() {
			if strings.HasPrefix(r.Path, "/blobs/") && r.Auth != "" {
				t.Errorf("archive download %s carries the token", r)
			}
		}
		if unfiltered {
			continue
		}

		h := history.New()
		for _, r := range runs {
			f, err := os.Open(r.Path)
			if err != nil {
				t.Fatal(err)
			}
			if err := h.ReadRun(history.Run{Label: "#" + strconv.Itoa(r.Number), URL: r.URL}, f, 0.8); err != nil {
				t.Fatal(err)
			}
			f.Close()
		}
		recs := []*results.Record{
			{EvalID: "a", Dataset: "qa", Score: 0.1, Verdict: results.VerdictFail, File: "evals/qa.yaml", Line: 3},
			{EvalID: "b", Dataset: "qa", Score: 0.3, Verdict: results.VerdictFail, File: "evals/qa.yaml", Line: 9},
			{EvalID: "c", Dataset: "tools", Score: 1, Verdict: results.VerdictPass, File: "evals/tools.yaml", Line: 2},
		}
		counts := gate.Counts{Total: 3, Passed: 1, Failed: 2}
		run := &report.Run{Records: recs, Counts: counts, Gate: gate.Defaults(), Decision: gate.Decide(counts, gate.Defaults())}
		run.SetHistory(h, history.Run{Label: "this run"})
		for name, md := range map[string]string{"summary": report.Summary(run), "comment": report.Comment(run, "<!-- m -->")} {
			for _, want := range []string{
				"### 📈 Trend over the last 6 runs",
				`x-axis "run" ["#31", "#32", "#33", "#34", "#35", "this run"]`,
				"line [100, 100, 50, 50, 50, 0]",
				"line [100, 100, 100, 100, 100, 100]",
				"a <sub>🔁 failing since [#\u200d33](https://github.example/octo/repo/actions/runs/133) (4 runs)</sub>",
				"b <sub>🆕 newly failing</sub>",
			} {
				if !strings.Contains(md, want) {
					t.Errorf("%s lacks %q:\n%s", name, want, md)
				}
			}
		}
	}
}

// A run whose artifact is expired, gone (404), too large or missing is left out with a
// warning naming it; the others make the history. No run at all is ErrNoBaselineRun.
func TestHistoryDegrades(t *testing.T) {
	t.Parallel()
	gh := startGitHub(t)
	fiveRunsExcept(t, gh, map[int64]string{131: "missing", 132: "expired", 133: "404", 134: "big"})
	s, _ := newTestStore(t, gh)
	q := historyQuery
	q.MaxBytes = 2048
	runs, warnings, err := s.FetchHistory(context.Background(), q, 5, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 || runs[0].Number != 35 {
		t.Errorf("runs %+v, want only run 35", runs)
	}
	want := []string{
		`history: run 31 on main (abcdef1) (https://github.example/octo/repo/actions/runs/131) is left out: no baseline: run 31 on main (abcdef1) has no artifact named "agentv-results"`,
		`history: run 32 on main (abcdef1) (https://github.example/octo/repo/actions/runs/132) is left out: no baseline: the "agentv-results" artifact of run 32 on main (abcdef1) has expired`,
		"history: run 33 on main (abcdef1) (https://github.example/octo/repo/actions/runs/133) is left out: ",
		`history: run 34 on main (abcdef1) (https://github.example/octo/repo/actions/runs/134) is left out: the "agentv-results" artifact of run 34 on main (abcdef1): its results.jsonl is 8192 bytes, more than 2048`,
	}
	if len(warnings) != len(want) {
		t.Fatalf("warnings %q", warnings)
	}
	for i, w := range want {
		if !strings.HasPrefix(warnings[i], w) {
			t.Errorf("warning %d = %q, want it to start %q", i, warnings[i], w)
		}
	}
	if !strings.Contains(warnings[2], "404") {
		t.Errorf("the 404 warning does not say so: %q", warnings[2])
	}

	// Nothing to read: an error for a notice, as baseline: auto gives.
	none := startGitHub(t)
	none.AddRun(actiontest.WorkflowRun{ID: 99, WorkflowID: 7, HeadBranch: "feature", Event: "pull_request"})
	s2, _ := newTestStore(t, none)
	if _, _, err := s2.FetchHistory(context.Background(), historyQuery, 5, t.TempDir()); !errors.Is(err, ErrNoBaselineRun) {
		t.Errorf("no run: err = %v, want ErrNoBaselineRun", err)
	}
}

// The number of runs asked for is bounded, and more runs than exist is what exists.
func TestHistoryCount(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ n, want int }{{2, 2}, {30, 6}, {99, 6}, {0, 1}} {
		gh := startGitHub(t)
		fiveRuns(t, gh)
		s, _ := newTestStore(t, gh)
		runs, warnings, err := s.FetchHistory(context.Background(), historyQuery, tc.n, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		// The sixth, run 20, is downloaded too: what its file holds is the reader's to judge.
		if len(runs) != tc.want || len(warnings) > 0 {
			t.Errorf("history %d: %d runs, warnings %q; want %d runs", tc.n, len(runs), warnings, tc.want)
		}
		if tc.n >= 6 && runs[0].Number != 20 {
			t.Errorf("history %d: oldest run %d, want 20", tc.n, runs[0].Number)
		}
		var perPage string
		for _, r := range gh.Requests() {
			if strings.Contains(r.Path, "/workflows/7/runs") {
				perPage = r.Query
			}
		}
		if !strings.Contains(perPage, "per_page=") {
			t.Errorf("history %d: list query %q", tc.n, perPage)
		}
	}
}

// The history input takes 0 to 30 runs; anything else is an input problem naming its range.
func TestHistoryInput(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		v    string
		want int
		err  bool
	}{{"", 0, false}, {"0", 0, false}, {"1", 1, false}, {"30", 30, false}, {"31", 0, true}, {"-1", 0, true}, {"ten", 0, true}} {
		env := map[string]string{"INPUT_EVALS": "a.yaml", "INPUT_HISTORY": tc.v}
		in, errs := ParseInputs(func(k string) string { return env[k] })
		if tc.err {
			want := `input history: invalid value "` + tc.v + `": want an integer, between 0 (no history) and 30 runs`
			if len(errs) != 1 || errs[0].Error() != want {
				t.Errorf("history %q: errors %v, want %q", tc.v, errs, want)
			}
			continue
		}
		if len(errs) > 0 || in.History != tc.want {
			t.Errorf("history %q: %d, %v; want %d", tc.v, in.History, errs, tc.want)
		}
	}
}
