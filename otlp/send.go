package otlp

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agentv/action/internal/retry"
	"github.com/agentv/action/internal/textcap"
	"github.com/agentv/action/results"
)

// Sender posts a run's traces to an OTLP/HTTP traces endpoint in protobuf, the encoding every
// OTLP receiver takes (Phoenix takes no other), a batch of cases a request.
type Sender struct {
	URL     string            // the traces endpoint, such as http://localhost:4318/v1/traces
	Headers map[string]string // sent with every request; their values never appear in errors
	Client  *http.Client      // nil: a client with a 30 s timeout
	Batch   int               // cases a request; 0: DefaultBatch
	Sleep   retry.Sleep       // waits between retries; nil: retry.Wait
}

// DefaultBatch is how many cases a request holds: a few hundred kilobytes without content.
const DefaultBatch = 100

// maxTries is how many times a request is sent when the receiver asks to retry.
const maxTries = 4

// EndpointFromEnv reads the OpenTelemetry exporter variables: the traces endpoint as given
// (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT), else the base endpoint with /v1/traces
// (OTEL_EXPORTER_OTLP_ENDPOINT), and the headers (OTEL_EXPORTER_OTLP_TRACES_HEADERS, else
// OTEL_EXPORTER_OTLP_HEADERS). An error says which variable is wrong, never a header value.
func EndpointFromEnv(getenv func(string) string) (string, map[string]string, error) {
	endpoint := strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"))
	name := "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
	if endpoint == "" {
		name = "OTEL_EXPORTER_OTLP_ENDPOINT"
		if base := strings.TrimSpace(getenv(name)); base != "" {
			endpoint = strings.TrimRight(base, "/") + "/v1/traces"
		}
	}
	if endpoint == "" {
		return "", nil, fmt.Errorf("set OTEL_EXPORTER_OTLP_ENDPOINT (such as http://localhost:4318) or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT to send traces")
	}
	if u, err := url.Parse(endpoint); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", nil, fmt.Errorf("%s: want an http:// or https:// URL", name)
	}
	hname := "OTEL_EXPORTER_OTLP_TRACES_HEADERS"
	raw := getenv(hname)
	if strings.TrimSpace(raw) == "" {
		hname = "OTEL_EXPORTER_OTLP_HEADERS"
		raw = getenv(hname)
	}
	headers, err := ParseHeaders(raw)
	if err != nil {
		return "", nil, fmt.Errorf("%s: %w", hname, err)
	}
	return endpoint, headers, nil
}

// ParseHeaders reads the OpenTelemetry headers format: key=value pairs separated by commas,
// values percent-encoded. An error names the pair by position, not its value.
func ParseHeaders(s string) (map[string]string, error) {
	out := map[string]string{}
	for i, pair := range strings.Split(s, ",") {
		if strings.TrimSpace(pair) == "" {
			continue
		}
		k, v, ok := strings.Cut(pair, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, fmt.Errorf("pair %d is not key=value", i+1)
		}
		val, err := url.PathUnescape(strings.TrimSpace(v))
		if err != nil {
			return nil, fmt.Errorf("the value of %s is not percent-encoded", k)
		}
		out[k] = val
	}
	return out, nil
}

// Send posts the traces of the case records in the results files srcs and returns how many
// cases were sent. It stops at the first batch the receiver refuses.
func (s Sender) Send(ctx context.Context, srcs []string, opt Options) (int, error) {
	t := newTracer(opt)
	batch := max(s.Batch, 0)
	if batch == 0 {
		batch = DefaultBatch
	}
	td, inBatch, sent := ptrace.NewTraces(), 0, 0
	flush := func() error {
		if inBatch == 0 {
			return nil
		}
		if err := s.post(ctx, td); err != nil {
			return fmt.Errorf("%d of the cases sent, then: %w", sent, err)
		}
		sent += inBatch
		td, inBatch = ptrace.NewTraces(), 0
		return nil
	}
	err := t.scan(srcs, func(rec *results.Record) error {
		t.traces(rec).ResourceSpans().MoveAndAppendTo(td.ResourceSpans())
		if inBatch++; inBatch >= batch {
			return flush()
		}
		return nil
	})
	if err == nil {
		err = flush()
	}
	return sent, err
}

// post sends one request, again while the receiver answers 429, 502, 503 or 504 (OTLP's
// retryable answers) or cannot be reached, waiting as it asks or 1, 2, 4 seconds.
func (s Sender) post(ctx context.Context, td ptrace.Traces) error {
	var m ptrace.ProtoMarshaler
	body, err := m.MarshalTraces(td)
	if err != nil {
		return err
	}
	client := s.Client
	if client == nil {
		client = &http.Client{Timeout: 30 * time.Second}
	}
	var last error
	werr := retry.Loop(ctx, s.Sleep, func(n int) (time.Duration, bool) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.URL, bytes.NewReader(body))
		if err != nil {
			last = fmt.Errorf("the endpoint %s: %w", safeURL(s.URL), err)
			return 0, false
		}
		req.Header.Set("Content-Type", "application/x-protobuf")
		for k, v := range s.Headers {
			req.Header.Set(k, v)
		}
		resp, err := client.Do(req)
		if err != nil {
			last = fmt.Errorf("could not reach %s", safeURL(s.URL))
			return time.Second << n, n+1 < maxTries && ctx.Err() == nil
		}
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
		resp.Body.Close()
		if resp.StatusCode/100 == 2 {
			last = nil
			return 0, false
		}
		last = fmt.Errorf("%s answered %s: %s", safeURL(s.URL), resp.Status, textcap.CapAt(strings.TrimSpace(string(msg)), 500))
		switch resp.StatusCode {
		case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
			d, ok := retry.After(resp.Header, time.Now())
			if !ok {
				d = time.Second << n
			}
			return min(d, 30*time.Second), n+1 < maxTries
		}
		return 0, false
	})
	if werr != nil {
		return werr
	}
	return last
}

// safeURL is u without its user information and query, which may hold credentials.
func safeURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "the endpoint"
	}
	u.User, u.RawQuery, u.Fragment = nil, "", ""
	return u.String()
}
