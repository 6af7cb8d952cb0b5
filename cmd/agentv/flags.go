package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
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
		var names []string
		fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
		if near := closestWord(name, names); near != "" {
			msg += " (did you mean --" + near + "?)"
		}
	}
	fmt.Fprintf(stderr, "%s: %s; '%s -h' lists the flags\n", fs.Name(), logtext.Line(msg), fs.Name())
	return nil, gate.ExitInvalid, false
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

// settingFlags binds the flags of config's table to st.
func settingFlags(fs *flag.FlagSet, st *config.Settings) {
	for _, s := range st.Table() {
		if s.Flag == "" {
			continue
		}
		switch p := s.Ptr.(type) {
		case *string:
			if s.Choices != nil {
				fs.Var(choiceFlag(p, s.Choices), s.Flag, s.Help)
			} else {
				fs.StringVar(p, s.Flag, *p, s.Help)
			}
		case *bool:
			fs.BoolVar(p, s.Flag, *p, s.Help)
		case *int:
			fs.Var(countFlag(p), s.Flag, s.Help)
		case **float64:
			fs.Var(optScoreFlag(p), s.Flag, s.Help)
		case *float64:
			fs.Var(scoreFlag(p, nil), s.Flag, s.Help)
		case *time.Duration:
			fs.Var(secondsFlag(p), s.Flag, s.Help)
		case **config.Shard:
			fs.Var(shardFlag(p), s.Flag, s.Help)
		case *cache.Mode:
			fs.Var(cacheFlag(p), s.Flag, s.Help)
		default:
			panic("settingFlags: no flag for " + s.Flag)
		}
	}
}

// value is a flag.Value: set parses and stores, show prints the value as the help's default
// (nil: none), boolean lets the flag stand alone.
type value struct {
	set     func(string) error
	show    func() string
	boolean bool
}

func (v value) String() string {
	if v.show == nil {
		return ""
	}
	return v.show()
}

func (v value) Set(s string) error { return v.set(s) }

func (v value) IsBoolFlag() bool { return v.boolean }

// parsedFlag stores what parse returns; show prints a value as the help's default.
func parsedFlag[T any](dst *T, parse func(string) (T, error), show func(T) string) value {
	return value{show: func() string { return show(*dst) }, set: func(v string) error {
		x, err := parse(v)
		if err == nil {
			*dst = x
		}
		return err
	}}
}

// optFlag is parsedFlag for a value that is nil until given.
func optFlag[T any](dst **T, parse func(string) (T, error), show func(T) string) value {
	return parsedFlag(dst, func(v string) (*T, error) {
		x, err := parse(v)
		return &x, err
	}, func(p *T) string {
		if p == nil {
			return ""
		}
		return show(*p)
	})
}

// checked turns a parser that says whether v is valid into one whose error is want, got v.
func checked[T any](parse func(string) (T, bool), want string) func(string) (T, error) {
	return func(v string) (T, error) {
		x, ok := parse(v)
		if !ok {
			return x, fmt.Errorf("%s, got %q", want, v)
		}
		return x, nil
	}
}

// nonZero prints n, none for 0 (as the help shows an int flag).
func nonZero[T int | int64 | float64](n T) string {
	if n == 0 {
		return ""
	}
	return strconv.FormatFloat(float64(n), 'f', -1, 64)
}

func formatFloat(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// secondsFlag takes durations in (possibly fractional) seconds or, as the Action's timeout
// input takes them, as a Go duration ("90s", "2m", "1m30s").
func secondsFlag(d *time.Duration) value {
	return parsedFlag(d, checked(config.Seconds, "want a number of seconds >= 0 or a duration such as 90s or 2m"),
		func(d time.Duration) string { return formatFloat(d.Seconds()) })
}

func millisFlag(d *time.Duration) value {
	return parsedFlag(d, checked(func(v string) (time.Duration, bool) {
		f, ok := config.Finite(v)
		return time.Duration(f * float64(time.Millisecond)), ok && f >= 0 && f <= config.MaxSeconds*1000
	}, "want milliseconds >= 0"), func(d time.Duration) string { return nonZero(d.Milliseconds()) })
}

// scoreFlag takes a score in [0, 1]; a non-nil given records that it was given (and the help
// shows no default).
func scoreFlag(f *float64, given *bool) value {
	if given == nil {
		return parsedFlag(f, parseScore, formatFloat)
	}
	return parsedFlag(f, func(v string) (float64, error) {
		x, err := parseScore(v)
		*given = *given || err == nil
		return x, err
	}, func(x float64) string {
		if !*given {
			return ""
		}
		return formatFloat(x)
	})
}

// optScoreFlag is a score that is nil until given.
func optScoreFlag(f **float64) value { return optFlag(f, parseScore, formatFloat) }

var parseScore = checked(config.Score, "want a score between 0 and 1")

// parseCount reads a whole number from 0 to most.
func parseCount(most int, want string) func(string) (int, error) {
	return checked(func(v string) (int, bool) {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		return n, err == nil && n >= 0 && n <= most
	}, want)
}

var parseWhole = parseCount(math.MaxInt, "want a whole number >= 0")

func countFlag(n *int) value { return parsedFlag(n, parseWhole, nonZero[int]) }

// optCountFlag is a count that is nil until given.
func optCountFlag(n **int) value { return optFlag(n, parseWhole, strconv.Itoa) }

// trialsFlag is --trials: how many times each case runs, 0 for the files' own setting.
func trialsFlag(n *int) value {
	return parsedFlag(n, parseCount(suite.MaxTrials, fmt.Sprintf(
		"want a whole number of trials from 1 to %d (0 keeps the eval files' own)", suite.MaxTrials)), nonZero[int])
}

// choiceFlag takes one of choices, or "".
func choiceFlag(s *string, choices []string) value {
	return value{show: func() string { return *s }, set: func(v string) error {
		v = strings.TrimSpace(v)
		if v != "" && !slices.Contains(choices, v) {
			return fmt.Errorf("want one of %s, got %q", strings.Join(choices, ", "), v)
		}
		*s = v
		return nil
	}}
}

func shardFlag(sh **config.Shard) value {
	return parsedFlag(sh, config.ParseShard, (*config.Shard).String)
}

// cacheFlag is --cache: bare, it turns the cache on (read-write); with a value,
// --cache=read-only or --cache=off.
func cacheFlag(m *cache.Mode) value {
	v := parsedFlag(m, config.ParseCache, func(m cache.Mode) string {
		if m == cache.Off {
			return ""
		}
		return string(m)
	})
	v.boolean = true
	return v
}

// targetFlag is --target: one name overrides every case's target; given again, the names are
// a matrix (AgentV 4.42.4's repeatable --target) that one holds only while it is alone.
func targetFlag(one *string, all *[]string) value {
	return value{show: func() string { return *one }, set: func(v string) error {
		v = strings.TrimSpace(v)
		if v == "" {
			return errors.New("want a target name")
		}
		if !slices.Contains(*all, v) {
			*all = append(*all, v)
		}
		*one = ""
		if len(*all) == 1 {
			*one = v
		}
		return nil
	}}
}

// listFlag is a repeatable flag; empty is the error of a blank value, trim whether a value is
// kept trimmed.
func listFlag(list *[]string, trim bool, empty string) value {
	return value{show: func() string { return strings.Join(*list, ",") }, set: func(v string) error {
		if strings.TrimSpace(v) == "" {
			return errors.New(empty)
		}
		if trim {
			v = strings.TrimSpace(v)
		}
		*list = append(*list, v)
		return nil
	}}
}

// budgetFlag is --budget-usd: an amount of US dollars above 0.
func budgetFlag(f *float64) value {
	return parsedFlag(f, checked(func(v string) (float64, bool) {
		x, ok := config.Finite(strings.TrimPrefix(strings.TrimSpace(v), "$"))
		return x, ok && x > 0
	}, "want an amount of US dollars above 0 such as 2.50"), nonZero[float64])
}
