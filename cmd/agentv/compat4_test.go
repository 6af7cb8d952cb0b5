package main

import (
	"flag"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentv/action/cache"
	"github.com/agentv/action/config"
	"github.com/agentv/action/internal/idglob"
	"github.com/agentv/action/suite"
)

// TestV4Flags checks how AgentV 4.42.4's eval flags map onto this program's settings, and the
// combinations refused.
func TestV4Flags(t *testing.T) {
	t.Parallel()
	cwd := filepath.FromSlash("/work/repo")
	tests := []struct {
		name    string
		args    []string
		wantErr string
		check   func(t *testing.T, cfg *EvalConfig)
	}{
		{name: "output", args: []string{"-o", "runs/1"}, check: func(t *testing.T, cfg *EvalConfig) {
			if cfg.RunDir != filepath.Join(cwd, "runs/1") || cfg.Out != filepath.Join(cwd, "runs/1", "results.jsonl") || cfg.OutName != "--output" {
				t.Errorf("RunDir %q Out %q OutName %q", cfg.RunDir, cfg.Out, cfg.OutName)
			}
		}},
		{name: "output and out", args: []string{"--output", "d", "--out", "x.jsonl"}, wantErr: "--out and --output"},
		{name: "threshold", args: []string{"--threshold", "0.6"}, check: func(t *testing.T, cfg *EvalConfig) {
			if cfg.Gate.CaseThreshold != 0.6 || !cfg.ThresholdWins {
				t.Errorf("case threshold %v, wins %v", cfg.Gate.CaseThreshold, cfg.ThresholdWins)
			}
		}},
		{name: "threshold and the same case-threshold", args: []string{"--threshold", "0.6", "--case-threshold", "0.6"}},
		{name: "threshold and another case-threshold", args: []string{"--threshold", "0.6", "--case-threshold", "0.7"}, wantErr: "disagree"},
		{name: "grader-target", args: []string{"--grader-target", "judge"}, check: func(t *testing.T, cfg *EvalConfig) {
			if cfg.JudgeTarget != "judge" {
				t.Errorf("judge target %q", cfg.JudgeTarget)
			}
		}},
		{name: "built-in grader", args: []string{"--grader-target", "agentv", "--model", "anthropic:claude-sonnet-4-5"}, check: func(t *testing.T, cfg *EvalConfig) {
			if cfg.JudgeModel != "anthropic:claude-sonnet-4-5" {
				t.Errorf("judge model %q", cfg.JudgeModel)
			}
		}},
		{name: "built-in grader without model", args: []string{"--grader-target", "agentv"}, wantErr: "requires --model"},
		{name: "built-in grader of an unknown provider", args: []string{"--grader-target", "agentv", "--model", "mistral:large"}, wantErr: `Unsupported agentv provider "mistral"`},
		{name: "model without the built-in grader", args: []string{"--grader-target", "judge", "--model", "openai:gpt-5-mini"}, wantErr: "--grader-target agentv"},
		{name: "judge-target agentv is a target name", args: []string{"--judge-target", "agentv"}, check: func(t *testing.T, cfg *EvalConfig) {
			if cfg.JudgeTarget != "agentv" || cfg.JudgeModel != "" {
				t.Errorf("judge target %q, model %q", cfg.JudgeTarget, cfg.JudgeModel)
			}
		}},
		{name: "cache-path", args: []string{"--cache-path", "c"}, check: func(t *testing.T, cfg *EvalConfig) {
			if cfg.Cache != cache.ReadWrite || cfg.CacheDir != "c" {
				t.Errorf("cache %q in %q", cfg.Cache, cfg.CacheDir)
			}
		}},
		{name: "cache-path with cache off", args: []string{"--cache-path", "c", "--cache=off"}, check: func(t *testing.T, cfg *EvalConfig) {
			if cfg.Cache != cache.Off {
				t.Errorf("cache %q, want off", cfg.Cache)
			}
		}},
		{name: "cache-path and another cache-dir", args: []string{"--cache-path", "c", "--cache-dir", "d"}, wantErr: "different folders"},
		{name: "budget", args: []string{"--budget-usd", "$2.50"}, check: func(t *testing.T, cfg *EvalConfig) {
			if cfg.BudgetUSD != 2.5 {
				t.Errorf("budget %v", cfg.BudgetUSD)
			}
		}},
		{name: "budget zero", args: []string{"--budget-usd", "0"}, wantErr: "above 0"},
		{name: "budget NaN", args: []string{"--budget-usd", "NaN"}, wantErr: "above 0"},
		{name: "test ids and tags", args: []string{"--test-id", "a-*", "--test-id", "b", "--tag", "x", "--exclude-tag", "y"}, check: func(t *testing.T, cfg *EvalConfig) {
			if !slices.Equal(cfg.TestIDs, []string{"a-*", "b"}) || !slices.Equal(cfg.Tags, []string{"x"}) || !slices.Equal(cfg.ExcludeTags, []string{"y"}) {
				t.Errorf("test ids %q tags %q exclude %q", cfg.TestIDs, cfg.Tags, cfg.ExcludeTags)
			}
		}},
		{name: "empty test id", args: []string{"--test-id", " "}, wantErr: "glob"},
		{name: "empty tag", args: []string{"--tag", " "}, wantErr: "want a tag"},
		{name: "rerun-failed reads the output", args: []string{"--rerun-failed", "-o", "d"}, check: func(t *testing.T, cfg *EvalConfig) {
			if cfg.Rerun == nil || cfg.Rerun.Path != filepath.Join(cwd, "d") || cfg.Rerun.Flag != "--rerun-failed" {
				t.Errorf("rerun %+v", cfg.Rerun)
			}
		}},
		{name: "rerun-failed reads --out", args: []string{"--rerun-failed", "--out", "/x/r.jsonl"}, check: func(t *testing.T, cfg *EvalConfig) {
			if cfg.Rerun == nil || cfg.Rerun.Path != "/x/r.jsonl" {
				t.Errorf("rerun %+v", cfg.Rerun)
			}
		}},
		{name: "retry-errors", args: []string{"--retry-errors", "old"}, check: func(t *testing.T, cfg *EvalConfig) {
			if cfg.Rerun == nil || cfg.Rerun.Path != filepath.Join(cwd, "old") || cfg.Rerun.Flag != "--retry-errors" {
				t.Errorf("rerun %+v", cfg.Rerun)
			}
		}},
		{name: "both reruns", args: []string{"--retry-errors", "old", "--rerun-failed"}, wantErr: "give one"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := EvalConfig{Settings: config.Defaults()}
			var comment bool
			fs := flag.NewFlagSet("t", flag.ContinueOnError)
			fs.SetOutput(&strings.Builder{})
			evalFlags(fs, &cfg, &comment)
			var v4 v4Flags
			bindV4Flags(fs, &v4, &cfg)
			_, err := parseInterspersed(fs, tt.args)
			if err == nil {
				set := map[string]bool{}
				fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
				err = v4.apply(&cfg, set, cwd)
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.check != nil {
				tt.check(t, &cfg)
			}
		})
	}
}

// TestSelects checks --test-id (any glob), --tag (every tag) and --exclude-tag (no tag).
func TestSelects(t *testing.T) {
	t.Parallel()
	s := &suite.Suite{Tags: []string{"smoke", "fast"}}
	bare := &suite.Suite{}
	tests := []struct {
		c                      *suite.Case
		ids, tags, excludeTags []string
		want                   bool
	}{
		{&suite.Case{ID: "a-1", Suite: s}, nil, nil, nil, true},
		{&suite.Case{ID: "a-1", Suite: s}, []string{"b-*", "a-?"}, nil, nil, true},
		{&suite.Case{ID: "a-1", Suite: s}, []string{"b-*"}, nil, nil, false},
		{&suite.Case{ID: "a-1", Suite: s}, nil, []string{"smoke", "fast"}, nil, true},
		{&suite.Case{ID: "a-1", Suite: s}, nil, []string{"smoke", "slow"}, nil, false},
		{&suite.Case{ID: "a-1", Suite: bare}, nil, []string{"smoke"}, nil, false},
		{&suite.Case{ID: "a-1", Suite: s}, nil, nil, []string{"slow", "fast"}, false},
		{&suite.Case{ID: "a-1", Suite: bare}, nil, nil, []string{"slow"}, true},
		// micromatch's syntax, as 4.42.4 reads --test-id: negation, extglobs, and any one
		// pattern of several matching, a negated one too.
		{&suite.Case{ID: "a-1", Suite: s}, []string{"!a-1"}, nil, nil, false},
		{&suite.Case{ID: "a-2", Suite: s}, []string{"!a-1"}, nil, nil, true},
		{&suite.Case{ID: "a-1", Suite: s}, []string{"a-*", "!a-1"}, nil, nil, true},
		{&suite.Case{ID: "b-1", Suite: s}, []string{"a-*", "!a-1"}, nil, nil, true},
		{&suite.Case{ID: "b-1", Suite: s}, []string{"!(a|b)-*"}, nil, nil, false},
		{&suite.Case{ID: "c-1", Suite: s}, []string{"!(a|b)-*"}, nil, nil, true},
		{&suite.Case{ID: "c-12", Suite: s}, []string{"c-+([0-9])"}, nil, nil, true},
		{&suite.Case{ID: "[a", Suite: s}, []string{"[a"}, nil, nil, true},
	}
	for i, tt := range tests {
		var ids []*idglob.Pattern
		for _, g := range tt.ids {
			ids = append(ids, idglob.Compile(g))
		}
		if got := selects(tt.c, ids, tt.tags, tt.excludeTags); got != tt.want {
			t.Errorf("%d: selects(%s of %q, ids %q, tags %q, exclude %q) = %v", i, tt.c.ID, tt.c.Suite.Tags, tt.ids, tt.tags, tt.excludeTags, got)
		}
	}
}
