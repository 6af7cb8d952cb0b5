package providers

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/agentv/action/internal/redact"
	"github.com/agentv/action/targets"
)

// maxEmbeddingReply bounds how much of an embeddings answer is read.
const maxEmbeddingReply = 64 << 20

// EmbeddingClient asks an OpenAI-compatible server for embeddings: POST {BaseURL}/embeddings
// with {"model", "input": [texts]}, answered by {"data": [{"embedding": [numbers]}, …]} in the
// order of the texts (items carrying an "index" are put in its order).
type EmbeddingClient struct {
	BaseURL string // up to and without /embeddings, e.g. https://api.openai.com/v1
	Model   string
	APIKey  string // sent as a bearer token; "" for none
	// HTTPClient makes the call; nil: http.DefaultClient. The caller's context bounds it.
	HTTPClient *http.Client
	// Redactor masks secrets in errors (the key is added by NewEmbeddingClient); nil: none.
	Redactor *redact.Redactor
}

// NewEmbeddingClient is a client for an OpenAI target's server: its base_url (or endpoint;
// default the OpenAI API), api_key, and embedding_model (else model). Other kinds have no
// OpenAI-compatible embeddings endpoint here.
func NewEmbeddingClient(t *targets.Target, opts Options) (*EmbeddingClient, error) {
	if t == nil {
		return nil, errors.New("no target to ask for embeddings")
	}
	if t.Kind != targets.KindOpenAI {
		return nil, fmt.Errorf("target %q (%s) cannot give embeddings: only an OpenAI-compatible target (provider openai) can", t.Name, t.Kind)
	}
	r := &targets.Reader{T: t}
	base := apiReadBaseURL(r, "base_url", "endpoint")
	key := apiReadKey(r, base == "")
	model := r.Trimmed("embedding_model")
	if model == "" {
		model = r.Require("model", "deployment", "deployment_name")
	}
	if r.Err != nil {
		return nil, r.Err
	}
	if base == "" {
		base = apiOpenAIDefaultBase
	}
	return &EmbeddingClient{BaseURL: base, Model: model, APIKey: key, HTTPClient: opts.HTTPClient, Redactor: t.Redactor}, nil
}

// Embed returns one vector per text, in order. Errors name the server's status and message,
// never the key or the URL's credentials.
func (c *EmbeddingClient) Embed(ctx context.Context, texts []string) ([][]float64, error) {
	endpoint, err := c.endpoint()
	if err != nil {
		return nil, err
	}
	body, err := json.Marshal(struct {
		Model string   `json:"model"`
		Input []string `json:"input"`
	}{c.Model, texts})
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, c.fail("could not build the request: %v", err)
	}
	req.Header.Set("Content-Type", "application/json")
	if c.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.APIKey)
	}
	client := c.HTTPClient
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		var uerr *url.Error
		if errors.As(err, &uerr) {
			err = uerr.Err // its text repeats the URL
		}
		return nil, c.fail("request failed: %v", err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxEmbeddingReply))
	if err != nil {
		return nil, c.fail("could not read the answer: %v", err)
	}
	if resp.StatusCode/100 != 2 {
		msg := apiJSONErrorMessage(strings.TrimSpace(string(raw)))
		if msg == "" {
			msg = apiExcerpt(strings.TrimSpace(string(raw)), 200)
		}
		return nil, c.fail("the embeddings server returned HTTP %d: %s", resp.StatusCode, msg)
	}
	return c.read(raw, len(texts))
}

// read checks an answer's shape: one non-empty vector of finite numbers per text.
func (c *EmbeddingClient) read(raw []byte, n int) ([][]float64, error) {
	var reply struct {
		Data []struct {
			Index     *int      `json:"index"`
			Embedding []float64 `json:"embedding"`
		} `json:"data"`
	}
	if err := json.Unmarshal(raw, &reply); err != nil {
		return nil, c.fail("the answer is not an embeddings object ({\"data\": [{\"embedding\": [...]}]}): %v", err)
	}
	if len(reply.Data) != n {
		return nil, c.fail("the answer holds %d embeddings for %d texts", len(reply.Data), n)
	}
	out := make([][]float64, n)
	for i, d := range reply.Data {
		at := i
		if d.Index != nil {
			at = *d.Index
		}
		if at < 0 || at >= n || out[at] != nil {
			return nil, c.fail("the answer's embedding %d has a bad or repeated index", i)
		}
		if len(d.Embedding) == 0 {
			return nil, c.fail("the answer's embedding %d is empty", i)
		}
		out[at] = d.Embedding
	}
	return out, nil
}

// endpoint is BaseURL with /embeddings; the base must be an absolute http(s) URL.
func (c *EmbeddingClient) endpoint() (string, error) {
	base := strings.TrimRight(strings.TrimSpace(c.BaseURL), "/")
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", errors.New("embeddings base_url must be an absolute http(s) URL")
	}
	return base + "/embeddings", nil
}

func (c *EmbeddingClient) fail(format string, args ...any) error {
	msg := fmt.Sprintf("embeddings (%s): ", c.Model) + fmt.Sprintf(format, args...)
	if c.APIKey != "" {
		msg = strings.ReplaceAll(msg, c.APIKey, "[REDACTED]")
	}
	if c.Redactor != nil {
		msg = c.Redactor.String(msg)
	}
	return errors.New(msg)
}
