package evaluators

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// civilDate is a calendar date without time zone: field_accuracy compares dates by
// year, month and day only.
type civilDate struct{ y, m, d int }

func (c civilDate) String() string { return fmt.Sprintf("%04d-%02d-%02d", c.y, c.m, c.d) }

var (
	isoDate     = regexp.MustCompile(`^(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?:[T ].*)?$`)
	dayMonYear  = regexp.MustCompile(`^(\d{1,2})[-\s]([A-Za-z]{3,9})\.?[-\s,]+(\d{4})$`)
	monDayYear  = regexp.MustCompile(`^([A-Za-z]{3,9})\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})$`)
	numericDate = regexp.MustCompile(`^(\d{1,2})[-/.](\d{1,2})[-/.](\d{4})$`)
)

var monthNames = map[string]int{
	"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6,
	"jul": 7, "aug": 8, "sep": 9, "sept": 9, "oct": 10, "nov": 11, "dec": 12,
}

func monthOf(name string) (int, bool) {
	n := strings.ToLower(name)
	if m, ok := monthNames[n]; ok {
		return m, true
	}
	if len(n) > 3 {
		if m, ok := monthNames[n[:3]]; ok && strings.HasPrefix(time.Month(m).String(), strings.ToUpper(n[:1])+n[1:]) {
			return m, true
		}
	}
	return 0, false
}

// parseDate reads ISO (YYYY-MM-DD, optionally with a time), DD-MMM-YYYY, "MMM DD, YYYY"
// and numeric day/month forms. For numeric forms a first part above 12 is a day; otherwise
// month first (US) unless formats name a day-first layout such as "DD/MM/YYYY".
func parseDate(v any, formats []string) (civilDate, bool) {
	s, ok := v.(string)
	if !ok {
		return civilDate{}, false
	}
	s = strings.TrimSpace(s)
	atoi := func(x string) int { n, _ := strconv.Atoi(x); return n }
	var c civilDate
	dm, md := dayMonYear.FindStringSubmatch(s), monDayYear.FindStringSubmatch(s)
	switch m := numericDate.FindStringSubmatch(s); {
	case isoDate.MatchString(s):
		m := isoDate.FindStringSubmatch(s)
		c = civilDate{atoi(m[1]), atoi(m[2]), atoi(m[3])}
	case dm != nil || md != nil: // the month by name: day first, or month first
		day, name := 1, 2
		if dm == nil {
			dm, day, name = md, 2, 1
		}
		c = civilDate{atoi(dm[3]), 0, atoi(dm[day])}
		c.m, _ = monthOf(dm[name]) // 0, an invalid month, when the name is none
	case m != nil:
		a, b := atoi(m[1]), atoi(m[2])
		if a > 12 || (b <= 12 && dayFirst(formats)) {
			a, b = b, a
		}
		c = civilDate{atoi(m[3]), a, b}
	default:
		return civilDate{}, false
	}
	// Reject impossible dates (2024-02-31) rather than normalising them.
	t := time.Date(c.y, time.Month(c.m), c.d, 0, 0, 0, 0, time.UTC)
	if c.m < 1 || c.m > 12 || t.Day() != c.d || int(t.Month()) != c.m {
		return civilDate{}, false
	}
	return c, true
}

func dayFirst(formats []string) bool {
	return slices.ContainsFunc(formats, func(f string) bool {
		f = strings.ToUpper(strings.TrimSpace(f))
		return strings.HasPrefix(f, "DD") && strings.Contains(f, "MM") && !strings.Contains(f, "MMM")
	})
}
