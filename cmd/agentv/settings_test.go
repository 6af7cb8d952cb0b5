package main

import (
	"flag"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentv/action/action"
	"github.com/agentv/action/config"
)

// TestFlagsAndInputsFillTheSameSettings keeps the two front-ends of one configuration in
// step: the same choices given as `agentv eval` flags and as Action inputs (or given as
// neither) are the same settings, so a suite runs alike from a shell and from a workflow.
func TestFlagsAndInputsFillTheSameSettings(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		args  []string
		input map[string]string
	}{
		{name: "nothing given", args: []string{"a.yaml"}, input: map[string]string{"evals": "a.yaml"}},
		{
			name: "everything given",
			args: []string{"a.yaml", "b/*.yaml", "--targets", "t.yaml", "--target", "azure", "--judge-target", "judge",
				"--workers", "4", "--eval-id", "refund-*", "--timeout", "90", "--max-retries", "0",
				"--trials", "3", "--trials-strategy", "mean", "--dry-run", "--verbose",
				"--min-score", "0.5", "--case-threshold", "0.9", "--max-failures", "2", "--max-errors", "1",
				"--baseline", "base.jsonl", "--max-regressions", "0", "--regression-margin", "0.2", "--max-mean-drop", "0.05",
				"--cache=read-only", "--cache-dir", "c", "--shard", "2/8"},
			input: map[string]string{"evals": "a.yaml\nb/*.yaml", "targets": "t.yaml", "target": "azure", "judge-target": "judge",
				"max-concurrency": "4", "eval-id": "refund-*", "timeout": "90s", "max-retries": "0",
				"trials": "3", "trials-strategy": "mean", "dry-run": "true", "verbose": "true",
				"min-score": "0.5", "case-threshold": "0.9", "max-failures": "2", "max-errors": "1",
				"baseline": "base.jsonl", "max-regressions": "0", "regression-margin": "0.2", "max-mean-drop": "0.05",
				"cache": "read-only", "cache-dir": "c", "shard": "2/8"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := EvalConfig{Settings: config.Defaults()}
			var comment bool
			fs := flag.NewFlagSet("t", flag.ContinueOnError)
			evalFlags(fs, &cfg, &comment)
			paths, err := parseInterspersed(fs, tt.args)
			if err != nil {
				t.Fatal(err)
			}
			fromFlags := cfg.Settings
			fromFlags.Paths = paths
			if len(fromFlags.Targets) == 1 { // one --target is no matrix: the Target override alone
				fromFlags.Targets = nil
			}
			in, errs := action.ParseInputs(func(k string) string {
				for name, v := range tt.input {
					if k == "INPUT_"+strings.ToUpper(name) {
						return v
					}
				}
				return ""
			})
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			fromInputs := in.Settings
			if fromInputs.CacheDir == config.DefaultCacheDir && fromFlags.CacheDir == "" {
				// action.yml states the default folder; the command finds the same one in the
				// workspace when none is given.
				fromInputs.CacheDir = ""
			}
			if diff := cmp.Diff(fromFlags, fromInputs, cmp.AllowUnexported(config.Shard{})); diff != "" {
				t.Errorf("settings (-flags +inputs):\n%s", diff)
			}
		})
	}
}
