package otlp

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/ptrace"
)

// receiver is a loopback OTLP/HTTP traces endpoint: it decodes each request as the collector
// does and answers with the statuses given, then 200.
type receiver struct {
	mu       sync.Mutex
	batches  []ptrace.Traces
	headers  []http.Header
	statuses []int
}

func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.headers = append(r.headers, req.Header.Clone())
	if len(r.statuses) > 0 {
		code := r.statuses[0]
		r.statuses = r.statuses[1:]
		w.Header().Set("Retry-After", "0")
		http.Error(w, "try later", code)
		return
	}
	if req.URL.Path != "/v1/traces" || req.Header.Get("Content-Type") != "application/x-protobuf" {
		http.Error(w, "wrong path or type", http.StatusBadRequest)
		return
	}
	body, _ := io.ReadAll(req.Body)
	var u ptrace.ProtoUnmarshaler
	td, err := u.UnmarshalTraces(body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r.batches = append(r.batches, td)
}

func noSleep(context.Context, time.Duration) error { return nil }

func TestSend(t *testing.T) {
	t.Parallel()
	rcv := &receiver{statuses: []int{http.StatusServiceUnavailable}}
	srv := httptest.NewServer(rcv)
	defer srv.Close()
	url, headers, err := EndpointFromEnv(func(k string) string {
		return map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": srv.URL + "/",
			"OTEL_EXPORTER_OTLP_HEADERS": "Authorization=Basic%20c2VjcmV0, x-team = evals"}[k]
	})
	if err != nil {
		t.Fatal(err)
	}
	s := Sender{URL: url, Headers: headers, Batch: 2, Sleep: noSleep}
	n, err := s.Send(context.Background(), []string{records}, Options{})
	if err != nil || n != 5 {
		t.Fatalf("sent %d cases, %v", n, err)
	}
	// 5 cases in batches of 2: three requests, the first sent twice (503, then 200).
	if len(rcv.batches) != 3 || len(rcv.headers) != 4 {
		t.Fatalf("%d batches in %d requests", len(rcv.batches), len(rcv.headers))
	}
	if h := rcv.headers[3]; h.Get("Authorization") != "Basic c2VjcmV0" || h.Get("X-Team") != "evals" {
		t.Errorf("headers %v", h)
	}
	spans := 0
	for _, td := range rcv.batches {
		spans += td.SpanCount()
	}
	// The same spans as the file holds.
	var u ptrace.JSONUnmarshaler
	file, err := u.UnmarshalTraces(export(t, false))
	if err != nil {
		t.Fatal(err)
	}
	if spans != file.SpanCount() || rcv.batches[0].ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0).TraceID() !=
		file.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0).TraceID() {
		t.Errorf("sent %d spans, the file holds %d", spans, file.SpanCount())
	}
}

// TestSendRefused: a refused batch stops the export with an error naming the endpoint and
// the answer, without credentials.
func TestSendRefused(t *testing.T) {
	t.Parallel()
	rcv := &receiver{statuses: []int{http.StatusUnauthorized}}
	srv := httptest.NewServer(rcv)
	defer srv.Close()
	u := strings.Replace(srv.URL, "http://", "http://user:pa55word@", 1) + "/v1/traces?key=topsecret"
	s := Sender{URL: u, Headers: map[string]string{"Authorization": "Bearer tok-123"}, Sleep: noSleep}
	n, err := s.Send(context.Background(), []string{records}, Options{})
	if err == nil || n != 0 || !strings.Contains(err.Error(), "401 Unauthorized") {
		t.Fatalf("sent %d, %v", n, err)
	}
	for _, secret := range []string{"pa55word", "topsecret", "tok-123"} {
		if strings.Contains(err.Error(), secret) {
			t.Errorf("the error holds %q: %v", secret, err)
		}
	}
	if len(rcv.headers) != 1 {
		t.Errorf("a 401 was retried: %d requests", len(rcv.headers))
	}
	// Unreachable: retried, then an error.
	s = Sender{URL: "http://127.0.0.1:1/v1/traces", Sleep: noSleep}
	if _, err := s.Send(context.Background(), []string{records}, Options{}); err == nil || !strings.Contains(err.Error(), "could not reach http://127.0.0.1:1/v1/traces") {
		t.Errorf("unreachable: %v", err)
	}
}

func TestEndpointFromEnv(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		env     map[string]string
		url     string
		headers map[string]string
		err     string
	}{
		{env: map[string]string{}, err: "set OTEL_EXPORTER_OTLP_ENDPOINT"},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "localhost:4318"}, err: "OTEL_EXPORTER_OTLP_ENDPOINT: want an http"},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "https://x/api/traces"},
			url: "https://x/api/traces", headers: map[string]string{}},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_EXPORTER_OTLP_HEADERS": "a=1",
			"OTEL_EXPORTER_OTLP_TRACES_HEADERS": "b=2%2C3"}, url: "http://c:4318/v1/traces", headers: map[string]string{"b": "2,3"}},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c", "OTEL_EXPORTER_OTLP_HEADERS": "a=1,s3cr3t"},
			err: "OTEL_EXPORTER_OTLP_HEADERS: pair 2 is not key=value"},
	} {
		url, headers, err := EndpointFromEnv(func(k string) string { return tt.env[k] })
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) || strings.Contains(err.Error(), "s3cr3t") {
				t.Errorf("%v: error %v, want %q", tt.env, err, tt.err)
			}
			continue
		}
		if err != nil || url != tt.url || len(headers) != len(tt.headers) {
			t.Errorf("%v: %q %v %v", tt.env, url, headers, err)
		}
		for k, v := range tt.headers {
			if headers[k] != v {
				t.Errorf("%v: header %s = %q", tt.env, k, headers[k])
			}
		}
	}
}
