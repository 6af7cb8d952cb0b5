package retry

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"testing"
	"testing/synctest"
	"time"
)

// Wait takes exactly its delay on the clock, and ends early, with the context's error,
// when the context does.
func TestWait(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		if err := Wait(t.Context(), 3*time.Second); err != nil {
			t.Fatal(err)
		}
		if got := time.Since(start); got != 3*time.Second {
			t.Errorf("waited %v, want 3s", got)
		}

		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		start = time.Now()
		if err := Wait(ctx, time.Hour); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("err = %v, want the context's deadline", err)
		}
		if got := time.Since(start); got != time.Second {
			t.Errorf("waited %v after the context ended at 1s", got)
		}
	})
}

// Loop makes attempts until try stops, waits each delay on the clock in between, and when
// the context ends during a wait returns its error without another attempt.
func TestLoop(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		var at []time.Duration
		err := Loop(t.Context(), nil, func(n int) (time.Duration, bool) {
			at = append(at, time.Since(start))
			return time.Duration(n+1) * time.Second, n < 2
		})
		if err != nil {
			t.Fatal(err)
		}
		if want := []time.Duration{0, time.Second, 3 * time.Second}; !slices.Equal(at, want) {
			t.Errorf("attempts at %v, want %v", at, want)
		}

		ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
		defer cancel()
		calls := 0
		err = Loop(ctx, nil, func(int) (time.Duration, bool) { calls++; return time.Minute, true })
		if !errors.Is(err, context.DeadlineExceeded) || calls != 2 {
			t.Errorf("err %v after %d attempts, want the deadline after 2", err, calls)
		}
	})
}

func TestAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		header map[string]string
		want   time.Duration
		ok     bool
	}{
		{"seconds", map[string]string{"Retry-After": "7"}, 7 * time.Second, true},
		{"fractional seconds", map[string]string{"Retry-After": "0.5"}, 500 * time.Millisecond, true},
		{"HTTP date", map[string]string{"Retry-After": now.Add(90 * time.Second).Format(http.TimeFormat)}, 90 * time.Second, true},
		{"date in the past", map[string]string{"Retry-After": now.Add(-time.Hour).Format(http.TimeFormat)}, 0, true},
		{"retry-after-ms wins", map[string]string{"Retry-After": "7", "retry-after-ms": "250"}, 250 * time.Millisecond, true},
		{"junk", map[string]string{"Retry-After": "soon"}, 0, false},
		{"negative", map[string]string{"Retry-After": "-3"}, 0, false},
		{"absent", nil, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := http.Header{}
			for k, v := range tc.header {
				h.Set(k, v)
			}
			got, ok := After(h, now)
			if got != tc.want || ok != tc.ok {
				t.Errorf("After = %v, %v; want %v, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}

func FuzzAfter(f *testing.F) {
	for _, s := range []string{"7", "0.5", "Wed, 21 Oct 2015 07:28:00 GMT", "-1", "1e400", "NaN", ""} {
		f.Add(s, "")
		f.Add("", s)
	}
	f.Fuzz(func(t *testing.T, after, afterMS string) {
		h := http.Header{}
		h.Set("Retry-After", after)
		h.Set("Retry-After-Ms", afterMS)
		if d, ok := After(h, time.Now()); ok && d < 0 {
			t.Errorf("After(%q, %q) = %v: negative delay", after, afterMS, d)
		}
	})
}
