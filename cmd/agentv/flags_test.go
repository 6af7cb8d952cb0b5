package main

import (
	"flag"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentv/action/cache"
	"github.com/agentv/action/config"
	"github.com/agentv/action/gate"
	"github.com/agentv/action/suite"
)

func TestEvalFlags(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		args    []string
		paths   []string
		check   func(t *testing.T, cfg EvalConfig)
		wantErr string
	}{
		{name: "flags after paths", args: []string{"a.yaml", "--dry-run", "b/*.yaml", "--workers", "4"},
			paths: []string{"a.yaml", "b/*.yaml"},
			check: func(t *testing.T, cfg EvalConfig) {
				if !cfg.DryRun || cfg.Workers != 4 {
					t.Errorf("cfg = %+v", cfg)
				}
			}},
		{name: "aliases and units", args: []string{"--agent-timeout", "1.5", "--max-concurrency", "8", "--dry-run-delay", "50", "x.jsonl"},
			paths: []string{"x.jsonl"},
			check: func(t *testing.T, cfg EvalConfig) {
				if cfg.Timeout != 1500*time.Millisecond || cfg.Workers != 8 || cfg.DryRunDelay != 50*time.Millisecond {
					t.Errorf("cfg = %+v", cfg)
				}
			}},
		{name: "gate", args: []string{"--min-score", "0.7", "--case-threshold", "0.9", "--max-failures", "2", "--max-errors", "1", "s.yaml"},
			paths: []string{"s.yaml"},
			check: func(t *testing.T, cfg EvalConfig) {
				if cfg.Gate.MinScore == nil || *cfg.Gate.MinScore != 0.7 || cfg.Gate.CaseThreshold != 0.9 || cfg.Gate.MaxFailures != 2 || cfg.Gate.MaxErrors != 1 {
					t.Errorf("cfg = %+v", cfg)
				}
			}},
		{name: "cache and shard", args: []string{"--cache", "s.yaml", "--cache-dir", "c", "--shard", "2/8"}, paths: []string{"s.yaml"},
			check: func(t *testing.T, cfg EvalConfig) {
				if cfg.Cache != cache.ReadWrite || cfg.CacheDir != "c" || cfg.Shard == nil || cfg.Shard.Index != 2 || cfg.Shard.Count != 8 {
					t.Errorf("cfg = %+v", cfg)
				}
			}},
		{name: "cache read-only", args: []string{"--cache=read-only", "s.yaml"}, paths: []string{"s.yaml"},
			check: func(t *testing.T, cfg EvalConfig) {
				if cfg.Cache != cache.ReadOnly {
					t.Errorf("cache = %q", cfg.Cache)
				}
			}},
		{name: "bad cache mode", args: []string{"--cache=sometimes"}, wantErr: "read-write, read-only or off"},
		{name: "bad shard", args: []string{"--shard", "5/4"}, wantErr: "I/N"},
		{name: "double dash ends flags", args: []string{"--", "--weird.yaml"}, paths: []string{"--weird.yaml"}},
		{name: "score out of range", args: []string{"--min-score", "1.5"}, wantErr: "between 0 and 1"},
		{name: "negative timeout", args: []string{"--timeout", "-1"}, wantErr: "seconds >= 0"},
		{name: "timeout as a duration", args: []string{"--timeout", "2m", "s.yaml"}, paths: []string{"s.yaml"},
			check: func(t *testing.T, cfg EvalConfig) {
				if cfg.Timeout != 2*time.Minute {
					t.Errorf("timeout = %v, want 2m", cfg.Timeout)
				}
			}},
		{name: "timeout as a compound duration", args: []string{"--agent-timeout=1m30s", "s.yaml"}, paths: []string{"s.yaml"},
			check: func(t *testing.T, cfg EvalConfig) {
				if cfg.Timeout != 90*time.Second {
					t.Errorf("timeout = %v, want 1m30s", cfg.Timeout)
				}
			}},
		{name: "negative duration timeout", args: []string{"--timeout", "-2m"}, wantErr: "seconds >= 0"},
		{name: "bad duration timeout", args: []string{"--timeout", "2 minutes"}, wantErr: "duration such as"},
		{name: "NaN timeout", args: []string{"--timeout", "NaN"}, wantErr: "seconds >= 0"},
		{name: "infinite timeout", args: []string{"--timeout", "+Inf"}, wantErr: "seconds >= 0"},
		{name: "NaN min score", args: []string{"--min-score", "NaN"}, wantErr: "between 0 and 1"},
		{name: "infinite min score", args: []string{"--min-score", "+Inf"}, wantErr: "between 0 and 1"},
		{name: "NaN case threshold", args: []string{"--case-threshold", "nan"}, wantErr: "between 0 and 1"},
		{name: "negative case threshold", args: []string{"--case-threshold", "-0.1"}, wantErr: "between 0 and 1"},
		{name: "negative max failures", args: []string{"--max-failures", "-1"}, wantErr: "whole number >= 0"},
		{name: "negative max errors", args: []string{"--max-errors", "-1"}, wantErr: "whole number >= 0"},
		{name: "negative workers", args: []string{"--workers", "-1"}, wantErr: "whole number >= 0"},
		{name: "negative max concurrency", args: []string{"--max-concurrency", "-3"}, wantErr: "whole number >= 0"},
		{name: "negative max retries", args: []string{"--max-retries", "-1"}, wantErr: "whole number >= 0"},
		{name: "NaN dry-run delay", args: []string{"--dry-run-delay", "NaN"}, wantErr: "milliseconds >= 0"},
		{name: "trials", args: []string{"--trials", "4", "--trials-strategy", "confidence_interval", "s.yaml"}, paths: []string{"s.yaml"},
			check: func(t *testing.T, cfg EvalConfig) {
				if cfg.Trials != (suite.Trials{Count: 4, Strategy: suite.TrialsConfidenceInterval}) {
					t.Errorf("trials = %+v", cfg.Trials)
				}
			}},
		{name: "too many trials", args: []string{"--trials", "101"}, wantErr: "from 1 to 100"},
		{name: "negative trials", args: []string{"--trials", "-2"}, wantErr: "from 1 to 100"},
		{name: "unknown trials strategy", args: []string{"--trials-strategy", "max"}, wantErr: "want one of pass_at_k, mean, confidence_interval"},
		{name: "zero counts are fine", args: []string{"--workers", "0", "--max-retries", "0", "s.yaml"}, paths: []string{"s.yaml"},
			check: func(t *testing.T, cfg EvalConfig) {
				if cfg.Workers != 0 || cfg.MaxRetries != 0 {
					t.Errorf("cfg = %+v", cfg)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := EvalConfig{Settings: config.Defaults()}
			var comment bool
			fs := flag.NewFlagSet("t", flag.ContinueOnError)
			var errOut strings.Builder
			fs.SetOutput(io.MultiWriter(&errOut))
			evalFlags(fs, &cfg, &comment)
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
				tt.check(t, cfg)
			}
		})
	}
}

// TestGateFlagsExitInvalid checks that the commands refuse gate values the Action inputs
// refuse too, with exit 2 and a message naming the flag.
func TestGateFlagsExitInvalid(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"eval", "--min-score", "NaN", "s.yaml"},
		{"eval", "--case-threshold", "NaN", "s.yaml"},
		{"eval", "--max-failures", "-1", "s.yaml"},
		{"eval", "--workers", "-1", "s.yaml"},
		{"eval", "--timeout", "-5", "s.yaml"},
		{"eval", "--max-retries", "-1", "s.yaml"},
		{"report", "--results", "r.jsonl", "--min-score", "Inf"},
		{"report", "--results", "r.jsonl", "--case-threshold", "2"},
		{"report", "--results", "r.jsonl", "--max-errors", "-1"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Parallel()
			var stdout, stderr strings.Builder
			c := &Command{Stdout: &stdout, Stderr: &stderr, Getenv: func(string) string { return "" }, Cwd: t.TempDir()}
			if code := c.Main(t.Context(), args); code != gate.ExitInvalid {
				t.Errorf("exit %d, want %d", code, gate.ExitInvalid)
			}
			flagName := strings.TrimPrefix(args[len(args)-2], "--")
			if args[0] == "eval" {
				flagName = strings.TrimPrefix(args[1], "--")
			}
			if !strings.Contains(stderr.String(), "invalid value") || !strings.Contains(stderr.String(), "flag --"+flagName+":") {
				t.Errorf("stderr does not name the flag %s:\n%s", flagName, stderr.String())
			}
		})
	}
}

// TestFlagHelp checks that -h and --help print to stdout, each default once, and none for a
// flag that has none.
func TestFlagHelp(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"eval", "-h"}, {"report", "--help"}, {"eval", "x.yaml", "--help"}} {
		cmd := args[0]
		var stdout, stderr strings.Builder
		c := &Command{Stdout: &stdout, Stderr: &stderr, Getenv: func(string) string { return "" }}
		if code := c.Main(t.Context(), args); code != 0 {
			t.Fatalf("%v: exit %d", args, code)
		}
		if stderr.Len() > 0 {
			t.Errorf("%v wrote to stderr:\n%s", args, stderr.String())
		}
		help := stdout.String()
		if !strings.HasPrefix(help, "Usage: agentv "+cmd) {
			t.Errorf("%v does not start with the synopsis:\n%s", args, help)
		}
		lines := strings.Split(help, "\n")
		for i, line := range lines {
			if strings.Count(line, "(default") > 1 {
				t.Errorf("%s -h: default shown twice: %q", cmd, line)
			}
			if strings.Contains(line, "-min-score") && i+1 < len(lines) && strings.Contains(lines[i+1], "(default") {
				t.Errorf("%s -h: --min-score is unset by default but shows %q", cmd, lines[i+1])
			}
		}
		if !strings.Contains(help, "(default 0.8)") {
			t.Errorf("%s -h does not show the case threshold default:\n%s", cmd, help)
		}
	}
}

func TestDisplayPath(t *testing.T) {
	t.Parallel()
	e := &Engine{Cfg: EvalConfig{Settings: config.Settings{Workspace: "/ws", Cwd: "/ws/sub"}}}
	for in, want := range map[string]string{"evals/a.yaml": "sub/evals/a.yaml", "/ws/x.yaml": "x.yaml", "/elsewhere/y.yaml": "/elsewhere/y.yaml", "../../z.yaml": "../../z.yaml"} {
		if got := e.display(in); got != want {
			t.Errorf("display(%q) = %q, want %q", in, got, want)
		}
	}
	local := &Engine{Cfg: EvalConfig{Settings: config.Settings{Cwd: "/ws"}}}
	if got := local.display("evals/a.yaml"); got != "evals/a.yaml" {
		t.Errorf("without a workspace paths stay as loaded, got %q", got)
	}
}

// TestBadFlagIsOneLine checks that a bad flag prints one line naming the closest flag, not
// every flag, and exits 2.
func TestBadFlagIsOneLine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"eval", "--max-failure", "1", "s.yaml"}, "agentv eval: unknown flag --max-failure (did you mean --max-failures?); 'agentv eval -h' lists the flags\n"},
		{[]string{"eval", "s.yaml", "-jugde-target", "j"}, "agentv eval: unknown flag --jugde-target (did you mean --judge-target?); 'agentv eval -h' lists the flags\n"},
		{[]string{"eval", "--dry", "s.yaml"}, "agentv eval: unknown flag --dry (did you mean --dry-run?); 'agentv eval -h' lists the flags\n"},
		{[]string{"report", "--result", "r.jsonl"}, "agentv report: unknown flag --result (did you mean --results?); 'agentv report -h' lists the flags\n"},
		{[]string{"validate", "--target", "t.yaml", "s.yaml"}, "agentv validate: unknown flag --target (did you mean --targets?); 'agentv validate -h' lists the flags\n"},
		{[]string{"eval", "--frobnicate", "s.yaml"}, "agentv eval: unknown flag --frobnicate; 'agentv eval -h' lists the flags\n"},
		{[]string{"eval", "--timeout"}, "agentv eval: flag needs an argument: --timeout; 'agentv eval -h' lists the flags\n"},
		{[]string{"evl", "s.yaml"}, "agentv: unknown command \"evl\" (did you mean eval?); 'agentv -h' lists the commands\n"},
		{[]string{"--dry-run", "s.yaml"}, "agentv: unknown flag --dry-run: flags go after a command (agentv eval [flags] <paths>); 'agentv -h' lists the commands\n"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			var stdout, stderr strings.Builder
			c := &Command{Stdout: &stdout, Stderr: &stderr, Getenv: func(string) string { return "" }, Cwd: t.TempDir()}
			if code := c.Main(t.Context(), tt.args); code != gate.ExitInvalid {
				t.Errorf("exit %d, want %d", code, gate.ExitInvalid)
			}
			if diff := cmp.Diff(tt.want, stderr.String()); diff != "" {
				t.Errorf("stderr (-want +got):\n%s", diff)
			}
			if stdout.Len() > 0 {
				t.Errorf("stdout: %q", stdout.String())
			}
		})
	}
}
