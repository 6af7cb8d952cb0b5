package runner

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentv/action/providers"
	"github.com/agentv/action/results"
	"github.com/agentv/action/suite"
	"github.com/agentv/action/targets"
)

// slowOnce is a shell snippet that hangs past the timeout on its first run (and on every run
// when always is set) and prints answer on the others: the state lives in a file.
func slowOnce(state string, always bool, answer string) string {
	hang := "sleep 30"
	if !always {
		hang = "touch '" + state + "'; sleep 30"
	}
	return "if [ -e '" + state + "' ]; then " + answer + "; else " + hang + "; fi"
}

// Judges that time out are retried with the target's budget: a real cli judge and a real code
// judge script hang on their first attempt and answer on the second.
func TestRunRetriesJudgeTimeouts(t *testing.T) {
	t.Parallel()
	verdict := `{"score": 1, "hits": ["ok"], "misses": [], "reasoning": "fine"}`
	tests := []struct {
		name         string
		kind         string // llm_judge (a cli judge target) or code_judge
		always       bool   // every attempt hangs
		maxRetries   int
		wantVerdict  results.Verdict
		wantAttempts int // on the evaluator result; 0: not written
		wantErr      string
	}{
		{"cli judge answers the second time", suite.TypeLLMJudge, false, 2, results.VerdictPass, 2, ""},
		{"cli judge without retries", suite.TypeLLMJudge, false, 0, results.VerdictError, 0, "timed out"},
		{"code judge answers the second time", suite.TypeCodeJudge, false, 1, results.VerdictPass, 2, ""},
		{"code judge always hangs", suite.TypeCodeJudge, true, 1, results.VerdictError, 2, "every one of 2 attempts timed out"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			state := filepath.Join(dir, "state")
			s := newSuite(1)
			s.Dir = dir
			opts := testOptions(1)
			opts.Timeout = time.Second
			opts.MaxRetries = tt.maxRetries
			switch tt.kind {
			case suite.TypeLLMJudge:
				cmd := slowOnce(state, tt.always, "printf '%s' '"+verdict+"' > {OUTPUT_FILE}")
				jt := &targets.Target{Name: "flaky-judge", Kind: targets.KindCLI, Provider: "cli", Dir: dir,
					Settings: map[string]*targets.Setting{"command_template": {Key: "command_template", Value: cmd}}}
				judge, _, err := providers.New(jt, providers.Options{Timeout: opts.Timeout})
				if err != nil {
					t.Fatal(err)
				}
				opts.Evaluators.Judges = func(*targets.Target, string) (providers.Provider, error) { return judge, nil }
			case suite.TypeCodeJudge:
				script := slowOnce(state, tt.always, "printf '%s' '"+verdict+"'")
				s.Cases[0].Evaluators = []*suite.EvaluatorSpec{{Name: "check", Type: suite.TypeCodeJudge, Weight: 1,
					Script: []string{"sh", "-c", script}, Cwd: dir}}
			}
			target := &fakeProvider{target: &targets.Target{Name: "t", Kind: targets.KindMock}, answer: answerText("hi")}
			var col collector
			New(opts, col.CaseFinished).Run(t.Context(), feed(t.Context(), jobsFor(s, target)))
			r := col.recs[0]
			if len(r.EvaluatorResults) != 1 {
				t.Fatalf("evaluator results %+v", r.EvaluatorResults)
			}
			e := r.EvaluatorResults[0]
			if r.Verdict != tt.wantVerdict || e.Attempts != tt.wantAttempts || !strings.Contains(r.Error, tt.wantErr) {
				t.Errorf("verdict %s, evaluator attempts %d, error %q; want %s, %d, %q", r.Verdict, e.Attempts, r.Error,
					tt.wantVerdict, tt.wantAttempts, tt.wantErr)
			}
			if r.Attempts != 1 {
				t.Errorf("record attempts %d: judge retries must not count as target attempts", r.Attempts)
			}
			// The evaluator's attempts are written next to the record's own.
			wantKeys := 1
			if tt.wantAttempts > 0 {
				wantKeys = 2
			}
			if line := string(mustMarshal(t, r)); strings.Count(line, `"attempts":`) != wantKeys {
				t.Errorf("record %s: want %d attempts keys", line, wantKeys)
			}
			if _, err := os.Stat(state); err != nil && !tt.always {
				t.Errorf("the judge never ran: %v", err)
			}
		})
	}
}
