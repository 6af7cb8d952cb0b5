// Package config is the settings of an eval run: one struct that the command's flags, the
// Action's inputs and the environment fill, each default and each shared setting described once.
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
	DefaultResultsDir = "agentv-results" // results.jsonl, junit.xml, summary.md and comment.md
	DefaultCacheDir   = ".agentv-cache"  // the response cache, relative to the workspace
	// DefaultTimeout is each invocation's time; a timed-out one is retried DefaultMaxRetries times.
	DefaultTimeout    = 120 * time.Second
	DefaultMaxRetries = 2
)

// Settings are what a user chooses for an eval run, plus what the command works out itself
// (paths made absolute, the environment) before the stages read them.
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
	// History is how many of the base branch's latest successful push runs (Action only)
	// the summary and comment show trends over; 0: none.
	History  int
	Cache    cache.Mode // how the run uses the response cache
	CacheDir string     // absolute, or relative to the working directory; "": DefaultCacheDir in the workspace
	Shard    *Shard

	// AgentV 4.x's flags.
	RunDir        string   // -o/--output: also write 4.x's run layout here
	ThresholdWins bool     // --threshold: the case threshold wins over the files' own
	TestIDs       []string // --test-id globs: a case matching any runs
	Tags          []string // --tag: run only suites having every one
	ExcludeTags   []string // --exclude-tag: skip suites having any
	BudgetUSD     float64  // --budget-usd; 0: no budget

	// GraderIsolation is how code graders start: "fork" (Python from a fork server,
	// JavaScript/TypeScript SDK graders from workers; the default), "process" (one process per
	// call); "": AGENTV_GRADER_ISOLATION, else fork.
	GraderIsolation string

	// Worked out by the command.
	Cwd       string
	Workspace string   // GITHUB_WORKSPACE: paths in reports are relative to it
	Environ   []string // process environment
	// NoDotenv leaves .env files unread: under GitHub Actions secrets come from the workflow,
	// and a committed .env (placeholder keys) must not stand in for withheld secrets.
	NoDotenv bool

	// OpenTelemetry traces (package otlp), written from the results file when the run ends.
	OtelFile           string // also write the run as OTLP JSON here ("": not written)
	OtelCaptureContent bool   // the traces carry message content: inputs, answers, reasoning
	ExportOtel         bool   // also send the traces to OTEL_EXPORTER_OTLP_ENDPOINT (OTLP/HTTP)
}

// GraderIsolations are the values of --grader-isolation.
var GraderIsolations = []string{"fork", "process"}

// Defaults returns the settings of a run given no flag and no input.
func Defaults() Settings {
	return Settings{Timeout: DefaultTimeout, MaxRetries: DefaultMaxRetries, Gate: gate.Defaults(), Cache: cache.Off}
}

// MaxHistory bounds the history input: each run is one artifact download.
const MaxHistory = 30

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

// Seconds parses a duration in (possibly fractional) seconds ("90", "1.5") or a Go duration
// ("90s", "2m"); ok is false for one that is negative or not a duration.
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

// Setting is one setting: the `agentv eval` flag and the Action input that fill it ("" where
// only one has it). Ptr's type picks how both parse the value.
type Setting struct {
	Flag, Input string
	Ptr         any    // into Settings
	Help        string // the flag's
	Min, Max    int    // an input's whole number (flags take 0 or more)
	Want        string // Min and Max as the input's error says them
	Choices     []string
}

// Table describes the settings the flags and the inputs share, the inputs in the order they
// are checked. The command registers --target, --trials and the baseline flags itself: the
// first two differ from their inputs, the last are agentv report's too.
func (s *Settings) Table() []Setting {
	return []Setting{
		{Flag: "targets", Input: "targets", Ptr: &s.TargetsPath,
			Help: "targets file or directory (default: targets.yaml found from each eval file's directory up to the repository root)"},
		{Input: "target", Ptr: &s.Target},
		{Flag: "judge-target", Input: "judge-target", Ptr: &s.JudgeTarget,
			Help: "target for every LLM judge, overriding the targets' judge_target (an evaluator's own target still wins)"},
		{Flag: "eval-id", Input: "eval-id", Ptr: &s.EvalID, Help: "run only cases whose id matches this glob"},
		{Input: "baseline", Ptr: &s.BaselinePath},
		{Input: "history", Ptr: &s.History, Max: MaxHistory, Want: fmt.Sprintf("between 0 (no history) and %d runs", MaxHistory)},
		{Flag: "cache-dir", Input: "cache-dir", Ptr: &s.CacheDir,
			Help: "response cache folder (default: .agentv-cache in the workspace, else the current folder)"},
		{Flag: "workers", Input: "max-concurrency", Ptr: &s.Workers, Max: 1 << 16,
			Want: "0 (use each target's workers) or more",
			Help: "cases run in parallel per target; 0 means the target's workers, else 1"},
		{Flag: "max-concurrency", Ptr: &s.Workers, Help: "alias of --workers"},
		{Flag: "timeout", Input: "timeout", Ptr: &s.Timeout,
			Help: "time per target invocation, judge call and script: seconds or a duration such as 90s or 2m"},
		{Flag: "agent-timeout", Ptr: &s.Timeout, Help: "alias of --timeout"},
		{Flag: "max-retries", Input: "max-retries", Ptr: &s.MaxRetries, Max: 100, Want: "between 0 and 100",
			Help: "retries of a target, judge or script invocation that timed out"},
		{Input: "trials", Ptr: &s.Trials.Count, Min: 1, Max: suite.MaxTrials,
			Want: fmt.Sprintf("between 1 and %d", suite.MaxTrials)},
		{Flag: "grader-isolation", Input: "grader-isolation", Ptr: &s.GraderIsolation, Choices: GraderIsolations,
			Help: "how code graders start: fork (Python: a fresh fork of a running interpreter per call; JavaScript/TypeScript SDK graders: a worker that loads the script once; the default) or process (a new process per call)"},
		{Flag: "trials-strategy", Input: "trials-strategy", Ptr: &s.Trials.Strategy, Choices: suite.TrialStrategies,
			Help: "how trials make a case's score: pass_at_k (default), mean or confidence_interval, overriding the files'"},
		{Flag: "min-score", Input: "min-score", Ptr: &s.Gate.MinScore,
			Help: "fail when the mean score of all cases (errored ones count 0) is below this"},
		{Flag: "case-threshold", Input: "case-threshold", Ptr: &s.Gate.CaseThreshold,
			Help: "a case passes at this score or above"},
		{Flag: "max-failures", Input: "max-failures", Ptr: &s.Gate.MaxFailures, Max: math.MaxInt32, Want: "0 or more",
			Help: "failed cases allowed before the run fails"},
		{Flag: "max-errors", Input: "max-errors", Ptr: &s.Gate.MaxErrors, Max: math.MaxInt32, Want: "0 or more",
			Help: "errored cases allowed before the run errors"},
		{Input: "max-regressions", Ptr: &s.Gate.MaxRegressions, Max: math.MaxInt32, Want: "0 or more"},
		{Input: "regression-margin", Ptr: &s.Gate.RegressionMargin},
		{Input: "max-mean-drop", Ptr: &s.Gate.MaxMeanDrop},
		{Flag: "dry-run", Input: "dry-run", Ptr: &s.DryRun,
			Help: "replace every target and judge with a mock: no network, no keys"},
		{Flag: "verbose", Input: "verbose", Ptr: &s.Verbose, Help: "log more"},
		{Flag: "shard", Input: "shard", Ptr: &s.Shard,
			Help: "run only shard I of N of the suite (2/8), split by a stable hash of dataset and id; merge the shards' results with agentv report"},
		{Flag: "cache", Input: "cache", Ptr: &s.Cache,
			Help: "answer targets and LLM judges from the response cache and store new answers; --cache=read-only stores nothing, --cache=off turns it off"},
		{Flag: "otel-file", Input: "otel-file", Ptr: &s.OtelFile,
			Help: "also write the run as OpenTelemetry traces in OTLP JSON to this file: one trace a case, with its target calls and graders (docs/otel.md)"},
		{Flag: "otel-capture-content", Input: "otel-capture-content", Ptr: &s.OtelCaptureContent,
			Help: "put message content in the --otel-file and --export-otel traces: inputs, answers, conversation turns and grader reasoning (default: numbers, names, verdicts and errors only)"},
		{Flag: "export-otel", Input: "export-otel", Ptr: &s.ExportOtel,
			Help: "also send the traces to the OTLP/HTTP endpoint in OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT), with the headers in OTEL_EXPORTER_OTLP_HEADERS"},
	}
}
