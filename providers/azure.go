package providers

import (
	"net/url"
	"regexp"
	"strings"

	"github.com/agentv/action/targets"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/azure"
	"github.com/openai/openai-go/v3/option"
)

// apiAzureDefaultVersion is the API version when a target sets none: the one AgentV's
// specification names (AgentV 2.5.0's code uses 2024-12-01-preview; see
// docs/agentv-2.5.md).
const apiAzureDefaultVersion = "2024-10-01-preview"

// apiAzureResourceName is an Azure resource name: the NAME of https://NAME.openai.azure.com.
var apiAzureResourceName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9-]{0,62}$`)

func init() { register(targets.KindAzure, newAzureProvider) }

// newAzureProvider calls Azure OpenAI chat completions: POST
// {endpoint}/openai/deployments/{deployment}/chat/completions?api-version=... with an api-key header.
func newAzureProvider(t *targets.Target, opts Options) (Provider, error) {
	call, r := newAPICall(t, targets.KindAzure, opts)
	endpoint := r.Require("endpoint", "resource", "resource_name")
	if r.Err == nil {
		var err error
		endpoint, err = apiAzureEndpoint(t, endpoint)
		r.Check(err)
	}
	deployment := r.Require("deployment", "deployment_name", "model")
	key := apiReadKey(r, true)
	version, ok := r.String("version", "api_version")
	if version = strings.TrimPrefix(strings.TrimSpace(version), "api-version="); !ok || version == "" {
		version = apiAzureDefaultVersion
	}
	sampling := apiReadSampling(r)
	if r.Err != nil {
		return nil, r.Err
	}
	// azure.WithEndpoint disables the SDK's OPENAI_* environment defaults; the SDK's own retries
	// are off so the target's retry settings are exact.
	chat := openai.NewChatCompletionService(
		option.WithHTTPClient(call.client),
		azure.WithEndpoint(endpoint, version),
		azure.WithAPIKey(key),
		option.WithMaxRetries(0),
	)
	return &chatProvider{apiCall: call, chat: chat, model: deployment, sampling: sampling,
		maxTokensField: "max_completion_tokens"}, nil
}

// apiAzureEndpoint accepts a full URL (https://NAME.openai.azure.com, optionally ending in
// /openai or /openai/v1, the form of AZURE_OPENAI_BASE_URL), a host name, or a resource name, and returns the endpoint the SDK expects.
func apiAzureEndpoint(t *targets.Target, raw string) (string, error) {
	s, _ := t.Raw("endpoint", "resource", "resource_name")
	v := strings.TrimSpace(raw)
	switch {
	case strings.HasPrefix(v, "https://") || strings.HasPrefix(v, "http://"):
		u, err := url.Parse(v)
		if err != nil || u.Host == "" {
			return "", t.ErrorAt(s, "endpoint", "want https://NAME.openai.azure.com or a resource name, got %q", v)
		}
		if u.Scheme != "https" {
			// The SDK refuses to send an Azure key over plain HTTP; say so before the first case.
			return "", t.ErrorAt(s, "endpoint", "Azure OpenAI needs an https:// endpoint (the key is never sent over plain http), got %q", v)
		}
		u.Path = strings.TrimRight(u.Path, "/")
		if p, ok := strings.CutSuffix(u.Path, "/openai/v1"); ok {
			u.Path = p
		}
		u.Path = strings.TrimSuffix(u.Path, "/openai")
		u.RawQuery, u.Fragment = "", ""
		return strings.TrimRight(u.String(), "/"), nil
	case strings.Contains(v, ".") && !strings.ContainsAny(v, "/ "):
		return "https://" + v, nil
	case apiAzureResourceName.MatchString(v):
		return "https://" + v + ".openai.azure.com", nil
	}
	return "", t.ErrorAt(s, "endpoint", "want https://NAME.openai.azure.com or a resource name, got %q", v)
}
