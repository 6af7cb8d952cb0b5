// Package retry is the retry loop both HTTP paths use, the API providers' retry policy and
// the GitHub API transport: each decides what is worth another attempt and how long to wait;
// Loop does the attempts and the waits on one clock, and After reads how long a server asked
// to wait.
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

// Loop calls try with attempt numbers 0, 1, 2, ... until try returns again false, waiting
// the delay try returned between calls on sleep (Wait when nil). It returns nil when try
// stopped, or the wait's error when ctx ended during a wait; try keeps its own result.
func Loop(ctx context.Context, sleep Sleep, try func(n int) (delay time.Duration, again bool)) error {
	if sleep == nil {
		sleep = Wait
	}
	for n := 0; ; n++ {
		d, again := try(n)
		if !again {
			return nil
		}
		if err := sleep(ctx, d); err != nil {
			return err
		}
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
