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
// Not parallel, and one provider at a time: a healthy answer must never take as long as the
// client timeout, or a spurious timeout would count as a (legitimate) duplicate attempt.
//
//nolint:paralleltest // a healthy answer must never take as long as the client timeout (see above).
func TestAPIFaultInjection(t *testing.T) {
	for _, spec := range apiSpecs() {
		t.Run(spec.kind, func(t *testing.T) {
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
			select {
			case <-r.Context().Done():
			case <-time.After(10 * time.Second):
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
	// 3 s: healthy answers on a loaded 2-core machine must never hit it (a retry would look like a
	// duplicate); slow faults stall until the client gives up.
	client.Timeout = 3 * time.Second
	// Keep a connection per worker: the default of 2 idle connections per host would make most
	// requests handshake again (TLS for Azure), which is slow enough on 2 cores to hit the timeout.
	tr := client.Transport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = workers
	client.Transport = tr
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
