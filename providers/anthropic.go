package providers

import (
	"context"
	"strings"
	"time"

	"github.com/agentv/action/targets"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
)

// apiAnthropicMinThinking is the API's smallest thinking budget.
const apiAnthropicMinThinking = 1024

// apiAnthropicRequestTimeout bounds one request when --timeout is unset. Setting it also keeps the
// SDK from refusing large max_tokens without streaming (its 10-minute estimate).
const apiAnthropicRequestTimeout = 10 * time.Minute

func init() { register(targets.KindAnthropic, newAnthropicProvider) }

// anthropicProvider calls the Messages API (POST {base}/v1/messages).
type anthropicProvider struct {
	*apiCall
	messages   anthropic.MessageService
	model      string
	sampling   apiSampling
	thinking   int64 // budget tokens; 0: extended thinking off
	reqTimeout time.Duration
}

func newAnthropicProvider(t *targets.Target, opts Options) (Provider, error) {
	call, r := newAPICall(t, targets.KindAnthropic, opts)
	key := apiReadKey(r, true)
	model := r.Require("model", "deployment", "variant")
	sampling := apiReadSampling(r)
	var budget int64
	if n, ok := r.Int("thinking_budget"); ok && n != 0 && n < apiAnthropicMinThinking {
		r.Fail("thinking_budget", "want at least %d tokens (the API minimum), got %d", apiAnthropicMinThinking, n)
	} else if ok {
		budget = int64(n)
	}
	base := apiReadBaseURL(r, "base_url")
	if r.Err != nil {
		return nil, r.Err
	}
	// WithoutEnvironmentDefaults: ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN, ANTHROPIC_BASE_URL,
	// ANTHROPIC_PROFILE and ANTHROPIC_CUSTOM_HEADERS must not change what a target sends.
	o := []option.RequestOption{
		option.WithoutEnvironmentDefaults(),
		option.WithHTTPClient(call.client),
		option.WithAPIKey(key),
		option.WithMaxRetries(0),
	}
	if base != "" {
		o = append(o, option.WithBaseURL(base))
	}
	timeout := apiAnthropicRequestTimeout
	if opts.Timeout > 0 {
		timeout = opts.Timeout
	}
	client := anthropic.NewClient(o...)
	return &anthropicProvider{apiCall: call, messages: client.Messages, model: model, sampling: sampling,
		thinking: budget, reqTimeout: timeout}, nil
}

func (p *anthropicProvider) Invoke(ctx context.Context, req *Request) (*Response, error) {
	pr := apiBuildPrompt(req)
	params := anthropic.MessageNewParams{Model: anthropic.Model(p.model), MaxTokens: apiDefaultMaxTokens}
	if p.sampling.MaxTokens != nil {
		params.MaxTokens = *p.sampling.MaxTokens
	}
	if p.thinking > 0 {
		// max_tokens counts thinking too: the budget comes on top of the answer's limit, as the
		// AI SDK that AgentV uses does, so max_output_tokens still bounds the visible answer.
		params.MaxTokens += p.thinking
		params.Thinking = anthropic.ThinkingConfigParamOfEnabled(p.thinking)
	}
	if pr.System != "" {
		params.System = []anthropic.TextBlockParam{{Text: pr.System}}
	}
	for _, tr := range pr.Turns {
		if tr.Role == "assistant" {
			params.Messages = append(params.Messages, anthropic.NewAssistantMessage(anthropic.NewTextBlock(tr.Content)))
		} else {
			params.Messages = append(params.Messages, anthropic.NewUserMessage(anthropic.NewTextBlock(tr.Content)))
		}
	}
	if t := p.sampling.forRequest(req).Temperature; t != nil {
		// The v2 SDK has no temperature field (deprecated in its API version); the API still
		// reads it, so a configured value is sent as written.
		params.SetExtraFields(map[string]any{"temperature": *t})
	}
	return p.invoke(ctx, func(ctx context.Context) (*apiResult, error) {
		msg, err := p.messages.New(ctx, params, option.WithRequestTimeout(p.reqTimeout))
		if err != nil {
			return nil, err
		}
		var text []string
		for _, b := range msg.Content {
			if b.Type == "text" && b.Text != "" {
				text = append(text, b.Text)
			}
		}
		if len(text) == 0 {
			return nil, p.noText("stop_reason " + string(msg.StopReason))
		}
		res := &apiResult{Text: strings.Join(text, "\n\n")}
		if msg.JSON.Usage.Valid() {
			res.Usage = &Usage{Input: msg.Usage.InputTokens, Output: msg.Usage.OutputTokens}
			if msg.Usage.JSON.CacheReadInputTokens.Valid() {
				res.Usage.Cached = new(msg.Usage.CacheReadInputTokens)
			}
		}
		return res, nil
	})
}
