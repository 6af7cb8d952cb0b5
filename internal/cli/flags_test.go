package cli

import (
	"flag"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentv/action/gate"
)

func TestEvalFlags(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		args    []string
		paths   []string
		check   func(t *testing.T, cfg EvalConfig, minSet bool)
		wantErr string
	}{
		{name: "flags after paths", args: []string{"a.yaml", "--dry-run", "b/*.yaml", "--workers", "4"},
			paths: []string{"a.yaml", "b/*.yaml"},
			check: func(t *testing.T, cfg EvalConfig, _ bool) {
				if !cfg.DryRun || cfg.Workers != 4 {
					t.Errorf("cfg = %+v", cfg)
				}
			}},
		{name: "aliases and units", args: []string{"--agent-timeout", "1.5", "--max-concurrency", "8", "--dry-run-delay", "50", "x.jsonl"},
			paths: []string{"x.jsonl"},
			check: func(t *testing.T, cfg EvalConfig, _ bool) {
				if cfg.Timeout != 1500*time.Millisecond || cfg.Workers != 8 || cfg.DryRunDelay != 50*time.Millisecond {
					t.Errorf("cfg = %+v", cfg)
				}
			}},
		{name: "gate", args: []string{"--min-score", "0.7", "--case-threshold", "0.9", "--max-failures", "2", "--max-errors", "1", "s.yaml"},
			paths: []string{"s.yaml"},
			check: func(t *testing.T, cfg EvalConfig, minSet bool) {
				if !minSet || cfg.minScore != 0.7 || cfg.Gate.CaseThreshold != 0.9 || cfg.Gate.MaxFailures != 2 || cfg.Gate.MaxErrors != 1 {
					t.Errorf("cfg = %+v minSet %v", cfg, minSet)
				}
			}},
		{name: "double dash ends flags", args: []string{"--", "--weird.yaml"}, paths: []string{"--weird.yaml"}},
		{name: "score out of range", args: []string{"--min-score", "1.5"}, wantErr: "between 0 and 1"},
		{name: "negative timeout", args: []string{"--timeout", "-1"}, wantErr: "seconds >= 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := EvalConfig{Gate: gate.Defaults()}
			var minSet, comment bool
			fs := flag.NewFlagSet("t", flag.ContinueOnError)
			var errOut strings.Builder
			fs.SetOutput(io.MultiWriter(&errOut))
			evalFlags(fs, &cfg, &minSet, &comment)
			paths, err := parseInterspersed(fs, tt.args)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.paths, paths); diff != "" {
				t.Errorf("paths (-want +got):\n%s", diff)
			}
			if tt.check != nil {
				tt.check(t, cfg, minSet)
			}
		})
	}
}

func TestDisplayPath(t *testing.T) {
	t.Parallel()
	e := &Engine{Cfg: EvalConfig{Workspace: "/ws", Cwd: "/ws/sub"}}
	for in, want := range map[string]string{"evals/a.yaml": "sub/evals/a.yaml", "/ws/x.yaml": "x.yaml", "/elsewhere/y.yaml": "/elsewhere/y.yaml", "../../z.yaml": "../../z.yaml"} {
		if got := e.display(in); got != want {
			t.Errorf("display(%q) = %q, want %q", in, got, want)
		}
	}
	local := &Engine{Cfg: EvalConfig{Cwd: "/ws"}}
	if got := local.display("evals/a.yaml"); got != "evals/a.yaml" {
		t.Errorf("without a workspace paths stay as loaded, got %q", got)
	}
}
