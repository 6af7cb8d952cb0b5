package providers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentv/action/internal/retry"
	"github.com/agentv/action/targets"
)

// TestAPIScenarios runs the wire-level retry scenarios against every API provider
// through its real SDK and a loopback fake of its API.
func TestAPIScenarios(t *testing.T) {
	t.Parallel()
	for _, spec := range apiSpecs() {
		t.Run(spec.kind, func(t *testing.T) {
			t.Parallel()
			apiScenarios(t, spec)
		})
	}
}

func apiScenarios(t *testing.T, spec apiSpec) {
	errStep := func(status int, msg string, hdr map[string]string) apiStep {
		return apiStep{Status: status, Body: spec.errBody(status, msg), Header: hdr}
	}
	ok := apiStep{Status: 200, Body: spec.ok("Hello there")}
	inRange := func(d, lo, hi time.Duration) bool { return d >= lo && d <= hi }

	type want struct {
		requests int
		text     string
		status   int // APIError status when failing
		errHas   []string
	}
	tests := []struct {
		name   string
		steps  []apiStep
		extra  map[string]any
		want   want
		sleeps func(t *testing.T, got []time.Duration)
	}{
		{
			name:  "success",
			steps: []apiStep{ok},
			want:  want{requests: 1, text: "Hello there"},
		},
		{
			name:  "429 with Retry-After seconds then success",
			steps: []apiStep{errStep(429, "slow down", map[string]string{"Retry-After": "7"}), ok},
			want:  want{requests: 2, text: "Hello there"},
			sleeps: func(t *testing.T, got []time.Duration) {
				if diff := cmp.Diff([]time.Duration{7 * time.Second}, got); diff != "" {
					t.Errorf("sleeps (-want +got):\n%s", diff)
				}
			},
		},
		{
			name:  "503 with retry-after-ms then success",
			steps: []apiStep{errStep(503, "busy", map[string]string{"retry-after-ms": "1500"}), ok},
			want:  want{requests: 2, text: "Hello there"},
			sleeps: func(t *testing.T, got []time.Duration) {
				if diff := cmp.Diff([]time.Duration{1500 * time.Millisecond}, got); diff != "" {
					t.Errorf("sleeps (-want +got):\n%s", diff)
				}
			},
		},
		{
			name: "Retry-After date beyond the cap waits the cap",
			steps: []apiStep{errStep(429, "later", map[string]string{
				"Retry-After": time.Now().Add(time.Hour).UTC().Format(http.TimeFormat)}), ok},
			extra: map[string]any{"retry_max_delay_ms": 2000},
			want:  want{requests: 2, text: "Hello there"},
			sleeps: func(t *testing.T, got []time.Duration) {
				if diff := cmp.Diff([]time.Duration{2 * time.Second}, got); diff != "" {
					t.Errorf("sleeps (-want +got):\n%s", diff)
				}
			},
		},
		{
			name:  "500 then success",
			steps: []apiStep{errStep(500, "oops", nil), ok},
			want:  want{requests: 2, text: "Hello there"},
			sleeps: func(t *testing.T, got []time.Duration) {
				if len(got) != 1 || !inRange(got[0], 750*time.Millisecond, 1250*time.Millisecond) {
					t.Errorf("sleeps = %v, want one in [750ms, 1.25s] (1s ± 25%% jitter)", got)
				}
			},
		},
		{
			name:  "persistent 503 gives up after max_retries+1 requests",
			steps: []apiStep{errStep(503, "overloaded", nil)},
			extra: map[string]any{"maxRetries": 2, "initialDelayMs": 100, "backoffFactor": 3},
			want:  want{requests: 3, status: 503, errHas: []string{"HTTP 503", "overloaded", "gave up after 3 attempts"}},
			sleeps: func(t *testing.T, got []time.Duration) {
				if len(got) != 2 || !inRange(got[0], 75*time.Millisecond, 125*time.Millisecond) ||
					!inRange(got[1], 225*time.Millisecond, 375*time.Millisecond) {
					t.Errorf("sleeps = %v, want ~100ms then ~300ms", got)
				}
			},
		},
		{
			name:  "default policy makes 4 requests",
			steps: []apiStep{errStep(502, "bad gateway", nil)},
			want:  want{requests: 4, status: 502, errHas: []string{"gave up after 4 attempts"}},
		},
		{
			name:  "401 is never retried",
			steps: []apiStep{errStep(401, "invalid key", nil), ok},
			want:  want{requests: 1, status: 401, errHas: []string{"HTTP 401", "invalid key", "not retried"}},
		},
		{
			name:  "403 is never retried",
			steps: []apiStep{errStep(403, "forbidden", nil), ok},
			want:  want{requests: 1, status: 403, errHas: []string{"HTTP 403"}},
		},
		{
			name:  "unlisted status is not retried",
			steps: []apiStep{errStep(400, "bad request", nil), ok},
			want:  want{requests: 1, status: 400, errHas: []string{"bad request"}},
		},
		{
			name:  "retry_status_codes replaces the list",
			steps: []apiStep{errStep(400, "flaky", nil), errStep(500, "not listed", nil), ok},
			extra: map[string]any{"retryableStatusCodes": []any{400}},
			want:  want{requests: 2, status: 500, errHas: []string{"not listed"}},
		},
		{
			name:  "malformed JSON body is an error, not retried",
			steps: []apiStep{{Status: 200, Body: `{"id": "x", "choices": [`}, ok},
			want:  want{requests: 1, errHas: []string{"could not read the HTTP 200 response"}},
		},
		{
			name:  "error body echoing the key is redacted",
			steps: []apiStep{errStep(401, "Incorrect API key provided: "+apiTestKey+".", nil)},
			want:  want{requests: 1, status: 401, errHas: []string{"Incorrect API key provided: ***"}},
		},
		{
			name:  "max_retries 0 sends one request",
			steps: []apiStep{errStep(500, "oops", nil), ok},
			extra: map[string]any{"max_retries": 0},
			want:  want{requests: 1, status: 500},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newAPIFake(t, spec.tls, tc.steps...)
			var sl apiSleeps
			var logs apiLog
			p := apiNew(t, spec, f, tc.extra, Options{Sleep: sl.sleep, Logf: logs.logf})
			resp, err := apiInvoke(t, p, "Say hello")
			if err != nil {
				t.Logf("error: %v", err)
			}
			reqs := f.requests()
			if len(reqs) != tc.want.requests {
				t.Errorf("server saw %d requests, want %d", len(reqs), tc.want.requests)
			}
			for i, r := range reqs {
				if r.Path != spec.path {
					t.Errorf("request %d path = %q, want %q", i, r.Path, spec.path)
				}
				if got := spec.auth(r.Header); got != apiTestKey {
					t.Errorf("request %d credential = %q, want the target's key", i, got)
				}
				if v := r.Header.Get("X-Stainless-Retry-Count"); v != "" && v != "0" {
					t.Errorf("request %d: SDK-internal retry header %q: SDK retries must be off", i, v)
				}
			}
			if tc.want.text != "" {
				if err != nil {
					t.Fatalf("Invoke: %v", err)
				}
				if resp.Text != tc.want.text {
					t.Errorf("Text = %q, want %q", resp.Text, tc.want.text)
				}
				if len(resp.OutputMessages) != 1 || resp.OutputMessages[0].Role != "assistant" || resp.OutputMessages[0].Content.Text != tc.want.text {
					t.Errorf("OutputMessages = %+v, want one assistant message", resp.OutputMessages)
				}
				if resp.DurationMS == nil || *resp.DurationMS < 0 {
					t.Errorf("DurationMS = %v, want measured", resp.DurationMS)
				}
			} else {
				if err == nil {
					t.Fatalf("Invoke succeeded with %q, want an error", resp.Text)
				}
				var ae *APIError
				if !errors.As(err, &ae) {
					t.Fatalf("error %T %v, want *APIError", err, err)
				}
				if ae.StatusCode != tc.want.status {
					t.Errorf("StatusCode = %d, want %d (%v)", ae.StatusCode, tc.want.status, err)
				}
				if ae.Attempts != tc.want.requests {
					t.Errorf("Attempts = %d, want %d", ae.Attempts, tc.want.requests)
				}
				for _, s := range tc.want.errHas {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error %q does not contain %q", err, s)
					}
				}
			}
			if err != nil && strings.Contains(err.Error(), apiTestKey) {
				t.Errorf("error leaks the key: %v", err)
			}
			if strings.Contains(logs.String(), apiTestKey) {
				t.Errorf("logs leak the key: %s", logs.String())
			}
			if tc.sleeps != nil {
				tc.sleeps(t, sl.all())
			} else if tc.want.text != "" && len(sl.all()) != 0 {
				t.Errorf("slept %v on a first-time success", sl.all())
			}
		})
	}

	t.Run("usage and cost", func(t *testing.T) {
		t.Parallel()
		f := newAPIFake(t, spec.tls, ok)
		s := spec.settings(f.srv.URL)
		tg := apiTestTarget(spec.kind, s, nil)
		tg.Price = &targets.Price{InputPerMTok: 2, OutputPerMTok: 10}
		p, _, err := New(tg, Options{HTTPClient: f.srv.Client()})
		if err != nil {
			t.Fatal(err)
		}
		resp, err := apiInvoke(t, p, "hi")
		if err != nil {
			t.Fatal(err)
		}
		if resp.Usage == nil || resp.Usage.Input != 11 || resp.Usage.Output != 7 {
			t.Fatalf("Usage = %+v, want 11 in / 7 out", resp.Usage)
		}
		wantCost := (11*2.0 + 7*10.0) / 1e6
		if resp.CostUSD == nil || *resp.CostUSD != wantCost {
			t.Errorf("CostUSD = %v, want %v", resp.CostUSD, wantCost)
		}
	})

	t.Run("key echoed in retried errors stays out of logs", func(t *testing.T) {
		t.Parallel()
		f := newAPIFake(t, spec.tls, errStep(500, "upstream said "+apiTestKey, nil), ok)
		var logs apiLog
		var sl apiSleeps
		p := apiNew(t, spec, f, nil, Options{Sleep: sl.sleep, Logf: logs.logf})
		if _, err := apiInvoke(t, p, "hi"); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(logs.String(), "retrying") {
			t.Errorf("no retry log line: %q", logs.String())
		}
		if strings.Contains(logs.String(), apiTestKey) {
			t.Errorf("logs leak the key: %s", logs.String())
		}
	})

	t.Run("client timeout is retried then reported", func(t *testing.T) {
		t.Parallel()
		f := newAPIFake(t, spec.tls, apiStep{Hang: true})
		client := *f.srv.Client()
		// Long enough for each request to reach the server on a loaded machine (150 ms
		// flaked): the timeout must end requests in flight.
		client.Timeout = time.Second
		var sl apiSleeps
		p := apiNew(t, spec, f, map[string]any{"max_retries": 1}, Options{HTTPClient: &client, Sleep: sl.sleep})
		_, err := apiInvoke(t, p, "hi")
		var ae *APIError
		if !errors.As(err, &ae) {
			t.Fatalf("error %v, want *APIError", err)
		}
		if !ae.Timeout() || !ae.Network || ae.Attempts != 2 {
			t.Errorf("error %+v: want a network timeout after 2 attempts", ae)
		}
		if !strings.Contains(err.Error(), "timed out") {
			t.Errorf("error %q does not say it timed out", err)
		}
		if n := len(f.requests()); n != 2 {
			t.Errorf("server saw %d requests, want 2", n)
		}
	})

	t.Run("cancellation stops at once", func(t *testing.T) {
		t.Parallel()
		f := newAPIFake(t, spec.tls, errStep(503, "busy", nil), ok)
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		// The run is cancelled during the wait: the provider must not try again.
		sleep := func(ctx context.Context, d time.Duration) error { cancel(); return retry.Wait(ctx, d) }
		p := apiNew(t, spec, f, nil, Options{Sleep: sleep})
		_, err := p.Invoke(ctx, &Request{Question: "hi"})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("error %v, want one wrapping context.Canceled", err)
		}
		if n := len(f.requests()); n != 1 {
			t.Errorf("server saw %d requests, want 1", n)
		}
	})

	t.Run("the caller's deadline ends a request in flight, wrapping DeadlineExceeded", func(t *testing.T) {
		t.Parallel()
		f := newAPIFake(t, spec.tls, apiStep{Hang: true})
		// Long enough for the request (and a TLS handshake) to reach the server on a loaded
		// machine: the timeout must end a request in flight, not one not yet sent.
		p := apiNew(t, spec, f, nil, Options{})
		ctx, cancel := context.WithTimeout(t.Context(), 1500*time.Millisecond)
		defer cancel()
		_, err := p.Invoke(ctx, &Request{EvalID: "case-1", Question: "hi"})
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("error %v, want one wrapping context.DeadlineExceeded", err)
		}
		if n := len(f.requests()); n != 1 {
			t.Errorf("server saw %d requests, want 1", n)
		}
	})
}

// apiLog collects Logf output.
type apiLog struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *apiLog) logf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(&l.b, format+"\n", args...)
}

func (l *apiLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
