package providers

import (
	"context"
	"strings"

	"github.com/agentv/action/targets"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
)

// apiOpenAIDefaultBase is the OpenAI API; base_url points the provider at any compatible server
// (GitHub Models https://models.github.ai/inference, vLLM, Ollama, LiteLLM).
const apiOpenAIDefaultBase = "https://api.openai.com/v1/"

func init() { register(targets.KindOpenAI, newOpenAIProvider) }

// chatProvider calls a Chat Completions endpoint: OpenAI-compatible or Azure OpenAI (whose SDK
// routes by the request's model: it becomes /openai/deployments/{model}/...).
type chatProvider struct {
	*apiCall
	chat     openai.ChatCompletionService
	model    string
	sampling apiSampling
	// maxTokensField is "max_completion_tokens" for OpenAI and Azure, "max_tokens" for other
	// compatible servers, most of which (Ollama, older vLLM) only know the older field.
	maxTokensField string
}

func newOpenAIProvider(t *targets.Target, opts Options) (Provider, error) {
	call, r := newAPICall(t, targets.KindOpenAI, opts)
	base := apiReadBaseURL(r, "base_url", "endpoint")
	// A key is optional for self-hosted servers (Ollama ignores it) but required by OpenAI itself.
	key := apiReadKey(r, base == "")
	model := r.Require("model", "deployment", "deployment_name")
	org := r.Trimmed("organization", "org", "organization_id")
	sampling := apiReadSampling(r)
	if r.Err != nil {
		return nil, r.Err
	}
	field := "max_completion_tokens"
	if base != "" && !strings.Contains(base, "api.openai.com") {
		field = "max_tokens"
	}
	if base == "" {
		base = apiOpenAIDefaultBase
	}
	// The service is built from explicit options only (not openai.NewClient), so OPENAI_BASE_URL,
	// OPENAI_API_KEY, OPENAI_ORG_ID, OPENAI_PROJECT_ID and OPENAI_CUSTOM_HEADERS in the
	// environment cannot change what is sent.
	o := []option.RequestOption{
		option.WithHTTPClient(call.client),
		option.WithBaseURL(base),
		option.WithMaxRetries(0),
	}
	if key != "" {
		o = append(o, option.WithAPIKey(key))
	}
	if org != "" {
		o = append(o, option.WithOrganization(org))
	}
	return &chatProvider{apiCall: call, chat: openai.NewChatCompletionService(o...), model: model,
		sampling: sampling, maxTokensField: field}, nil
}

// Invoke sends one Chat Completions request.
func (p *chatProvider) Invoke(ctx context.Context, req *Request) (*Response, error) {
	return p.invoke(ctx, func(ctx context.Context) (*apiResult, error) { return p.complete(ctx, req) })
}

func (p *chatProvider) complete(ctx context.Context, req *Request) (*apiResult, error) {
	s := p.sampling.forRequest(req)
	pr := apiBuildPrompt(req)
	msgs := make([]openai.ChatCompletionMessageParamUnion, 0, len(pr.Turns)+1)
	if pr.System != "" {
		msgs = append(msgs, openai.SystemMessage(pr.System))
	}
	for _, tr := range pr.Turns {
		if tr.Role == "assistant" {
			msgs = append(msgs, openai.AssistantMessage(tr.Content))
		} else {
			msgs = append(msgs, openai.UserMessage(tr.Content))
		}
	}
	params := openai.ChatCompletionNewParams{Model: p.model, Messages: msgs}
	if s.Temperature != nil {
		params.Temperature = param.NewOpt(*s.Temperature)
	}
	if s.MaxTokens != nil {
		if p.maxTokensField == "max_tokens" {
			params.MaxTokens = param.NewOpt(*s.MaxTokens)
		} else {
			params.MaxCompletionTokens = param.NewOpt(*s.MaxTokens)
		}
	}
	resp, err := p.chat.New(ctx, params)
	if err != nil {
		return nil, err
	}
	if len(resp.Choices) == 0 {
		return nil, p.noText("no choices")
	}
	// n=1: the first choice is the answer.
	msg := resp.Choices[0].Message
	if msg.Content == "" {
		detail := "finish_reason " + resp.Choices[0].FinishReason
		if msg.Refusal != "" {
			detail = "refusal: " + apiExcerpt(msg.Refusal, 300)
		}
		return nil, p.noText(detail)
	}
	res := &apiResult{Text: msg.Content}
	if resp.JSON.Usage.Valid() {
		res.Usage = &Usage{Input: resp.Usage.PromptTokens, Output: resp.Usage.CompletionTokens}
		if resp.Usage.PromptTokensDetails.JSON.CachedTokens.Valid() {
			res.Usage.Cached = new(resp.Usage.PromptTokensDetails.CachedTokens)
		}
	}
	return res, nil
}
