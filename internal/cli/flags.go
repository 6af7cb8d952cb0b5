package cli

import (
	"flag"
	"fmt"
	"math"
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

// parseFinite parses a float that is a number: NaN and the infinities compare false with
// every bound, so a range check alone would let them through.
func parseFinite(v string) (float64, bool) {
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	return f, err == nil && !math.IsNaN(f) && !math.IsInf(f, 0)
}

// maxSeconds bounds durations given in seconds: more would overflow time.Duration.
const maxSeconds = float64(math.MaxInt64 / int64(time.Second))

// secondsValue is a flag.Value for durations given in (possibly fractional) seconds.
type secondsValue struct{ d *time.Duration }

func (s secondsValue) String() string {
	if s.d == nil {
		return ""
	}
	return strconv.FormatFloat(s.d.Seconds(), 'f', -1, 64)
}

func (s secondsValue) Set(v string) error {
	f, ok := parseFinite(v)
	if !ok || f < 0 || f > maxSeconds {
		return fmt.Errorf("want a number of seconds >= 0, got %q", v)
	}
	*s.d = time.Duration(f * float64(time.Second))
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
	f, ok := parseFinite(v)
	if !ok || f < 0 || f > maxSeconds*1000 {
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
	f, ok := parseFinite(v)
	if !ok || f < 0 || f > 1 {
		return 0, fmt.Errorf("want a score between 0 and 1, got %q", v)
	}
	return f, nil
}

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
