package providers

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agentv/action/internal/redact"
	"github.com/agentv/action/internal/retry"
	"github.com/agentv/action/targets"
)

// Retry defaults, as AgentV documents its provider retry configuration: 3 retries,
// exponential backoff from 1 s (factor 2) capped at 60 s.
const (
	retryDefaultMax     = 3
	retryDefaultInitial = 1000 * time.Millisecond
	retryDefaultCap     = 60000 * time.Millisecond
	retryDefaultFactor  = 2.0
	// retryMaxAllowed bounds max_retries: a typo like 1000 would otherwise hammer a provider for hours.
	retryMaxAllowed = 100
)

// retryDefaultCodes are retried unless retry_status_codes replaces them.
var retryDefaultCodes = []int{408, 429, 500, 502, 503, 504}

// The spellings of the retry settings, canonical first (snake_case after normalization).
var (
	retryKeysMax     = []string{"max_retries"}
	retryKeysInitial = []string{"retry_initial_delay_ms", "initial_delay_ms"}
	retryKeysCap     = []string{"retry_max_delay_ms", "max_delay_ms"}
	retryKeysFactor  = []string{"retry_backoff_factor", "backoff_factor"}
	retryKeysCodes   = []string{"retry_status_codes", "retryable_status_codes"}
)

// Retry settings are common to every target: a cli or codex target that carries them
// (shared YAML anchors, say) gets no unknown-setting warning.
func init() {
	commonKeys = slices.Concat(commonKeys, retryKeysMax, retryKeysInitial, retryKeysCap, retryKeysFactor, retryKeysCodes)
}

// retryPolicy is the one HTTP retry policy of the API providers. SDK-internal retries are off so
// these numbers are exact: at most maxRetries+1 requests per invocation.
type retryPolicy struct {
	maxRetries int
	initial    time.Duration
	cap        time.Duration
	factor     float64
	codes      map[int]bool
	sleep      retry.Sleep    // Options.Sleep; nil: retry.Wait
	jitter     func() float64 // a factor in [0.75, 1.25); nil: math/rand
	logf       func(format string, args ...any)
}

// retryPolicyFromTarget reads the retry settings of a target.
func retryPolicyFromTarget(r *targets.Reader, opts Options) *retryPolicy {
	p := &retryPolicy{maxRetries: retryDefaultMax, initial: retryDefaultInitial, cap: retryDefaultCap,
		factor: retryDefaultFactor, codes: map[int]bool{}, sleep: opts.Sleep, logf: opts.Logf}
	for _, c := range retryDefaultCodes {
		p.codes[c] = true
	}
	// fail reports a bad value of the setting keys names, at the spelling the file uses.
	fail := func(keys []string, format string, args ...any) {
		s, _ := r.T.Raw(keys...)
		r.Check(r.T.ErrorAt(s, keys[0], format, args...))
	}
	if n, ok := r.Int(retryKeysMax...); ok && (n < 0 || n > retryMaxAllowed) {
		r.Fail(retryKeysMax[0], "want a whole number from 0 to %d, got %d", retryMaxAllowed, n)
	} else if ok {
		p.maxRetries = n
	}
	for _, d := range []struct {
		keys []string
		dst  *time.Duration
	}{{retryKeysInitial, &p.initial}, {retryKeysCap, &p.cap}} {
		if f, ok := r.Float(d.keys...); ok && (f < 0 || f > float64(24*time.Hour/time.Millisecond)) {
			fail(d.keys, "want milliseconds from 0 to 86400000, got %v", f)
		} else if ok {
			*d.dst = time.Duration(f * float64(time.Millisecond))
		}
	}
	if f, ok := r.Float(retryKeysFactor...); ok && (f < 1 || f > 100) {
		fail(retryKeysFactor, "want a number from 1 to 100, got %v", f)
	} else if ok {
		p.factor = f
	}
	if items, ok := r.Strings(retryKeysCodes...); ok {
		p.codes = map[int]bool{}
		for i, it := range items {
			c, perr := strconv.Atoi(strings.TrimSpace(it))
			switch {
			case perr != nil || c < 100 || c > 599:
				fail(retryKeysCodes, "item %d: want an HTTP status code (100-599), got %q", i+1, it)
			case c == http.StatusUnauthorized || c == http.StatusForbidden:
				fail(retryKeysCodes, "item %d: %d is never retried (a rejected key does not get better by asking again)", i+1, c)
			}
			p.codes[c] = true
		}
	}
	return p
}

// backoff is the delay before retry n (0-based): min(cap, initial·factor^n) with ±25% jitter,
// never above the cap.
func (p *retryPolicy) backoff(n int) time.Duration {
	base := min(float64(p.initial)*math.Pow(p.factor, float64(n)), float64(p.cap))
	j := 0.75 + rand.Float64()*0.5
	if p.jitter != nil {
		j = p.jitter()
	}
	return min(time.Duration(base*j), p.cap)
}

// APIError is the failure of an API provider invocation, after the retry policy gave up or
// decided not to retry. Its text is redacted: a key echoed by the server never shows.
type APIError struct {
	Target     string
	Kind       string
	StatusCode int  // HTTP status of the last attempt; 0 when no response arrived
	Attempts   int  // requests sent
	Network    bool // the last attempt failed without an HTTP response (connection, timeout)
	Msg        string
	ctxErr     error // set when the invocation's context ended: Unwrap returns it
	timeout    bool
}

func (e *APIError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s target %q: ", e.Kind, e.Target)
	if e.StatusCode > 0 {
		fmt.Fprintf(&b, "HTTP %d %s", e.StatusCode, http.StatusText(e.StatusCode))
		if e.Msg != "" {
			b.WriteString(": ")
		}
	}
	b.WriteString(e.Msg)
	switch {
	case e.Attempts > 1:
		fmt.Fprintf(&b, " (gave up after %d attempts)", e.Attempts)
	case e.StatusCode == http.StatusUnauthorized || e.StatusCode == http.StatusForbidden:
		b.WriteString(" (not retried: check the target's api_key)")
	}
	return b.String()
}

// Unwrap returns the context error when the invocation was cancelled or timed out, so
// errors.Is(err, context.DeadlineExceeded) works for the runner's case-level retries.
func (e *APIError) Unwrap() error { return e.ctxErr }

// Timeout reports whether the last attempt timed out (client timeout or deadline).
func (e *APIError) Timeout() bool { return e.timeout }

// retryObservation is what the HTTP transport saw of one attempt: the SDKs hide status codes
// and headers behind their own error types, so the transport records them for the policy.
type retryObservation struct {
	mu     sync.Mutex
	sent   bool
	status int
	header http.Header
	body   bytes.Buffer // first bytes of an error body (status >= 400)
	netErr error        // transport or body-read failure
}

type retryObsKey struct{}

const (
	retryIdleConnsPerHost = 64   // idle connections per host of the default client
	retryBodyKeep         = 4096 // how much of an error body is kept for the error message
)

// retryTransport records each attempt's outcome on the retryObservation in its context.
type retryTransport struct{ base http.RoundTripper }

func (rt retryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	obs, _ := req.Context().Value(retryObsKey{}).(*retryObservation)
	base := rt.base
	if base == nil {
		base = http.DefaultTransport
	}
	resp, err := base.RoundTrip(req)
	if obs == nil {
		return resp, err
	}
	obs.mu.Lock()
	defer obs.mu.Unlock()
	obs.sent = true
	if err != nil {
		obs.netErr = err
		return resp, err
	}
	obs.status, obs.header, obs.netErr = resp.StatusCode, resp.Header.Clone(), nil
	obs.body.Reset()
	resp.Body = &retryBodyTee{rc: resp.Body, obs: obs, keep: resp.StatusCode >= 400}
	return resp, nil
}

// retryBodyTee keeps the start of an error body and notes read failures (a timeout mid-body).
type retryBodyTee struct {
	rc   io.ReadCloser
	obs  *retryObservation
	keep bool
}

func (t *retryBodyTee) Read(p []byte) (int, error) {
	n, err := t.rc.Read(p)
	t.obs.mu.Lock()
	if t.keep && t.obs.body.Len() < retryBodyKeep {
		t.obs.body.Write(p[:min(n, retryBodyKeep-t.obs.body.Len())])
	}
	if err != nil && !errors.Is(err, io.EOF) {
		t.obs.netErr = err
	}
	t.obs.mu.Unlock()
	return n, err
}

func (t *retryBodyTee) Close() error { return t.rc.Close() }

// retryHTTPClient returns a copy of c (or a default client) whose transport feeds the policy.
func retryHTTPClient(c *http.Client) *http.Client {
	out := &http.Client{}
	if c != nil {
		out = new(*c)
	} else if dt, ok := http.DefaultTransport.(*http.Transport); ok {
		// Many workers share one host: keep their connections instead of the default 2 idle ones.
		tr := dt.Clone()
		tr.MaxIdleConnsPerHost = retryIdleConnsPerHost
		out.Transport = tr
	}
	out.Transport = retryTransport{base: out.Transport}
	return out
}

// run calls attempt until it succeeds, the policy gives up, or ctx ends. attempt must send
// its HTTP request with the context it is given. Errors are *APIError, redacted with r.
func (p *retryPolicy) run(ctx context.Context, kind, target string, r *redact.Redactor, attempt func(ctx context.Context) error) error {
	var last *APIError
	werr := retry.Loop(ctx, p.sleep, func(n int) (time.Duration, bool) {
		obs := &retryObservation{}
		err := attempt(context.WithValue(ctx, retryObsKey{}, obs))
		if err == nil {
			last = nil
			return 0, false
		}
		var own *APIError
		if errors.As(err, &own) {
			// Our own verdict on a 2xx answer (no text): final, already redacted.
			own.Attempts = n + 1
			last = own
			return 0, false
		}
		obs.mu.Lock()
		status, header, netErr, sent := obs.status, obs.header, obs.netErr, obs.sent
		body := obs.body.String()
		obs.mu.Unlock()

		e := &APIError{Target: target, Kind: kind, StatusCode: status, Attempts: n + 1}
		last = e
		retryable := false
		switch {
		case ctx.Err() != nil:
			// Cancellation or the invocation's deadline: stop at once.
			e.ctxErr, e.timeout = ctx.Err(), errors.Is(ctx.Err(), context.DeadlineExceeded)
			e.StatusCode = 0
			e.Msg = "request stopped: " + ctx.Err().Error()
		case netErr != nil:
			e.Network, retryable = true, true
			// The client's own timeout shows on the SDK's error; the transport may only see a cancel.
			cause := netErr
			if retryIsTimeout(err) {
				cause = err
			}
			e.timeout = retryIsTimeout(cause)
			msg := cause.Error()
			if e.timeout {
				msg = "timed out waiting for the server (" + msg + ")"
			}
			e.Msg = "request failed: " + r.String(msg)
		case status >= 400:
			retryable = p.codes[status] && status != http.StatusUnauthorized && status != http.StatusForbidden
			e.Msg = r.String(retryErrorMessage(body))
		case !sent:
			// The SDK refused before sending (bad option, invalid parameter): not a transient problem.
			e.Msg = "could not send request: " + r.String(err.Error())
		default:
			e.StatusCode = 0
			e.Msg = fmt.Sprintf("could not read the HTTP %d response: %s", status, r.String(err.Error()))
		}
		if !retryable || n >= p.maxRetries {
			return 0, false
		}
		delay := p.backoff(n)
		if d, ok := retry.After(header, time.Now()); ok {
			delay = min(d, p.cap)
		}
		if p.logf != nil {
			who := fmt.Sprintf("%s target %q", kind, target)
			if id := EvalIDFrom(ctx); id != "" {
				who += fmt.Sprintf(", case %q", id)
			}
			p.logf("%s: attempt %d failed (%s), retrying in %s", who, n+1, retryShort(e), delay.Round(time.Millisecond))
		}
		return delay, true
	})
	if werr != nil {
		last.ctxErr, last.timeout = werr, errors.Is(werr, context.DeadlineExceeded)
		last.Msg += "; stopped while waiting to retry: " + werr.Error()
	}
	if last == nil {
		return nil
	}
	return last
}

func retryShort(e *APIError) string {
	if e.StatusCode > 0 {
		return fmt.Sprintf("HTTP %d", e.StatusCode)
	}
	if e.timeout {
		return "timeout"
	}
	return "network error"
}

func retryIsTimeout(err error) bool {
	var te interface{ Timeout() bool }
	return errors.As(err, &te) && te.Timeout() || errors.Is(err, context.DeadlineExceeded)
}

// retryErrorMessage extracts the server's message from an error body: {"error":{"message"}},
// {"error":"..."}, {"message":"..."}, else the body itself (shortened).
func retryErrorMessage(body string) string {
	body = strings.TrimSpace(body)
	if msg := apiJSONErrorMessage(body); msg != "" {
		return msg
	}
	return apiExcerpt(body, 500)
}
