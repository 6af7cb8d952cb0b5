package providers

import (
	"cmp"
	"context"
	"strings"

	"github.com/agentv/action/targets"

	"google.golang.org/genai"
)

// apiGeminiDefaultModel is the model when a gemini target sets none.
const apiGeminiDefaultModel = "gemini-2.5-flash"

// apiGeminiDefaultBase is the Gemini API. It is always set explicitly so GOOGLE_GEMINI_BASE_URL in
// the environment cannot redirect a target.
const apiGeminiDefaultBase = "https://generativelanguage.googleapis.com/"

func init() { register(targets.KindGemini, newGeminiProvider) }

// geminiProvider calls generateContent (POST {base}/v1beta/models/{model}:generateContent, key in
// the x-goog-api-key header).
type geminiProvider struct {
	*apiCall
	models   *genai.Models
	model    string
	sampling apiSampling
}

func newGeminiProvider(t *targets.Target, opts Options) (Provider, error) {
	call, r := newAPICall(t, targets.KindGemini, opts)
	key := apiReadKey(r, true)
	model := cmp.Or(r.Trimmed("model", "deployment", "variant"), apiGeminiDefaultModel)
	sampling := apiReadSampling(r)
	base := cmp.Or(apiReadBaseURL(r, "base_url"), apiGeminiDefaultBase)
	if r.Err != nil {
		return nil, r.Err
	}
	// Backend, key and base URL are explicit: GEMINI_API_KEY, GOOGLE_API_KEY,
	// GOOGLE_GENAI_USE_VERTEXAI and GOOGLE_CLOUD_* cannot change what is sent. The SDK has no
	// retries unless HTTPOptions.RetryOptions is set; ours apply.
	client, err := genai.NewClient(context.Background(), &genai.ClientConfig{
		APIKey:      key,
		Backend:     genai.BackendGeminiAPI,
		HTTPClient:  call.client,
		HTTPOptions: genai.HTTPOptions{BaseURL: base, APIVersion: "v1beta"},
	})
	if err != nil {
		return nil, t.Error("api_key", "could not set up the Gemini client: %s", t.Redactor.String(err.Error()))
	}
	return &geminiProvider{apiCall: call, models: client.Models, model: model, sampling: sampling}, nil
}

func (p *geminiProvider) Invoke(ctx context.Context, req *Request) (*Response, error) {
	pr := apiBuildPrompt(req)
	cfg := &genai.GenerateContentConfig{}
	if pr.System != "" {
		cfg.SystemInstruction = genai.NewContentFromText(pr.System, genai.RoleUser)
	}
	if t := p.sampling.forRequest(req).Temperature; t != nil {
		cfg.Temperature = new(float32(*t))
	}
	if p.sampling.MaxTokens != nil {
		cfg.MaxOutputTokens = int32(min(*p.sampling.MaxTokens, 1<<31-1))
	}
	contents := make([]*genai.Content, 0, len(pr.Turns))
	for _, tr := range pr.Turns {
		role := genai.Role(genai.RoleUser)
		if tr.Role == "assistant" {
			role = genai.RoleModel
		}
		contents = append(contents, genai.NewContentFromText(tr.Content, role))
	}
	return p.invoke(ctx, func(ctx context.Context) (*apiResult, error) {
		resp, err := p.models.GenerateContent(ctx, p.model, contents, cfg)
		if err != nil {
			return nil, err
		}
		text, detail := apiGeminiText(resp)
		if text == "" {
			return nil, p.noText(detail)
		}
		res := &apiResult{Text: text}
		if um := resp.UsageMetadata; um != nil {
			// Thinking tokens are billed as output.
			res.Usage = &Usage{Input: int64(um.PromptTokenCount),
				Output: int64(um.CandidatesTokenCount) + int64(um.ThoughtsTokenCount)}
			if um.CachedContentTokenCount > 0 {
				res.Usage.Cached = new(int64(um.CachedContentTokenCount))
			}
		}
		return res, nil
	})
}

// apiGeminiText joins the first candidate's text parts (thoughts excluded); when there is none it
// says why (a block reason or the finish reason).
func apiGeminiText(resp *genai.GenerateContentResponse) (string, string) {
	if len(resp.Candidates) == 0 {
		if pf := resp.PromptFeedback; pf != nil && pf.BlockReason != "" {
			return "", "prompt blocked: " + string(pf.BlockReason)
		}
		return "", "no candidates"
	}
	c := resp.Candidates[0]
	var parts []string
	if c.Content != nil {
		for _, part := range c.Content.Parts {
			if part != nil && part.Text != "" && !part.Thought {
				parts = append(parts, part.Text)
			}
		}
	}
	return strings.Join(parts, ""), "finish_reason " + string(c.FinishReason)
}
