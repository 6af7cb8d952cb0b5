package providers

import (
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestRetryAfter(t *testing.T) {
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
			got, ok := retryAfter(h, now)
			if got != tc.want || ok != tc.ok {
				t.Errorf("retryAfter = %v, %v; want %v, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}

func FuzzRetryAfter(f *testing.F) {
	for _, s := range []string{"7", "0.5", "Wed, 21 Oct 2015 07:28:00 GMT", "-1", "1e400", "NaN", ""} {
		f.Add(s, "")
		f.Add("", s)
	}
	f.Fuzz(func(t *testing.T, after, afterMS string) {
		h := http.Header{}
		h.Set("Retry-After", after)
		h.Set("Retry-After-Ms", afterMS)
		if d, ok := retryAfter(h, time.Now()); ok && d < 0 {
			t.Errorf("retryAfter(%q, %q) = %v: negative delay", after, afterMS, d)
		}
	})
}

func TestRetryBackoff(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		jitter float64
		want   []time.Duration
	}{
		{"no jitter doubles up to the cap", 1, []time.Duration{1, 2, 4, 8, 16, 32, 60, 60}},
		{"high jitter never exceeds the cap", 1.25, []time.Duration{1250, 2500, 5000, 10000, 20000, 40000, 60000, 60000}},
		{"low jitter", 0.75, []time.Duration{750, 1500, 3000, 6000, 12000, 24000, 45000, 45000}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, err := retryPolicyFromTarget(apiTestTarget(KindOpenAI, nil, nil), Options{})
			if err != nil {
				t.Fatal(err)
			}
			p.jitter = func() float64 { return tc.jitter }
			unit := time.Millisecond
			if tc.jitter == 1 {
				unit = time.Second
			}
			var got []time.Duration
			for n := range len(tc.want) {
				got = append(got, p.backoff(n)/unit)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("delays (-want +got, in %v):\n%s", unit, diff)
			}
		})
	}
	t.Run("real jitter stays within ±25%", func(t *testing.T) {
		t.Parallel()
		p, _ := retryPolicyFromTarget(apiTestTarget(KindOpenAI, nil, nil), Options{})
		for range 1000 {
			if d := p.backoff(1); d < 1500*time.Millisecond || d > 2500*time.Millisecond {
				t.Fatalf("backoff(1) = %v, want within [1.5s, 2.5s]", d)
			}
		}
	})
}

func TestRetrySettings(t *testing.T) {
	t.Parallel()
	type got struct {
		Max          int
		Initial, Cap time.Duration
		Factor       float64
		Codes        []int
	}
	tests := []struct {
		name     string
		settings map[string]any
		env      map[string]string
		want     got
	}{
		{"defaults", nil, nil, got{3, time.Second, time.Minute, 2, []int{408, 429, 500, 502, 503, 504}}},
		{"contract names", map[string]any{"max_retries": 5, "retry_initial_delay_ms": 200, "retry_max_delay_ms": 5000,
			"retry_backoff_factor": 1.5, "retry_status_codes": []any{429, 503}}, nil,
			got{5, 200 * time.Millisecond, 5 * time.Second, 1.5, []int{429, 503}}},
		{"camelCase", map[string]any{"maxRetries": 1, "retryInitialDelayMs": 10, "retryMaxDelayMs": 20,
			"retryBackoffFactor": 3, "retryStatusCodes": []any{500}}, nil,
			got{1, 10 * time.Millisecond, 20 * time.Millisecond, 3, []int{500}}},
		{"seed 004 aliases", map[string]any{"maxRetries": 0, "initialDelayMs": 50, "maxDelayMs": 100,
			"backoffFactor": 4, "retryableStatusCodes": []any{"529", 429}}, nil,
			got{0, 50 * time.Millisecond, 100 * time.Millisecond, 4, []int{429, 529}}},
		{"numbers from the environment", map[string]any{"max_retries": "${{ RETRIES }}"}, map[string]string{"RETRIES": "6"},
			got{6, time.Second, time.Minute, 2, []int{408, 429, 500, 502, 503, 504}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, err := retryPolicyFromTarget(apiTestTarget(KindOpenAI, tc.settings, tc.env), Options{})
			if err != nil {
				t.Fatal(err)
			}
			g := got{p.maxRetries, p.initial, p.cap, p.factor, p.retryCodes()}
			if diff := cmp.Diff(tc.want, g); diff != "" {
				t.Errorf("policy (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAPIErrorMessage(t *testing.T) {
	t.Parallel()
	tests := []struct{ body, want string }{
		{`{"error":{"message":"Rate limit reached","type":"requests"}}`, "Rate limit reached [requests]"},
		{`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, "Overloaded [overloaded_error]"},
		{`{"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}`, "The model is overloaded. [UNAVAILABLE]"},
		{`{"error":"plain"}`, "plain"},
		{`{"message":"top level"}`, "top level"},
		{`<html>Bad Gateway</html>`, "<html>Bad Gateway</html>"},
		{"", ""},
	}
	for _, tc := range tests {
		if got := retryErrorMessage(tc.body); got != tc.want {
			t.Errorf("retryErrorMessage(%q) = %q, want %q", tc.body, got, tc.want)
		}
	}
}
