package providers

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agentv/action/targets"
)

// embeddingServer speaks the OpenAI embeddings wire format: it checks the request and answers
// with reply (a status and body), recording the last request body and bearer token.
func embeddingServer(t *testing.T, status int, reply string) (*httptest.Server, *struct{ body, auth, path string }) {
	t.Helper()
	seen := &struct{ body, auth, path string }{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		seen.body, seen.auth, seen.path = string(b), r.Header.Get("Authorization"), r.URL.Path
		if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, reply)
	}))
	t.Cleanup(srv.Close)
	return srv, seen
}

func TestEmbeddingClient(t *testing.T) {
	t.Parallel()
	ok := `{"object": "list", "model": "m", "data": [{"object": "embedding", "index": 1, "embedding": [0, 1]}, {"object": "embedding", "index": 0, "embedding": [1, 0.5]}], "usage": {"prompt_tokens": 2, "total_tokens": 2}}`
	tests := []struct {
		name   string
		status int
		reply  string
		want   [][]float64
		err    string
	}{
		{name: "vectors in index order", status: 200, reply: ok, want: [][]float64{{1, 0.5}, {0, 1}}},
		{name: "no index keeps order", status: 200, reply: `{"data": [{"embedding": [1]}, {"embedding": [2]}]}`, want: [][]float64{{1}, {2}}},
		{name: "too few", status: 200, reply: `{"data": [{"embedding": [1]}]}`, err: "holds 1 embeddings for 2 texts"},
		{name: "empty vector", status: 200, reply: `{"data": [{"embedding": []}, {"embedding": [2]}]}`, err: "embedding 0 is empty"},
		{name: "repeated index", status: 200, reply: `{"data": [{"index": 0, "embedding": [1]}, {"index": 0, "embedding": [2]}]}`, err: "bad or repeated index"},
		{name: "not numbers", status: 200, reply: `{"data": [{"embedding": ["a"]}, {"embedding": [2]}]}`, err: "not an embeddings object"},
		{name: "HTTP error with message", status: 401, reply: `{"error": {"message": "bad key sk-secret-123"}}`, err: "returned HTTP 401: bad key [REDACTED]"},
		{name: "HTTP error plain", status: 500, reply: `oops`, err: "returned HTTP 500: oops"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, seen := embeddingServer(t, tt.status, tt.reply)
			c := &EmbeddingClient{BaseURL: srv.URL + "/v1/", Model: "m", APIKey: "sk-secret-123", HTTPClient: srv.Client()}
			got, err := c.Embed(t.Context(), []string{"a", "b"})
			if seen.path != "/v1/embeddings" || seen.auth != "Bearer sk-secret-123" || seen.body != `{"model":"m","input":["a","b"]}` {
				t.Errorf("request: path %q auth %q body %s", seen.path, seen.auth, seen.body)
			}
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) || strings.Contains(err.Error(), "sk-secret-123") {
					t.Fatalf("error = %v, want %q without the key", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if g, _ := json.Marshal(got); string(g) != mustJSON(t, tt.want) {
				t.Errorf("got %s, want %s", g, mustJSON(t, tt.want))
			}
		})
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestEmbeddingClientUnreachable(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	c := &EmbeddingClient{BaseURL: url, Model: "m"}
	_, err := c.Embed(t.Context(), []string{"a"})
	if err == nil || !strings.Contains(err.Error(), "request failed") || strings.Contains(err.Error(), url) {
		t.Errorf("error = %v, want a failed request that does not repeat the URL", err)
	}
	if _, err := (&EmbeddingClient{BaseURL: "ftp://x", Model: "m"}).Embed(t.Context(), nil); err == nil || !strings.Contains(err.Error(), "absolute http(s) URL") {
		t.Errorf("error = %v", err)
	}
}

func TestNewEmbeddingClient(t *testing.T) {
	t.Parallel()
	tgt := apiTestTarget(targets.KindOpenAI, map[string]any{
		"base_url": "http://127.0.0.1:9/v1", "api_key": "k-123", "model": "gpt", "embedding_model": "emb"}, nil)
	red := tgt.Redactor
	c, err := NewEmbeddingClient(tgt, Options{})
	if err != nil || c.BaseURL != "http://127.0.0.1:9/v1" || c.Model != "emb" || c.APIKey != "k-123" {
		t.Fatalf("client %+v, err %v", c, err)
	}
	if red.String("k-123") == "k-123" {
		t.Error("the key was not registered with the redactor")
	}
	if _, err := NewEmbeddingClient(apiTestTarget(targets.KindAnthropic, nil, nil), Options{}); err == nil || !strings.Contains(err.Error(), "only an OpenAI-compatible target") {
		t.Errorf("error = %v", err)
	}
}
