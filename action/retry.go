package action

import (
	"bytes"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/agentv/action/internal/retry"
)

// retryTransport retries GitHub API requests that were refused for a while: rate limits
// (429, or 403 with x-ratelimit-remaining 0, Retry-After, or a secondary-rate-limit
// message) for every method, server errors and lost connections only for idempotent
// methods (a POST that got a 5xx may have created the comment; Upsert looks again
// instead). Waits honour Retry-After and x-ratelimit-reset, and are bounded: a wait longer
// than retryMaxWait, or past retryBudget in all, returns the last response as it is.
type retryTransport struct {
	base  http.RoundTripper
	sleep retry.Sleep
}

// Retry bounds: a comment is not worth holding a CI job for minutes.
const (
	retryAttempts       = 3 // tries per request, the first included
	retryMaxWait        = 60 * time.Second
	retryBudget         = 90 * time.Second
	retryBackoff        = time.Second
	secondaryLimitWait  = 60 * time.Second // GitHub: "wait at least one minute" without Retry-After
	maxErrorBodyPeek    = 64 << 10
	headerRateRemaining = "X-Ratelimit-Remaining"
	headerRateReset     = "X-Ratelimit-Reset"
)

func (t *retryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	var (
		resp   *http.Response
		err    error
		waited time.Duration
	)
	rewindable := req.Body == nil || req.Body == http.NoBody || req.GetBody != nil
	werr := retry.Loop(req.Context(), t.sleep, func(n int) (time.Duration, bool) {
		r := req
		if n > 0 {
			r = req.Clone(req.Context())
			if req.GetBody != nil {
				body, gerr := req.GetBody()
				if gerr != nil {
					resp, err = nil, gerr
					return 0, false
				}
				r.Body = body
			}
		}
		resp, err = t.base.RoundTrip(r)
		wait, again := decide(req.Method, resp, err, n+1)
		over := n+1 >= retryAttempts || wait > retryMaxWait || waited+wait > retryBudget
		if !again || over || !rewindable || req.Context().Err() != nil {
			return 0, false
		}
		if resp != nil {
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxErrorBodyPeek))
			resp.Body.Close()
		}
		waited += wait
		return wait, true
	})
	if werr != nil {
		return nil, werr
	}
	return resp, err
}

// decide says whether to retry and after how long.
func decide(method string, resp *http.Response, err error, attempt int) (time.Duration, bool) {
	backoff := retryBackoff << (attempt - 1)
	idempotent := method != http.MethodPost
	if err != nil {
		return backoff, idempotent
	}
	switch code := resp.StatusCode; code {
	case http.StatusTooManyRequests, http.StatusForbidden:
		if d, ok := retry.After(resp.Header, time.Now()); ok {
			return d, true
		}
		if resp.Header.Get(headerRateRemaining) == "0" {
			if d, ok := untilReset(resp.Header, time.Now()); ok {
				return d, true
			}
			return secondaryLimitWait, true
		}
		if code == http.StatusTooManyRequests || secondaryLimitBody(resp) {
			return secondaryLimitWait, true
		}
	case http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		if d, ok := retry.After(resp.Header, time.Now()); ok {
			return d, idempotent
		}
		return backoff, idempotent
	}
	return 0, false
}

// untilReset reads x-ratelimit-reset (Unix seconds) and waits a second past it.
func untilReset(h http.Header, now time.Time) (time.Duration, bool) {
	secs, err := strconv.ParseInt(strings.TrimSpace(h.Get(headerRateReset)), 10, 64)
	if err != nil {
		return 0, false
	}
	return max(time.Unix(secs, 0).Sub(now), 0) + time.Second, true
}

// secondaryLimitBody peeks at a 403 body for GitHub's secondary-rate-limit message and
// puts the body back for go-github to parse.
func secondaryLimitBody(resp *http.Response) bool {
	if resp.Body == nil {
		return false
	}
	data, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBodyPeek))
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(data))
	s := strings.ToLower(string(data))
	return strings.Contains(s, "secondary rate limit") || strings.Contains(s, "abuse")
}
