package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentv/action/cache"
	"github.com/agentv/action/config"
	"github.com/agentv/action/gate"
	"github.com/agentv/action/internal/logtext"
	"github.com/agentv/action/suite"
)

// parseCommand parses a subcommand's flags and positional arguments. -h and --help print the
// synopsis and the flags to stdout; any other flag error is one line on stderr, naming the
// closest flag for an unknown one (the flag package would dump every flag). ok is false when
// the command must return code without running.
func parseCommand(fs *flag.FlagSet, synopsis string, args []string, stdout, stderr io.Writer) (pos []string, code int, ok bool) {
	fs.SetOutput(io.Discard)
	pos, err := parseInterspersed(fs, args)
	if err == nil {
		return pos, 0, true
	}
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprintf(stdout, "Usage: %s\n\nFlags:\n", synopsis)
		fs.SetOutput(stdout)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
		return nil, 0, false
	}
	// Flags are written with two dashes everywhere else (help, README): errors say them so.
	msg := strings.NewReplacer("for flag -", "for flag --", "argument: -", "argument: --").Replace(err.Error())
	if name, found := strings.CutPrefix(msg, "flag provided but not defined: "); found {
		name = strings.TrimLeft(name, "-")
		msg = "unknown flag --" + name
		if near := closestFlag(fs, name); near != "" {
			msg += " (did you mean --" + near + "?)"
		}
	}
	fmt.Fprintf(stderr, "%s: %s; '%s -h' lists the flags\n", fs.Name(), logtext.Line(msg), fs.Name())
	return nil, gate.ExitInvalid, false
}

// closestFlag returns the flag name nearest to name, or "" when none is near enough to be
// what was meant.
func closestFlag(fs *flag.FlagSet, name string) string {
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	return closestWord(name, names)
}

// closestWord returns the word nearest to w in edit distance (the first of equals), or ""
// when none is near enough to be what was meant.
func closestWord(w string, words []string) string {
	best, bestD := "", -1
	for _, x := range words {
		d := suite.EditDistance(w, x)
		if len(w) >= 3 && (strings.HasPrefix(x, w) || strings.HasPrefix(w, x)) {
			d = min(d, 1) // a prefix ("--max-fail") or a word too many is a near miss
		}
		if bestD < 0 || d < bestD {
			best, bestD = x, d
		}
	}
	if bestD < 0 || bestD > max(2, len([]rune(w))/3) {
		return ""
	}
	return best
}

// parseInterspersed parses flags that may appear before, between or after positional
// arguments (`agentv eval evals/*.yaml --dry-run`). "--" ends flag parsing.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		// flag stops at the first non-flag; a bare "--" was consumed by Parse.
		if len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// secondsValue is a flag.Value for durations given in (possibly fractional) seconds or, as
// the Action's timeout input takes them, as a Go duration ("90s", "2m", "1m30s").
type secondsValue struct{ d *time.Duration }

func (s secondsValue) String() string {
	if s.d == nil {
		return ""
	}
	return strconv.FormatFloat(s.d.Seconds(), 'f', -1, 64)
}

func (s secondsValue) Set(v string) error {
	d, ok := config.Seconds(v)
	if !ok {
		return fmt.Errorf("want a number of seconds >= 0 or a duration such as 90s or 2m, got %q", v)
	}
	*s.d = d
	return nil
}

// millisValue is a flag.Value for durations given in milliseconds.
type millisValue struct{ d *time.Duration }

func (m millisValue) String() string {
	if m.d == nil || *m.d == 0 {
		return ""
	}
	return strconv.FormatInt(m.d.Milliseconds(), 10)
}

func (m millisValue) Set(v string) error {
	f, ok := config.Finite(v)
	if !ok || f < 0 || f > config.MaxSeconds*1000 {
		return fmt.Errorf("want milliseconds >= 0, got %q", v)
	}
	*m.d = time.Duration(f * float64(time.Millisecond))
	return nil
}

// scoreValue is a flag.Value for a score in [0, 1]; set records that it was given.
type scoreValue struct {
	f   *float64
	set *bool
}

// String is the default shown in the help: none for an optional score that was not given.
func (s scoreValue) String() string {
	if s.f == nil || (s.set != nil && !*s.set) {
		return ""
	}
	return strconv.FormatFloat(*s.f, 'f', -1, 64)
}

func (s scoreValue) Set(v string) error {
	f, err := parseScore(v)
	if err != nil {
		return err
	}
	*s.f = f
	if s.set != nil {
		*s.set = true
	}
	return nil
}

func parseScore(v string) (float64, error) {
	f, ok := config.Score(v)
	if !ok {
		return 0, fmt.Errorf("want a score between 0 and 1, got %q", v)
	}
	return f, nil
}

// shardValue is the --shard I/N flag.
type shardValue struct{ s **config.Shard }

func (v shardValue) String() string {
	if v.s == nil || *v.s == nil {
		return ""
	}
	return (*v.s).String()
}

func (v shardValue) Set(s string) error {
	sh, err := config.ParseShard(s)
	if err == nil {
		*v.s = sh
	}
	return err
}

// cacheValue is the --cache flag: bare, it turns the cache on (read-write); with a value,
// --cache=read-only or --cache=off.
type cacheValue struct{ m *cache.Mode }

func (c cacheValue) String() string {
	if c.m == nil || *c.m == "" || *c.m == cache.Off {
		return ""
	}
	return string(*c.m)
}

func (c cacheValue) Set(v string) error {
	m, err := config.ParseCache(v)
	if err == nil {
		*c.m = m
	}
	return err
}

// IsBoolFlag lets --cache stand alone.
func (c cacheValue) IsBoolFlag() bool { return true }

// countValue is a flag.Value for a count that cannot be negative.
type countValue struct{ n *int }

// String is the default shown in the help, none for 0 (as for an int flag).
func (c countValue) String() string {
	if c.n == nil || *c.n == 0 {
		return ""
	}
	return strconv.Itoa(*c.n)
}

func (c countValue) Set(v string) error {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 0 {
		return fmt.Errorf("want a whole number >= 0, got %q", v)
	}
	*c.n = n
	return nil
}

// trialsValue is a flag.Value for --trials: how many times each case runs, 0 for the files'
// own setting.
type trialsValue struct{ n *int }

func (t trialsValue) String() string { return countValue(t).String() }

func (t trialsValue) Set(v string) error {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 0 || n > suite.MaxTrials {
		return fmt.Errorf("want a whole number of trials from 1 to %d (0 keeps the eval files' own), got %q", suite.MaxTrials, v)
	}
	*t.n = n
	return nil
}

// strategyValue is a flag.Value for --trials-strategy.
type strategyValue struct{ s *string }

func (s strategyValue) String() string {
	if s.s == nil {
		return ""
	}
	return *s.s
}

func (s strategyValue) Set(v string) error {
	v = strings.TrimSpace(v)
	if v != "" && !slices.Contains(suite.TrialStrategies, v) {
		return fmt.Errorf("want one of %s, got %q", strings.Join(suite.TrialStrategies, ", "), v)
	}
	*s.s = v
	return nil
}

// targetValue is --target: one name overrides every case's target; given again, the names
// are a matrix (AgentV 4.42.4's repeatable --target) that one holds only while it is alone.
type targetValue struct {
	one *string
	all *[]string
}

func (t targetValue) String() string {
	if t.one == nil {
		return ""
	}
	return *t.one
}

func (t targetValue) Set(v string) error {
	v = strings.TrimSpace(v)
	if v == "" {
		return errors.New("want a target name")
	}
	if !slices.Contains(*t.all, v) {
		*t.all = append(*t.all, v)
	}
	*t.one = ""
	if len(*t.all) == 1 {
		*t.one = v
	}
	return nil
}
