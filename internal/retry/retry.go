// Package retry holds what the two HTTP retry paths share, the API providers' retry policy
// and the GitHub API transport: the wait between attempts and reading how long a server
// asked to wait.
//
//	if d, ok := retry.After(resp.Header, time.Now()); ok {
//		err = retry.Wait(ctx, d)
//	}
package retry

import (
	"context"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Sleep waits between attempts: d, or until ctx ends, then returning ctx's error. It is the
// clock of both retry paths; Wait is the real one.
type Sleep func(ctx context.Context, d time.Duration) error

// Wait waits d or until ctx ends, whichever comes first.
func Wait(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// After reads how long the server asked to wait: retry-after-ms (milliseconds, sent by
// OpenAI and Azure), else Retry-After in seconds or as an HTTP date (relative to now; a
// date in the past means now). ok is false when neither holds a usable value.
func After(h http.Header, now time.Time) (d time.Duration, ok bool) {
	if h == nil {
		return 0, false
	}
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if f, err := strconv.ParseFloat(v, 64); err == nil && f >= 0 && !math.IsInf(f, 0) {
			return time.Duration(f * float64(time.Millisecond)), true
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if f, err := strconv.ParseFloat(v, 64); err == nil && f >= 0 && !math.IsInf(f, 0) {
		return time.Duration(f * float64(time.Second)), true
	}
	if at, err := http.ParseTime(v); err == nil {
		return max(at.Sub(now), 0), true
	}
	return 0, false
}
