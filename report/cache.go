package report

import (
	"fmt"

	"github.com/agentv/action/internal/textfmt"
	"github.com/agentv/action/results"
)

// addCache adds a record's cache use to a run's total; total is nil until a record has one.
func addCache(total *results.CacheUse, u *results.CacheUse) *results.CacheUse {
	if u == nil {
		return total
	}
	if total == nil {
		total = &results.CacheUse{}
	}
	total.Hits += u.Hits
	total.Misses += u.Misses
	total.TokensSaved += u.TokensSaved
	return total
}

// cacheLine says what the response cache did ("412 of 450 calls from cache; 1.2M tokens not
// spent"), "" when the run did not use it.
func cacheLine(u *results.CacheUse) string {
	if u == nil {
		return ""
	}
	s := fmt.Sprintf("%s of %s %s from cache", thousands(u.Hits), thousands(u.Hits+u.Misses), textfmt.Plural(u.Hits+u.Misses, "call", "calls"))
	if u.TokensSaved > 0 {
		s += "; " + shortCount(u.TokensSaved) + " tokens not spent"
	}
	return s
}

// shortCount writes a large count the way people say it: 950, 12.3k, 1.2M.
func shortCount(n int64) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 10_000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return thousands(int(n))
}
