package action

import (
	"cmp"
	"fmt"
	"math"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentv/action/cache"
	"github.com/agentv/action/config"
	"github.com/agentv/action/report"
)

// CommentMode says when the sticky PR comment is posted.
type CommentMode string

// Comment modes. None of them comments on a non-PR event; all but off keep an existing
// comment current (so a fixed PR's comment turns green).
const (
	CommentAuto      CommentMode = "auto"       // posts when the outcome is not pass or there are warnings
	CommentAlways    CommentMode = "always"     // posts on every run
	CommentOnFailure CommentMode = "on-failure" // posts only when the outcome is not pass
	CommentOff       CommentMode = "off"
)

// Mode says whether the Action runs evals or only reports on a results file.
type Mode string

// Modes.
const (
	ModeRun    Mode = "run"
	ModeReport Mode = "report" // render reports and outputs from `results`, run nothing
)

// Inputs are the Action's inputs (action.yml), validated: the run's settings, which the
// command's flags fill too, and what only the Action has.
type Inputs struct {
	config.Settings       // Paths from the evals input; BaselinePath may be BaselineAuto
	FailOnSkip       bool // a skipped run (fork without secrets) exits 1
	Comment          CommentMode
	CommentKey       string             // separates comments of matrix legs or several steps in one job
	Details          report.DetailLevel // how much model text the summary, comment and annotations show
	GitHubToken      string             // secret: register it on the redactor
	ResultsDir       string             // workspace-relative folder for results.jsonl, junit.xml, summary.md, comment.md
	WorkDir          string             // working-directory input; "" is the workspace
	Mode             Mode
	Results          string // results file to report on (mode report); default <ResultsDir>/results.jsonl
	PRNumber         int    // pr-number: the PR to comment on when the event names none (workflow_run)
	BaselineArtifact string // the artifact baseline: auto looks for
}

// ResultsFiles returns the results files (or globs) mode report reads, from the results input.
func (in Inputs) ResultsFiles() []string { return splitList(in.Results) }

// BaselineAuto is the baseline input that finds the baseline itself (BaselineQuery).
const BaselineAuto = "auto"

// DefaultBaselineArtifact is the artifact name baseline: auto looks for.
const DefaultBaselineArtifact = "agentv-results"

// InputError is an invalid input value; Name is the input as written in `with:`.
type InputError struct {
	Name  string
	Value string
	Err   error
}

func (e *InputError) Error() string { return fmt.Sprintf("input %s: %v", e.Name, e.Err) }
func (e *InputError) Unwrap() error { return e.Err }

// ParseInputs reads and validates every input. An invalid value leaves the default and is
// reported as an *InputError; all are returned.
func ParseInputs(getenv func(string) string) (Inputs, []error) {
	p := inputParser{getenv: getenv}
	in := Inputs{
		Settings:         config.Defaults(),
		CommentKey:       p.str("comment-key"),
		GitHubToken:      p.str("github-token"),
		ResultsDir:       cmp.Or(p.str("results-dir"), config.DefaultResultsDir),
		WorkDir:          p.str("working-directory"),
		Results:          p.str("results"),
		BaselineArtifact: cmp.Or(p.str("baseline-artifact"), DefaultBaselineArtifact),
		Comment:          CommentAuto,
		Mode:             ModeRun,
	}
	in.Paths = splitList(p.str("evals"))
	// The Action's own inputs, each checked just before the setting named: errors keep their order.
	before := map[string]func(){
		"max-regressions": func() {
			p.set(config.Setting{Input: "pr-number", Ptr: &in.PRNumber, Min: 1, Max: math.MaxInt32,
				Want: "a pull request number (1 or more)"})
		},
		"dry-run": func() { p.set(config.Setting{Input: "fail-on-skip", Ptr: &in.FailOnSkip}) },
		"shard": func() {
			enum(&p, "comment", &in.Comment, func(s string) (CommentMode, error) {
				return oneOf(s, CommentAuto, CommentAlways, CommentOnFailure, CommentOff)
			})
			enum(&p, "details", &in.Details, report.ParseDetailLevel)
			enum(&p, "mode", &in.Mode, func(s string) (Mode, error) { return oneOf(s, ModeRun, ModeReport) })
		},
	}
	for _, s := range in.Table() {
		if f := before[s.Input]; f != nil {
			f()
		}
		if s.Input != "" {
			p.set(s)
		}
	}
	if strings.EqualFold(in.BaselinePath, BaselineAuto) {
		in.BaselinePath = BaselineAuto
	}
	in.CacheDir = cmp.Or(in.CacheDir, config.DefaultCacheDir)
	if in.Results == "" && in.Mode == ModeReport {
		in.Results = path.Join(in.ResultsDir, "results.jsonl")
	}
	if in.Mode == ModeRun && len(in.Paths) == 0 {
		p.fail("evals", "", fmt.Errorf("is required when mode is run: list eval files or globs, one per line"))
	}
	return in, p.errs
}

type inputParser struct {
	getenv func(string) string
	errs   []error
}

// str returns an input as the runner passes it: INPUT_ plus the name upper-cased with hyphens
// kept (INPUT_MAX-CONCURRENCY), also accepting underscores (INPUT_MAX_CONCURRENCY, as a shell
// or `env:` can set it), trimmed.
func (p *inputParser) str(name string) string {
	key := "INPUT_" + strings.ToUpper(strings.ReplaceAll(name, " ", "_"))
	if v := strings.TrimSpace(p.getenv(key)); v != "" {
		return v
	}
	return strings.TrimSpace(p.getenv(strings.ReplaceAll(key, "-", "_")))
}

// oneOf parses s, in any case, as one of values.
func oneOf[T ~string](s string, values ...T) (T, error) {
	if i := slices.Index(values, T(strings.ToLower(s))); i >= 0 {
		return values[i], nil
	}
	want := make([]string, len(values))
	for i, v := range values {
		want[i] = string(v)
	}
	return "", fmt.Errorf("unknown value %q (want %s or %s)", s, strings.Join(want[:len(want)-1], ", "), want[len(want)-1])
}

func (p *inputParser) fail(name, value string, err error) {
	p.errs = append(p.errs, &InputError{Name: name, Value: value, Err: err})
}

// set parses the input s describes into s.Ptr; an empty input leaves the default.
func (p *inputParser) set(s config.Setting) {
	v := p.str(s.Input)
	if v == "" {
		return
	}
	var err error
	switch ptr := s.Ptr.(type) {
	case *string:
		if s.Choices != nil && !slices.Contains(s.Choices, v) {
			err = fmt.Errorf("unknown value %q (want %s)", v, strings.Join(s.Choices, ", "))
		} else {
			*ptr = v
		}
	case *int, **int:
		n, e := strconv.Atoi(v)
		if e != nil || n < s.Min || n > s.Max {
			err = fmt.Errorf("invalid value %q: want an integer, %s", v, s.Want)
		} else if dst, ok := ptr.(*int); ok {
			*dst = n
		} else {
			*ptr.(**int) = &n
		}
	case *float64, **float64:
		f, ok := config.Score(v)
		if !ok {
			err = fmt.Errorf("invalid value %q: want a number between 0 and 1", v)
		} else if dst, ok := ptr.(*float64); ok {
			*dst = f
		} else {
			*ptr.(**float64) = &f
		}
	case *time.Duration:
		d, ok := config.Seconds(v)
		if !ok || d <= 0 {
			err = fmt.Errorf("invalid value %q: want a positive number of seconds or a duration such as 90s or 2m", v)
		} else {
			*ptr = d
		}
	case *bool: // the toolkit's getBooleanInput spellings in any case, and yes/no, on/off, 1/0
		switch strings.ToLower(v) {
		case "true", "yes", "on", "1":
			*ptr = true
		case "false", "no", "off", "0":
			*ptr = false
		default:
			err = fmt.Errorf("invalid value %q: want true or false", v)
		}
	case **config.Shard:
		*ptr, err = config.ParseShard(v)
	case *cache.Mode:
		var m cache.Mode
		if m, err = config.ParseCache(v); err == nil {
			*ptr = m
		}
	}
	if err != nil {
		p.fail(s.Input, v, err)
	}
}

// enum parses the input name into dst; an invalid value leaves the default.
func enum[T any](p *inputParser, name string, dst *T, parse func(string) (T, error)) {
	v := p.str(name)
	if v == "" {
		return
	}
	x, err := parse(v)
	if err != nil {
		p.fail(name, v, err)
		return
	}
	*dst = x
}

// splitList splits a newline- or comma-separated list, trimming items and dropping blanks.
func splitList(s string) []string {
	var out []string
	for _, item := range strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' || r == ',' }) {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

// PR returns the pull request to comment on: the pr-number input (the workflow_run half of the
// fork recipe), else the event's, else 0 (no comment).
func (in Inputs) PR(ev Event) int {
	if in.PRNumber > 0 {
		return in.PRNumber
	}
	return ev.PRNumber
}
