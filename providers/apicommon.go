package providers

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentv/action/suite"
	"github.com/agentv/action/targets"
)

// apiDefaultSystem is the system text of a single-turn request that has no SystemPrompt.
const apiDefaultSystem = "You are a careful assistant. Follow the instructions you are given exactly and never invent facts, files or results."

// GuidelinesHeader introduces the guideline files' contents, as in AgentV 2.5's prompts; a
// chat whose system message already holds it (package prompt writes it) gets no second copy.
const GuidelinesHeader = "[[ ## Guidelines ## ]]"

// apiDefaultMaxTokens is sent where the API requires a limit (Anthropic) and none is set.
const apiDefaultMaxTokens = 4096

// apiPrompt is a request in the shape every chat API takes: one system text and user or
// assistant turns.
type apiPrompt struct {
	System string
	Turns  []ChatMessage
}

// apiBuildPrompt turns a Request into system text and turns: req.Chat's messages (system
// entries join the system text) or the question. The system text is req.SystemPrompt (judges)
// else a default, plus the guidelines block.
func apiBuildPrompt(req *Request) apiPrompt {
	base := strings.TrimSpace(req.SystemPrompt)
	var chatSystem []string
	var turns []ChatMessage
	for _, m := range req.Chat {
		switch m.Role {
		case suite.RoleSystem:
			if s := strings.TrimSpace(m.Content); s != "" {
				chatSystem = append(chatSystem, s)
			}
		case suite.RoleAssistant:
			turns = append(turns, ChatMessage{Role: suite.RoleAssistant, Content: m.Content})
		default:
			// user, and tool results rendered as text by the prompt builder
			turns = append(turns, ChatMessage{Role: suite.RoleUser, Content: m.Content})
		}
	}
	var parts []string
	switch {
	case base != "":
		parts = append(parts, base)
	case len(chatSystem) == 0:
		parts = append(parts, apiDefaultSystem)
	}
	// A chat prompt's leading system entry already carries the guidelines.
	mentions := func(x string) bool { return strings.Contains(x, GuidelinesHeader) }
	if g := strings.TrimSpace(req.Guidelines); g != "" && (len(req.Chat) == 0 || !slices.ContainsFunc(chatSystem, mentions)) {
		parts = append(parts, GuidelinesHeader+"\n\n"+g)
	}
	parts = append(parts, chatSystem...)
	if len(req.Chat) == 0 || len(turns) == 0 {
		turns = append(turns, ChatMessage{Role: suite.RoleUser, Content: req.Question})
	}
	return apiPrompt{System: strings.Join(parts, "\n\n"), Turns: turns}
}

// apiSampling holds the generation settings shared by the API providers.
type apiSampling struct {
	Temperature *float64
	MaxTokens   *int64
}

func (s apiSampling) forRequest(req *Request) apiSampling {
	if req != nil && req.Temperature != nil {
		s.Temperature = req.Temperature
	}
	return s
}

// apiReadSampling reads temperature and max_output_tokens (alias max_tokens).
func apiReadSampling(r *targets.Reader) apiSampling {
	var s apiSampling
	if f, ok := r.Float("temperature"); ok && (f < 0 || f > 2) {
		r.Fail("temperature", "want a number from 0 to 2, got %v", f)
	} else if ok {
		s.Temperature = &f
	}
	if n, ok := r.Int("max_output_tokens", "max_tokens"); ok && n < 1 {
		s2, _ := r.T.Raw("max_output_tokens", "max_tokens")
		r.Check(r.T.ErrorAt(s2, "max_output_tokens", "want a positive whole number, got %d", n))
	} else if ok {
		s.MaxTokens = new(int64(n))
	}
	return s
}

// apiReadBaseURL reads an optional absolute http(s) URL.
func apiReadBaseURL(r *targets.Reader, keys ...string) string {
	v := r.Trimmed(keys...)
	if v == "" {
		return ""
	}
	if u, err := url.Parse(v); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		r.Fail(keys[0], "want an absolute http(s) URL, got %q", v)
	}
	return v
}

// apiReadKey reads the api_key setting (secret: registered with the redactor).
func apiReadKey(r *targets.Reader, required bool) string {
	var v string
	if required {
		v = r.Require("api_key")
	} else {
		v, _ = r.String("api_key")
	}
	r.T.Redactor.Add(v)
	return v
}

// apiCall is what every API provider embeds: target, retry policy, HTTP client. The caller's
// context bounds an invocation (the runner's --timeout).
type apiCall struct {
	t      *targets.Target
	kind   string
	retry  *retryPolicy
	client *http.Client
}

// newAPICall reads the retry settings; the provider reads its own with the Reader it returns.
func newAPICall(t *targets.Target, kind string, opts Options) (*apiCall, *targets.Reader) {
	r := &targets.Reader{T: t}
	return &apiCall{t: t, kind: kind, retry: retryPolicyFromTarget(r, opts), client: retryHTTPClient(opts.HTTPClient)}, r
}

func (c *apiCall) Target() *targets.Target { return c.t }

// apiResult is one successful API answer, before it becomes a Response.
type apiResult struct {
	Text  string
	Usage *Usage
}

// invoke runs attempt under the retry policy and turns its result into a Response with
// duration, usage and cost.
func (c *apiCall) invoke(ctx context.Context, attempt func(ctx context.Context) (*apiResult, error)) (*Response, error) {
	start := time.Now()
	var res *apiResult
	err := c.retry.run(ctx, c.kind, c.t.Name, c.t.Redactor, func(ctx context.Context) error {
		r, err := attempt(ctx)
		if err == nil {
			res = r
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	ms := float64(time.Since(start).Microseconds()) / 1000
	// A model that repeats a key (from a prompt or a tool) must not put it into results.
	text := c.t.Redactor.String(res.Text)
	return &Response{Text: text, OutputMessages: textAnswer(text), Usage: res.Usage, DurationMS: &ms,
		CostUSD: targetCost(c.t, res.Usage)}, nil
}

// noText is the error for a 2xx answer without any text.
func (c *apiCall) noText(detail string) error {
	msg := "the response holds no text"
	if detail != "" {
		msg += " (" + detail + ")"
	}
	return &APIError{Target: c.t.Name, Kind: c.kind, Attempts: 1, Msg: c.t.Redactor.String(msg)}
}

// apiJSONErrorMessage finds the message in a JSON error body, "" if none.
func apiJSONErrorMessage(body string) string {
	if !strings.HasPrefix(body, "{") {
		return ""
	}
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
	}
	if json.Unmarshal([]byte(body), &v) != nil {
		return ""
	}
	if len(v.Error) > 0 {
		var s string
		if json.Unmarshal(v.Error, &s) == nil && s != "" {
			return s
		}
		var o struct {
			Message string `json:"message"`
			Type    string `json:"type"`
			Status  string `json:"status"`
			Code    any    `json:"code"`
		}
		if json.Unmarshal(v.Error, &o) == nil && o.Message != "" {
			if kind := strings.TrimSpace(o.Type + " " + o.Status); kind != "" {
				return o.Message + " [" + kind + "]"
			}
			return o.Message
		}
	}
	return v.Message
}

// apiExcerpt shortens s to n bytes for an error message, on a rune boundary.
func apiExcerpt(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("…(%d more bytes)", len(s)-cut)
}
