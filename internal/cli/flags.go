package cli

import (
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"
)

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

// secondsValue is a flag.Value for durations given in (possibly fractional) seconds.
type secondsValue struct{ d *time.Duration }

func (s secondsValue) String() string {
	if s.d == nil {
		return ""
	}
	return strconv.FormatFloat(s.d.Seconds(), 'f', -1, 64)
}

func (s secondsValue) Set(v string) error {
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || f < 0 {
		return fmt.Errorf("want a number of seconds >= 0, got %q", v)
	}
	*s.d = time.Duration(f * float64(time.Second))
	return nil
}

// millisValue is a flag.Value for durations given in milliseconds.
type millisValue struct{ d *time.Duration }

func (m millisValue) String() string {
	if m.d == nil {
		return ""
	}
	return strconv.FormatInt(m.d.Milliseconds(), 10)
}

func (m millisValue) Set(v string) error {
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || f < 0 {
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

func (s scoreValue) String() string {
	if s.f == nil {
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
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || f < 0 || f > 1 {
		return 0, fmt.Errorf("want a score between 0 and 1, got %q", v)
	}
	return f, nil
}
