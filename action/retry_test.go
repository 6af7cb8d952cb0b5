package action

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/agentv/action/internal/retry"
)

// roundTripFunc answers requests in memory, so the waits run on synctest's clock.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// The transport waits what the server asked, or its own backoff, on the real clock (here
// synctest's), and stops waiting when the request's context ends.
func TestRetryTransportWaits(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		statuses  []int
		header    http.Header
		cancelAt  time.Duration // 0: never
		wantCalls int
		wantTime  time.Duration
		wantErr   error
		wantCode  int
	}{
		{name: "429 with Retry-After, then fine", statuses: []int{429, 200}, header: http.Header{"Retry-After": {"2"}},
			wantCalls: 2, wantTime: 2 * time.Second, wantCode: 200},
		{name: "server errors back off 1s, 2s, then give up", statuses: []int{503, 503, 503},
			wantCalls: 3, wantTime: 3 * time.Second, wantCode: 503},
		{name: "cancelled while waiting", statuses: []int{503, 200}, cancelAt: 500 * time.Millisecond,
			wantCalls: 1, wantTime: 500 * time.Millisecond, wantErr: context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				calls := 0
				rt := &retryTransport{sleep: retry.Wait,
					base: roundTripFunc(func(r *http.Request) (*http.Response, error) {
						code := tt.statuses[calls]
						calls++
						return &http.Response{StatusCode: code, Header: tt.header.Clone(), Body: io.NopCloser(strings.NewReader("{}")), Request: r}, nil
					})}
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				if tt.cancelAt > 0 {
					time.AfterFunc(tt.cancelAt, cancel)
				}
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://127.0.0.1/repos/o/r/issues/1/comments", nil)
				start := time.Now()
				resp, err := rt.RoundTrip(req)
				if got := time.Since(start); got != tt.wantTime {
					t.Errorf("took %v, want %v", got, tt.wantTime)
				}
				if calls != tt.wantCalls {
					t.Errorf("%d requests, want %d", calls, tt.wantCalls)
				}
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				if err == nil && resp.StatusCode != tt.wantCode {
					t.Errorf("status %d, want %d", resp.StatusCode, tt.wantCode)
				}
			})
		})
	}
}
