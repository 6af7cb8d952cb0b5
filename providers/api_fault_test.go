package providers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentv/action/targets"
)

// apiFault is what the fault server does with one attempt of one request.
type apiFault uint8

const (
	apiFaultOK apiFault = iota
	apiFault429
	apiFault500
	apiFaultSlow // answers only after the client has given up
)

var apiFaultID = regexp.MustCompile(`req-\d{4}`)

// TestAPIFaultInjection sends 1,000 requests from 64 goroutines through each provider's real SDK
// to a loopback server that fails 30% of attempts with 429, 500 or a response slower than the
// client's timeout. Every request must end with its own answer or a clear error, after exactly
// the attempts the plan allows; the server counts attempts per request id.
//
// A slow response times out the moment the server starts stalling (stallTransport), not after
// a real client timeout: the test waits for no clock, and a healthy answer on a loaded machine
// can never be mistaken for a slow one.
func TestAPIFaultInjection(t *testing.T) {
	t.Parallel()
	for _, spec := range apiSpecs() {
		t.Run(spec.kind, func(t *testing.T) {
			t.Parallel()
			if testing.Short() && spec.kind != targets.KindOpenAI {
				t.Skip("-short: one provider is enough")
			}
			apiFaultRun(t, spec)
		})
	}
}

func apiFaultRun(t *testing.T, spec apiSpec) {
	const (
		requests   = 1000
		workers    = 64
		maxRetries = 3
		failRate   = 0.30
	)
	// The plan: for each request, the fate of each of its attempts (seeded, so failures reproduce).
	rng := rand.New(rand.NewPCG(4, uint64(len(spec.kind))))
	plan := make([][]apiFault, requests)
	for i := range plan {
		for range maxRetries + 1 {
			f := apiFaultOK
			if rng.Float64() < failRate {
				f = []apiFault{apiFault429, apiFault500, apiFaultSlow}[rng.IntN(3)]
			}
			plan[i] = append(plan[i], f)
		}
	}

	var mu sync.Mutex
	attempts := make([]int, requests)
	served := make([]int, requests) // successful answers written per id
	var unknown atomic.Int64
	stalls := &stallTransport{}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var body map[string]any
		_ = json.Unmarshal(raw, &body)
		id := apiFaultID.FindString(spec.prompt(body))
		var n int
		if _, err := fmt.Sscanf(id, "req-%d", &n); err != nil || n < 0 || n >= requests {
			unknown.Add(1)
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		mu.Lock()
		a := attempts[n]
		attempts[n]++
		mu.Unlock()
		fate := apiFaultSlow // attempts beyond the plan would be a policy bug: make them visible
		if a < len(plan[n]) {
			fate = plan[n][a]
		}
		w.Header().Set("Content-Type", "application/json")
		switch fate {
		case apiFault429:
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(429)
			_, _ = io.WriteString(w, spec.errBody(429, "rate limited"))
		case apiFault500:
			w.WriteHeader(500)
			_, _ = io.WriteString(w, spec.errBody(500, "internal error"))
		case apiFaultSlow:
			stalls.stalling(r)
			select {
			case <-r.Context().Done():
			case <-time.After(time.Minute):
			}
		default:
			mu.Lock()
			served[n]++
			mu.Unlock()
			_, _ = io.WriteString(w, spec.ok("answer for "+id))
		}
	})
	var srv *httptest.Server
	if spec.tls {
		srv = httptest.NewTLSServer(h)
	} else {
		srv = httptest.NewServer(h)
	}
	t.Cleanup(srv.Close)
	client := *srv.Client()
	// Only a safety net: slow faults time out through stallTransport.
	client.Timeout = time.Minute
	// Keep a connection per worker: the default of 2 idle connections per host would make most
	// requests handshake again (TLS for Azure).
	tr := client.Transport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = workers
	stalls.inner = tr
	client.Transport = stalls
	var sleeps atomic.Int64
	fakeSleep := func(context.Context, time.Duration) error {
		sleeps.Add(1)
		return nil
	}
	p, _, err := New(apiTestTarget(spec.kind, spec.settings(srv.URL), nil),
		Options{HTTPClient: &client, Sleep: fakeSleep})
	if err != nil {
		t.Fatal(err)
	}

	type outcome struct {
		resp *Response
		err  error
		n    int // times this slot was written
	}
	out := make([]outcome, requests)
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := range jobs {
				ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
				resp, err := p.Invoke(ctx, &Request{EvalID: fmt.Sprintf("req-%04d", i), Question: fmt.Sprintf("Please answer req-%04d.", i)})
				cancel()
				mu.Lock()
				out[i].resp, out[i].err = resp, err
				out[i].n++
				mu.Unlock()
			}
		})
	}
	for i := range requests {
		jobs <- i
	}
	close(jobs)
	wg.Wait()

	if u := unknown.Load(); u > 0 {
		t.Errorf("server saw %d requests without a known id", u)
	}
	var ok, failed, retried int
	for i, o := range out {
		id := fmt.Sprintf("req-%04d", i)
		firstOK := -1
		for a, f := range plan[i] {
			if f == apiFaultOK {
				firstOK = a
				break
			}
		}
		wantAttempts := firstOK + 1
		if firstOK < 0 {
			wantAttempts = maxRetries + 1
		}
		if o.n != 1 {
			t.Errorf("%s: %d outcomes, want exactly 1", id, o.n)
			continue
		}
		if attempts[i] != wantAttempts {
			t.Errorf("%s: server saw %d attempts, want %d (plan %v)", id, attempts[i], wantAttempts, plan[i])
		}
		if served[i] > 1 {
			t.Errorf("%s: answered %d times", id, served[i])
		}
		switch {
		case firstOK >= 0:
			if o.err != nil {
				t.Errorf("%s: error %v, want an answer (plan %v)", id, o.err, plan[i])
			} else if o.resp.Text != "answer for "+id {
				t.Errorf("%s: got %q: another request's answer", id, o.resp.Text)
			}
			ok++
			if firstOK > 0 {
				retried++
			}
		default:
			var ae *APIError
			if !errors.As(o.err, &ae) {
				t.Errorf("%s: outcome %v / %v, want an *APIError (plan %v)", id, o.resp, o.err, plan[i])
				continue
			}
			last := plan[i][maxRetries]
			clear := (last == apiFault429 && ae.StatusCode == 429) || (last == apiFault500 && ae.StatusCode == 500) ||
				(last == apiFaultSlow && ae.Timeout() && strings.Contains(ae.Error(), "timed out"))
			if !clear || ae.Attempts != maxRetries+1 {
				t.Errorf("%s: error %q (attempts %d) does not match the last failure %v", id, ae, ae.Attempts, last)
			}
			failed++
		}
	}
	if ok+failed != requests {
		t.Errorf("%d answers + %d errors != %d requests", ok, failed, requests)
	}
	t.Logf("%s: %d answered (%d after retries), %d failed after %d attempts, %d backoff waits",
		spec.kind, ok, retried, failed, maxRetries+1, sleeps.Load())
}

// stallTransport makes a stalling server look like a client timeout at once: each round trip
// carries a token, the server reports the token of a response it stalls, and the round trip
// then ends with a timeout error, as http.Client's own Timeout would end it.
type stallTransport struct {
	inner http.RoundTripper
	next  atomic.Int64
	chans sync.Map // token → chan struct{}, closed when the server stalls that round trip
}

const stallHeader = "X-Test-Round-Trip"

func (s *stallTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	token := fmt.Sprint(s.next.Add(1))
	stalled := make(chan struct{})
	s.chans.Store(token, stalled)
	defer s.chans.Delete(token)
	ctx, cancel := context.WithCancel(req.Context())
	r := req.Clone(ctx)
	r.Header.Set(stallHeader, token)
	type result struct {
		resp *http.Response
		err  error
	}
	done := make(chan result, 1)
	go func() {
		resp, err := s.inner.RoundTrip(r)
		done <- result{resp, err}
	}()
	select {
	case res := <-done:
		if res.err != nil {
			cancel()
			return nil, res.err
		}
		// The body is read after RoundTrip returns: cancel the context only once it is closed.
		res.resp.Body = &cancelOnClose{ReadCloser: res.resp.Body, cancel: cancel}
		return res.resp, nil
	case <-stalled:
		cancel()
		if res := <-done; res.err == nil {
			res.resp.Body.Close()
		}
		return nil, stallTimeout{}
	}
}

// stalling is called by the server's handler for a response it will not send in time.
func (s *stallTransport) stalling(r *http.Request) {
	if c, ok := s.chans.Load(r.Header.Get(stallHeader)); ok {
		close(c.(chan struct{}))
	}
}

type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (c *cancelOnClose) Close() error {
	err := c.ReadCloser.Close()
	c.cancel()
	return err
}

// stallTimeout is the error of a stalled round trip: a net.Error that timed out.
type stallTimeout struct{}

func (stallTimeout) Error() string {
	return "net/http: request canceled (Client.Timeout exceeded while awaiting headers)"
}
func (stallTimeout) Timeout() bool   { return true }
func (stallTimeout) Temporary() bool { return true }
