package providers

import (
	"context"
	"errors"
	"maps"
	"net/http"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/agentv/action/targets"

	"github.com/google/go-cmp/cmp"
)

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
			p := retryPolicyFromTarget(&targets.Reader{T: apiTestTarget(targets.KindOpenAI, nil, nil)}, Options{})
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
		p := retryPolicyFromTarget(&targets.Reader{T: apiTestTarget(targets.KindOpenAI, nil, nil)}, Options{})
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
		{"snake_case names", map[string]any{"max_retries": 5, "retry_initial_delay_ms": 200, "retry_max_delay_ms": 5000,
			"retry_backoff_factor": 1.5, "retry_status_codes": []any{429, 503}}, nil,
			got{5, 200 * time.Millisecond, 5 * time.Second, 1.5, []int{429, 503}}},
		{"camelCase", map[string]any{"maxRetries": 1, "retryInitialDelayMs": 10, "retryMaxDelayMs": 20,
			"retryBackoffFactor": 3, "retryStatusCodes": []any{500}}, nil,
			got{1, 10 * time.Millisecond, 20 * time.Millisecond, 3, []int{500}}},
		{"camelCase aliases", map[string]any{"maxRetries": 0, "initialDelayMs": 50, "maxDelayMs": 100,
			"backoffFactor": 4, "retryableStatusCodes": []any{"529", 429}}, nil,
			got{0, 50 * time.Millisecond, 100 * time.Millisecond, 4, []int{429, 529}}},
		{"numbers from the environment", map[string]any{"max_retries": "${{ RETRIES }}"}, map[string]string{"RETRIES": "6"},
			got{6, time.Second, time.Minute, 2, []int{408, 429, 500, 502, 503, 504}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := &targets.Reader{T: apiTestTarget(targets.KindOpenAI, tc.settings, tc.env)}
			p, err := retryPolicyFromTarget(r, Options{}), r.Err
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

// The policy waits its backoff (or the server's Retry-After) on the real clock, here
// synctest's, between attempts, and stops waiting when the invocation's context ends.
func TestRetryPolicyWaits(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		header     http.Header
		cancelAt   time.Duration // 0: never
		wantTime   time.Duration
		wantTries  int
		wantCtxErr error
	}{
		{name: "backoff 1s then 2s", wantTime: 3 * time.Second, wantTries: 3},
		{name: "Retry-After wins", header: http.Header{"Retry-After": {"5"}}, wantTime: 10 * time.Second, wantTries: 3},
		{name: "cancelled while waiting", cancelAt: 1500 * time.Millisecond, wantTime: 1500 * time.Millisecond, wantTries: 2,
			wantCtxErr: context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				p := &retryPolicy{maxRetries: 2, initial: time.Second, cap: time.Minute, factor: 2,
					codes: map[int]bool{503: true}, jitter: func() float64 { return 1 }}
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				if tt.cancelAt > 0 {
					time.AfterFunc(tt.cancelAt, cancel)
				}
				tries := 0
				start := time.Now()
				err := p.run(ctx, "openai", "t", nil, func(ctx context.Context) error {
					tries++
					obs := ctx.Value(retryObsKey{}).(*retryObservation)
					obs.sent, obs.status, obs.header = true, 503, tt.header
					return errors.New("HTTP 503")
				})
				if got := time.Since(start); got != tt.wantTime {
					t.Errorf("took %v, want %v", got, tt.wantTime)
				}
				if tries != tt.wantTries {
					t.Errorf("%d attempts, want %d", tries, tt.wantTries)
				}
				var apiErr *APIError
				if !errors.As(err, &apiErr) || !errors.Is(errors.Unwrap(err), tt.wantCtxErr) {
					t.Errorf("err = %v, want an APIError wrapping %v", err, tt.wantCtxErr)
				}
			})
		})
	}
}

// retryCodes returns the retryable status codes, sorted.
func (p *retryPolicy) retryCodes() []int { return slices.Sorted(maps.Keys(p.codes)) }
