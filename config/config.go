// Package config is the settings of an eval run: one struct that the command's flags, the
// Action's inputs and the environment all fill, with each default written once here, so the
// CLI and the Action cannot drift apart. The stages (plan, runner) read the same value.
package config

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/agentv/action/cache"
	"github.com/agentv/action/gate"
	"github.com/agentv/action/suite"
)

// Defaults shared by the command and the Action (action.yml states the same values).
const (
	// DefaultResultsDir holds results.jsonl, junit.xml, summary.md and comment.md.
	DefaultResultsDir = "agentv-results"
	// DefaultCacheDir is the response cache folder, relative to the workspace.
	DefaultCacheDir = ".agentv-cache"
	// DefaultTimeout is each invocation's time; a timed-out one is retried DefaultMaxRetries times.
	DefaultTimeout    = 120 * time.Second
	DefaultMaxRetries = 2
)

// Settings are what a user chooses for an eval run, from flags, Action inputs or the
// environment. The command adds what it works out itself (paths made absolute, the
// environment) before the stages read them.
type Settings struct {
	Paths       []string // eval files, directories or globs
	TargetsPath string   // a targets file or directory; "" discovers one per eval file
	Target      string   // overrides every case's target ("" or "default": none)
	Targets     []string // --target given several times: every case runs on each (4.x's matrix)
	JudgeTarget string   // overrides the judge target
	JudgeModel  string   // --model of --grader-target agentv (AgentV 4.x's built-in grader)
	Workers     int      // cases in parallel per target; 0: the target's workers, else 1
	EvalID      string   // run only cases whose id matches this glob
	Timeout     time.Duration
	MaxRetries  int          // retries of an invocation that timed out
	Trials      suite.Trials // zero values keep the eval files' own
	DryRun      bool
	DryRunDelay time.Duration
	DryRunMin   time.Duration
	DryRunMax   time.Duration
	Gate        gate.Options
	Verbose     bool
	// BaselinePath is a results file of an earlier run to compare with ("" none); the Action
	// also takes "auto", which it resolves before the run.
	BaselinePath string
	Cache        cache.Mode // how the run uses the response cache
	CacheDir     string     // absolute, or relative to the working directory; "": DefaultCacheDir in the workspace
	Shard        *Shard

	// AgentV 4.x's flags.
	RunDir        string   // -o/--output: also write 4.x's run layout here
	ThresholdWins bool     // --threshold: the case threshold wins over the files' own
	TestIDs       []string // --test-id globs: a case matching any runs
	Tags          []string // --tag: run only suites having every one
	ExcludeTags   []string // --exclude-tag: skip suites having any
	BudgetUSD     float64  // --budget-usd; 0: no budget

	// Worked out by the command.
	Cwd       string
	Workspace string   // GITHUB_WORKSPACE: paths in reports are relative to it
	Environ   []string // process environment
	// NoDotenv leaves .env files unread: under GitHub Actions secrets come from the workflow,
	// and a committed .env (placeholder keys) must not stand in for withheld secrets.
	NoDotenv bool
}

// Defaults returns the settings of a run given no flag and no input.
func Defaults() Settings {
	return Settings{Timeout: DefaultTimeout, MaxRetries: DefaultMaxRetries, Gate: gate.Defaults(), Cache: cache.Off}
}

// MaxShards bounds a shard's count: more jobs than a matrix can hold is a typo.
const MaxShards = 10_000

// ParseShard reads "I/N" (1 ≤ I ≤ N), the --shard flag and the shard input.
func ParseShard(s string) (*Shard, error) {
	i, n, ok := strings.Cut(strings.TrimSpace(s), "/")
	idx, err1 := strconv.Atoi(strings.TrimSpace(i))
	cnt, err2 := strconv.Atoi(strings.TrimSpace(n))
	if !ok || err1 != nil || err2 != nil || cnt < 1 || cnt > MaxShards || idx < 1 || idx > cnt {
		return nil, fmt.Errorf("want I/N with 1 <= I <= N <= %d (shard 2 of 8 is 2/8), got %q", MaxShards, s)
	}
	return &Shard{Index: idx, Count: cnt}, nil
}

// ParseCache reads a cache mode, the --cache flag and the cache input: read-write (also
// "true", "on", or empty: the cache turned on without a mode), read-only, or off (also "false").
func ParseCache(s string) (cache.Mode, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "true", "on", "read-write", "readwrite", "rw":
		return cache.ReadWrite, nil
	case "read-only", "readonly", "ro":
		return cache.ReadOnly, nil
	case "off", "false", "none", "no":
		return cache.Off, nil
	}
	return "", fmt.Errorf("want read-write, read-only or off, got %q", s)
}

// Finite parses a float that is a number: NaN and the infinities compare false with every
// bound, so a range check alone would let them through.
func Finite(v string) (float64, bool) {
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	return f, err == nil && !math.IsNaN(f) && !math.IsInf(f, 0)
}

// MaxSeconds bounds durations given in seconds: more would overflow time.Duration.
const MaxSeconds = float64(math.MaxInt64 / int64(time.Second))

// Seconds parses a duration given in (possibly fractional) seconds ("90", "1.5") or as a Go
// duration ("90s", "2m", "1m30s"), as --timeout and the timeout input take it; ok is false
// for one that is negative or not a duration.
func Seconds(v string) (d time.Duration, ok bool) {
	if f, ok := Finite(v); ok {
		return time.Duration(f * float64(time.Second)), f >= 0 && f <= MaxSeconds
	}
	d, err := time.ParseDuration(strings.TrimSpace(v))
	return d, err == nil && d >= 0
}

// Score parses a score in [0, 1], as the gate's thresholds take it.
func Score(v string) (float64, bool) {
	f, ok := Finite(v)
	return f, ok && f >= 0 && f <= 1
}
