package action

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentv/action/cache"
	"github.com/agentv/action/config"
	"github.com/agentv/action/report"
)

func ptr[T any](v T) *T { return &v }

func defaults() Inputs {
	in := Inputs{
		Settings: config.Defaults(),
		Comment:  CommentAuto, Mode: ModeRun, ResultsDir: config.DefaultResultsDir,
		BaselineArtifact: DefaultBaselineArtifact,
	}
	in.CacheDir = config.DefaultCacheDir
	return in
}

func TestParseInputs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		env     map[string]string
		want    func(*Inputs)
		errored []string // inputs named by the errors, in order
	}{
		{
			name: "evals only",
			env:  map[string]string{"INPUT_EVALS": "evals/*.yaml"},
			want: func(in *Inputs) { in.Paths = []string{"evals/*.yaml"} },
		},
		{
			name: "everything, hyphens kept as the runner passes them",
			env: map[string]string{
				"INPUT_EVALS":             "evals/a.yaml\n  evals/b/**/*.yaml , evals/c.jsonl\r\n\n",
				"INPUT_TARGETS":           ".agentv/targets.yaml",
				"INPUT_TARGET":            "azure",
				"INPUT_JUDGE-TARGET":      "judge",
				"INPUT_MAX-CONCURRENCY":   "8",
				"INPUT_EVAL-ID":           "refund-*",
				"INPUT_TIMEOUT":           "90",
				"INPUT_MAX-RETRIES":       "0",
				"INPUT_MIN-SCORE":         "0.75",
				"INPUT_CASE-THRESHOLD":    "0.9",
				"INPUT_MAX-FAILURES":      "2",
				"INPUT_MAX-ERRORS":        "1",
				"INPUT_FAIL-ON-SKIP":      "true",
				"INPUT_COMMENT":           "on-failure",
				"INPUT_COMMENT-KEY":       "linux",
				"INPUT_DETAILS":           "all",
				"INPUT_GITHUB-TOKEN":      "ghs_secret",
				"INPUT_RESULTS-DIR":       "out",
				"INPUT_WORKING-DIRECTORY": "sub",
				"INPUT_DRY-RUN":           "TRUE",
				"INPUT_VERBOSE":           "False",
				"INPUT_BASELINE":          "Auto",
				"INPUT_BASELINE-ARTIFACT": "evals-main",
				"INPUT_MAX-REGRESSIONS":   "0",
				"INPUT_REGRESSION-MARGIN": "0.05",
				"INPUT_MAX-MEAN-DROP":     "0.02",
			},
			want: func(in *Inputs) {
				in.Paths = []string{"evals/a.yaml", "evals/b/**/*.yaml", "evals/c.jsonl"}
				in.TargetsPath, in.Target, in.JudgeTarget = ".agentv/targets.yaml", "azure", "judge"
				in.Workers, in.EvalID, in.Timeout, in.MaxRetries = 8, "refund-*", 90*time.Second, 0
				in.Gate.MinScore, in.Gate.CaseThreshold, in.Gate.MaxFailures, in.Gate.MaxErrors = ptr(0.75), 0.9, 2, 1
				in.FailOnSkip, in.Comment, in.CommentKey, in.Details = true, CommentOnFailure, "linux", report.DetailsAll
				in.GitHubToken, in.ResultsDir, in.WorkDir, in.DryRun = "ghs_secret", "out", "sub", true
				in.BaselinePath, in.BaselineArtifact, in.Gate.MaxRegressions, in.Gate.RegressionMargin, in.Gate.MaxMeanDrop = BaselineAuto, "evals-main", ptr(0), 0.05, ptr(0.02)
			},
		},
		{
			name: "cache",
			env:  map[string]string{"INPUT_EVALS": "a.yaml", "INPUT_CACHE": "Read-Only", "INPUT_CACHE-DIR": "/tmp/c"},
			want: func(in *Inputs) { in.Paths, in.Cache, in.CacheDir = []string{"a.yaml"}, cache.ReadOnly, "/tmp/c" },
		},
		{
			name: "underscores accepted",
			env:  map[string]string{"INPUT_EVALS": "a.yaml", "INPUT_MAX_CONCURRENCY": "3", "INPUT_GITHUB_TOKEN": "t0k3n"},
			want: func(in *Inputs) { in.Paths, in.Workers, in.GitHubToken = []string{"a.yaml"}, 3, "t0k3n" },
		},
		{
			name: "hyphen wins over underscore",
			env:  map[string]string{"INPUT_EVALS": "a.yaml", "INPUT_MAX-CONCURRENCY": "4", "INPUT_MAX_CONCURRENCY": "3"},
			want: func(in *Inputs) { in.Paths, in.Workers = []string{"a.yaml"}, 4 },
		},
		{
			name: "durations and edge values",
			env:  map[string]string{"INPUT_EVALS": "a.yaml", "INPUT_TIMEOUT": "2m30s", "INPUT_MIN-SCORE": "0", "INPUT_CASE-THRESHOLD": "1"},
			want: func(in *Inputs) {
				in.Paths, in.Timeout, in.Gate.MinScore, in.Gate.CaseThreshold = []string{"a.yaml"}, 150*time.Second, ptr(0.0), 1
			},
		},
		{
			name: "report mode needs no evals and defaults results",
			env:  map[string]string{"INPUT_MODE": "report", "INPUT_RESULTS-DIR": "r", "INPUT_PR-NUMBER": "43"},
			want: func(in *Inputs) {
				in.Mode, in.ResultsDir, in.Results, in.PRNumber = ModeReport, "r", "r/results.jsonl", 43
			},
		},
		{
			name: "report mode with a results file",
			env:  map[string]string{"INPUT_MODE": "Report", "INPUT_RESULTS": "dl/results.jsonl"},
			want: func(in *Inputs) { in.Mode, in.Results = ModeReport, "dl/results.jsonl" },
		},
		{
			name: "trials",
			env:  map[string]string{"INPUT_EVALS": "a.yaml", "INPUT_TRIALS": "5", "INPUT_TRIALS-STRATEGY": "mean"},
			want: func(in *Inputs) { in.Paths, in.Trials.Count, in.Trials.Strategy = []string{"a.yaml"}, 5, "mean" },
		},
		{
			name:    "bad trials",
			env:     map[string]string{"INPUT_EVALS": "a.yaml", "INPUT_TRIALS": "0", "INPUT_TRIALS-STRATEGY": "best"},
			want:    func(in *Inputs) { in.Paths = []string{"a.yaml"} },
			errored: []string{"trials", "trials-strategy"},
		},
		{
			name:    "run mode without evals",
			env:     map[string]string{"INPUT_EVALS": " , \n"},
			errored: []string{"evals"},
		},
		{
			name: "every bad value is reported",
			env: map[string]string{
				"INPUT_EVALS":             "a.yaml",
				"INPUT_MAX-CONCURRENCY":   "-1",
				"INPUT_TIMEOUT":           "0",
				"INPUT_MAX-RETRIES":       "two",
				"INPUT_MIN-SCORE":         "80%",
				"INPUT_CASE-THRESHOLD":    "1.5",
				"INPUT_MAX-FAILURES":      "1.5",
				"INPUT_MAX-ERRORS":        "-2",
				"INPUT_PR-NUMBER":         "0",
				"INPUT_FAIL-ON-SKIP":      "maybe",
				"INPUT_DRY-RUN":           "y",
				"INPUT_VERBOSE":           "2",
				"INPUT_COMMENT":           "true",
				"INPUT_DETAILS":           "some",
				"INPUT_MODE":              "eval",
				"INPUT_MAX-REGRESSIONS":   "-1",
				"INPUT_REGRESSION-MARGIN": "2",
				"INPUT_MAX-MEAN-DROP":     "x",
				"INPUT_CACHE":             "sometimes",
			},
			want: func(in *Inputs) { in.Paths = []string{"a.yaml"} },
			errored: []string{"max-concurrency", "timeout", "max-retries", "min-score", "case-threshold", "max-failures",
				"max-errors", "pr-number", "max-regressions", "regression-margin", "max-mean-drop", "fail-on-skip", "dry-run", "verbose", "comment", "details", "mode", "cache"},
		},
		{
			name:    "NaN and infinity",
			env:     map[string]string{"INPUT_EVALS": "a", "INPUT_MIN-SCORE": "NaN", "INPUT_TIMEOUT": "inf", "INPUT_CASE-THRESHOLD": "-0.1"},
			want:    func(in *Inputs) { in.Paths = []string{"a"} },
			errored: []string{"timeout", "min-score", "case-threshold"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, errs := ParseInputs(envMap(tt.env))
			var names []string
			for _, err := range errs {
				var ie *InputError
				if !errors.As(err, &ie) {
					t.Fatalf("error %v is not an *InputError", err)
				}
				if want := "input " + ie.Name + ": "; len(err.Error()) < len(want) || err.Error()[:len(want)] != want {
					t.Errorf("error %q does not start with %q", err, want)
				}
				names = append(names, ie.Name)
			}
			if diff := cmp.Diff(tt.errored, names); diff != "" {
				t.Errorf("inputs with errors (-want +got):\n%s\nerrors: %v", diff, errs)
			}
			if tt.want == nil {
				return
			}
			want := defaults()
			tt.want(&want)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("inputs (-want +got):\n%s", diff)
			}
		})
	}
}

func TestInputsGate(t *testing.T) {
	t.Parallel()
	in, errs := ParseInputs(envMap(map[string]string{"INPUT_EVALS": "a", "INPUT_MIN-SCORE": "0.5", "INPUT_MAX-ERRORS": "3"}))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	g := in.Gate
	if g.CaseThreshold != 0.8 || g.MinScore == nil || *g.MinScore != 0.5 || g.MaxErrors != 3 || g.MaxFailures != 0 {
		t.Errorf("Gate = %+v", g)
	}
}

func TestInputsPR(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		input int
		event int
		want  int
	}{
		{"event PR", 0, 42, 42},
		{"input for workflow_run", 43, 0, 43},
		{"input wins", 43, 42, 43},
		{"no PR", 0, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := (Inputs{PRNumber: tt.input}).PR(Event{PRNumber: tt.event}); got != tt.want {
				t.Errorf("PR = %d, want %d", got, tt.want)
			}
		})
	}
}
