package main

import (
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentv/action/cache"
	"github.com/agentv/action/internal/idglob"
	"github.com/agentv/action/results"
	"github.com/agentv/action/suite"
	"github.com/agentv/action/targets"
)

// v4Flags holds AgentV 4.42.4's `agentv eval` flags that overlap this program's own (where
// results go, the threshold, the cache folder, reruns): apply checks them against those. The
// others fill the settings directly; docs/agentv-4.md lists where meanings differ.
type v4Flags struct {
	output       string  // -o / --output: the run directory
	threshold    float64 // --threshold
	thresholdSet bool
	cachePath    string // --cache-path
	rerunFailed  bool   // --rerun-failed
	retryErrors  string // --retry-errors PATH
	model        string // --model PROVIDER:MODEL, for --grader-target agentv
}

// bindV4Flags binds 4.42.4's eval flags; --grader-target is --judge-target's alias.
func bindV4Flags(fs *flag.FlagSet, v *v4Flags, cfg *EvalConfig) {
	fs.Var(listFlag(&cfg.TestIDs, true, `want a test id or a glob such as 'greet-*', got ""`), "test-id", "run only cases whose id matches this glob, micromatch's syntax as in AgentV 4.x: '!a-*' negates, '@(a|b)-*' chooses (repeatable: any of them)")
	fs.StringVar(&v.output, "output", "", "run directory (AgentV 4.x): results.jsonl and the reports, and 4.x's run layout (index.jsonl, benchmark.json, timing.json, a folder per test)")
	fs.StringVar(&v.output, "o", "", "alias of --output")
	fs.Var(scoreFlag(&v.threshold, &v.thresholdSet), "threshold", "a case passes at this score or above, over the eval files' execution.threshold too (AgentV 4.x)")
	fs.StringVar(&cfg.JudgeTarget, "grader-target", "", "alias of --judge-target (AgentV 4.x); 'agentv' with --model is the built-in grader")
	fs.StringVar(&v.model, "model", "", "with --grader-target agentv: the grader's model, openai:, anthropic:, azure: or google: then the model id, such as openai:gpt-5-mini; the key is read from OPENAI_API_KEY, ANTHROPIC_API_KEY, AZURE_OPENAI_API_KEY or GEMINI_API_KEY (AgentV 4.x)")
	fs.StringVar(&v.cachePath, "cache-path", "", "turn the response cache on, in this folder (AgentV 4.x; --cache --cache-dir DIR)")
	fs.Var(budgetFlag(&cfg.BudgetUSD), "budget-usd", "stop starting cases once the run's target cost reaches this many US dollars; the rest are errored 'not run' (AgentV 4.x)")
	fs.Var(listFlag(&cfg.Tags, true, "want a tag"), "tag", "run only eval files whose tags include this one (repeatable: all of them; AgentV 4.x)")
	fs.Var(listFlag(&cfg.ExcludeTags, true, "want a tag"), "exclude-tag", "skip eval files whose tags include this one (repeatable: any of them; AgentV 4.x)")
	fs.BoolVar(&v.rerunFailed, "rerun-failed", false, "run again only the cases that did not pass in the results at --output (or --out), keeping the passed ones (AgentV 4.x)")
	fs.StringVar(&v.retryErrors, "retry-errors", "", "results file or run directory of an earlier run: run again only its errored (and missing) cases, keeping the others (AgentV 4.x)")
}

// apply folds the 4.x flags into cfg (set names the flags given), refusing contradictions.
func (v *v4Flags) apply(cfg *EvalConfig, set map[string]bool, cwd string) error {
	if v.output != "" {
		if set["out"] {
			return errors.New("--out and --output (-o) both name where results go: give one")
		}
		dir := absIn(cwd, v.output)
		cfg.RunDir = dir
		cfg.Out = filepath.Join(dir, "results.jsonl")
		cfg.OutName = "--output"
	}
	if v.thresholdSet {
		if set["case-threshold"] && cfg.Gate.CaseThreshold != v.threshold {
			return errors.New("--threshold and --case-threshold disagree: give one")
		}
		cfg.Gate.CaseThreshold = v.threshold
		cfg.ThresholdWins = true
	}
	if v.cachePath != "" {
		if set["cache-dir"] && cfg.CacheDir != v.cachePath {
			return errors.New("--cache-path and --cache-dir name different folders: give one")
		}
		cfg.CacheDir = v.cachePath
		if !set["cache"] { // --cache=off or read-only still wins, as 4.42.4's --no-cache does
			cfg.Cache = cache.ReadWrite
		}
	}
	if err := v.applyModel(cfg, set); err != nil {
		return err
	}
	switch {
	case v.rerunFailed && v.retryErrors != "":
		return errors.New("--rerun-failed and --retry-errors both choose the cases to run again: give one")
	case v.rerunFailed:
		cfg.Rerun = &rerunFrom{Path: cfg.Out, Keep: keepPassed, Flag: "--rerun-failed", PerTarget: true}
		if cfg.RunDir != "" {
			cfg.Rerun.Path = cfg.RunDir // its results.jsonl, else 4.x's index.jsonl
		}
	case v.retryErrors != "":
		cfg.Rerun = &rerunFrom{Path: absIn(cwd, v.retryErrors), Keep: keepScored, Flag: "--retry-errors"}
	}
	return nil
}

// applyModel checks --grader-target agentv and --model together: 4.42.4 refuses the first
// without the second, and the model's provider prefix is checked before anything runs.
func (v *v4Flags) applyModel(cfg *EvalConfig, set map[string]bool) error {
	builtin := set["grader-target"] && strings.TrimSpace(cfg.JudgeTarget) == targets.BuiltinGraderName
	switch {
	case builtin && v.model == "":
		return errors.New("--grader-target agentv requires --model (e.g., --model openai:gpt-5-mini)")
	case !builtin && v.model != "":
		// 4.42.4 ignores --model then (orchestrator.ts:214): refused, so no run is graded by
		// another model than the one asked for.
		return fmt.Errorf("--model %s sets the model of the built-in grader: give it with --grader-target agentv", v.model)
	case builtin:
		if _, _, err := targets.ParseGraderModel(v.model); err != nil {
			return err
		}
		cfg.JudgeModel = v.model
	}
	return nil
}

// selects reports whether the 4.x selection flags (test ids, tags) keep case c. Like
// 4.42.4, a case runs when any --test-id pattern matches it, a negated one (`!a-1`) too, so
// `--test-id 'a-*' --test-id '!a-1'` still runs a-1.
func selects(c *suite.Case, testIDs []*idglob.Pattern, tags, excludeTags []string) bool {
	if len(testIDs) > 0 && !slices.ContainsFunc(testIDs, func(g *idglob.Pattern) bool { return g.Match(c.ID) }) {
		return false
	}
	var have []string
	if c.Suite != nil {
		have = c.Suite.Tags
	}
	return !slices.ContainsFunc(tags, func(t string) bool { return !slices.Contains(have, t) }) &&
		!slices.ContainsFunc(excludeTags, func(t string) bool { return slices.Contains(have, t) })
}

// selector is the planner's choice by --test-id, --tag, --exclude-tag and a rerun; nil: none.
func (cfg *EvalConfig) selector() func(c *suite.Case) bool {
	if len(cfg.TestIDs) == 0 && len(cfg.Tags) == 0 && len(cfg.ExcludeTags) == 0 && cfg.Rerun == nil {
		return nil
	}
	ids := cfg.testIDPatterns()
	return func(c *suite.Case) bool {
		return selects(c, ids, cfg.Tags, cfg.ExcludeTags) && cfg.Rerun.runs(c)
	}
}

// testIDPatterns compiles the --test-id globs.
func (cfg *EvalConfig) testIDPatterns() []*idglob.Pattern {
	ids := make([]*idglob.Pattern, len(cfg.TestIDs))
	for i, g := range cfg.TestIDs {
		ids[i] = idglob.Compile(g)
	}
	return ids
}

// byID returns the part of selector that chooses cases by id (--test-id), nil without it.
func (cfg *EvalConfig) byID() func(c *suite.Case) bool {
	if len(cfg.TestIDs) == 0 {
		return nil
	}
	ids := cfg.testIDPatterns()
	return func(c *suite.Case) bool { return selects(c, ids, nil, nil) }
}

// filtered reports whether flags choose cases by id or tag: choosing none is a problem, and a
// JSONL file's lines are not its cases.
func (cfg *EvalConfig) filtered() bool {
	return cfg.EvalID != "" || len(cfg.TestIDs) > 0 || len(cfg.Tags) > 0 || len(cfg.ExcludeTags) > 0
}

// filterFlags names the flags that chose no case.
func (cfg *EvalConfig) filterFlags() string {
	var parts []string
	if cfg.EvalID != "" {
		parts = append(parts, fmt.Sprintf("--eval-id %q", cfg.EvalID))
	}
	for _, g := range cfg.TestIDs {
		parts = append(parts, fmt.Sprintf("--test-id %q", g))
	}
	for _, t := range cfg.Tags {
		parts = append(parts, fmt.Sprintf("--tag %q", t))
	}
	for _, t := range cfg.ExcludeTags {
		parts = append(parts, fmt.Sprintf("--exclude-tag %q", t))
	}
	return strings.Join(parts, " ")
}

// runDirOptions: after --rerun-failed, -o's index.jsonl is updated with the records run again,
// as 4.42.4 updates it.
func (cfg *EvalConfig) runDirOptions() results.RunDirOptions {
	rr := cfg.Rerun
	if rr == nil || rr.Flag != "--rerun-failed" {
		return results.RunDirOptions{}
	}
	return results.RunDirOptions{Fresh: func(r *results.Record) bool { return !rr.carried(r) }}
}
