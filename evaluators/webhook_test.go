package evaluators

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/agentv/action/internal/redact"
	"github.com/agentv/action/suite"
)

func TestWebhook(t *testing.T) {
	t.Parallel()
	// The service answers per path; /echo checks what it was sent.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var got struct {
			Output  string         `json:"output"`
			Context map[string]any `json:"context"`
		}
		b, _ := io.ReadAll(r.Body)
		if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" || json.Unmarshal(b, &got) != nil {
			http.Error(w, "bad", http.StatusBadRequest)
			return
		}
		switch r.URL.Path {
		case "/bool":
			_, _ = io.WriteString(w, "true")
		case "/score":
			_, _ = io.WriteString(w, "0.4")
		case "/object":
			_, _ = io.WriteString(w, `{"pass": true, "score": 0.7, "reason": "fine"}`)
		case "/echo":
			_, hasExpected := got.Context["expected_output"]
			cfg, _ := got.Context["config"].(map[string]any)
			ok := got.Output == "High risk" && hasExpected && cfg["k"] == "v" && got.Context["criteria"] == "Correctly classify as high risk"
			_ = json.NewEncoder(w).Encode(ok)
		case "/slow":
			time.Sleep(3 * time.Second)
			_, _ = io.WriteString(w, "true")
		case "/text":
			_, _ = io.WriteString(w, "yes")
		default:
			http.Error(w, "no", http.StatusInternalServerError)
		}
	}))
	t.Cleanup(srv.Close)
	tests := []struct {
		name, settings string
		score          float64
		pass           bool
		text, err      string
	}{
		{name: "true", settings: `{"value": "` + srv.URL + `/bool"}`, score: 1, pass: true},
		{name: "number under threshold", settings: `{"value": "` + srv.URL + `/score", "threshold": 0.5}`, score: 0.4, text: "Webhook assertion returned a failing result"},
		{name: "result object", settings: `{"value": "` + srv.URL + `/object"}`, score: 0.7, pass: true, text: "fine"},
		{name: "payload", settings: `{"value": "` + srv.URL + `/echo", "config": {"k": "v"}}`, score: 1, pass: true},
		{name: "HTTP error fails", settings: `{"value": "` + srv.URL + `/boom?token=s3cr3t-token"}`, score: 0, text: "Webhook assertion failed: HTTP 500"},
		{name: "not JSON fails", settings: `{"value": "` + srv.URL + `/text"}`, score: 0, text: "the reply is not JSON"},
		{name: "timeout is an error", settings: `{"value": "` + srv.URL + `/slow?token=s3cr3t-token"}`, err: "timed out"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			spec := loadedSpec(t, "hook", "webhook", tt.settings)
			in := riskInput(riskCase(t.TempDir(), spec), "High risk")
			res := Evaluate(t.Context(), in, &Options{Timeout: time.Second, Redactor: &redact.Redactor{}}).Results[0]
			all, _ := json.Marshal(res)
			if strings.Contains(string(all), "s3cr3t-token") || strings.Contains(string(all), srv.URL) {
				t.Errorf("the URL reached the result: %s", all)
			}
			if tt.err != "" {
				if !strings.Contains(res.Error, tt.err) {
					t.Fatalf("error = %q, want %q", res.Error, tt.err)
				}
				return
			}
			want := map[bool]string{true: "pass", false: "fail"}[tt.pass]
			if res.Error != "" || res.Score != tt.score || res.Verdict != want {
				t.Errorf("score %v verdict %s error %q, want %v %s (misses %q)", res.Score, res.Verdict, res.Error, tt.score, want, res.Misses)
			}
			if texts := strings.Join(append(res.Hits, res.Misses...), "|"); !strings.Contains(texts, tt.text) {
				t.Errorf("texts %q lack %q", texts, tt.text)
			}
		})
	}
}

func TestWebhookSettings(t *testing.T) {
	t.Parallel()
	typ, _ := suite.LookupEvaluator("webhook")
	for _, s := range []string{`{"value": "not a url"}`, `{"value": "ftp://host/x"}`, `{"value": "/relative"}`} {
		if _, err := typ.Parse(&suite.EvaluatorSpec{Type: "webhook", Settings: json.RawMessage(s)}); err == nil || !strings.Contains(err.Error(), "absolute http(s) URL") {
			t.Errorf("%s: error = %v", s, err)
		}
	}
}
