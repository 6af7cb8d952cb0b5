package targets

// Canonical provider kinds.
const (
	KindAzure          = "azure"
	KindAnthropic      = "anthropic"
	KindGemini         = "gemini"
	KindOpenAI         = "openai"
	KindCLI            = "cli"
	KindCodex          = "codex"
	KindClaude         = "claude-code"
	KindVSCode         = "vscode"
	KindVSCodeInsiders = "vscode-insiders"
	KindMock           = "mock"
)

// kindAliases maps every accepted `provider:` spelling (lower-cased) to its kind.
var kindAliases = map[string]string{
	"azure": KindAzure, "azure-openai": KindAzure,
	"anthropic": KindAnthropic,
	"gemini":    KindGemini, "google": KindGemini, "google-gemini": KindGemini,
	"openai": KindOpenAI,
	"cli":    KindCLI,
	"codex":  KindCodex, "codex-cli": KindCodex,
	"claude-code": KindClaude, "claude": KindClaude, "claude-cli": KindClaude,
	"vscode": KindVSCode, "vscode-insiders": KindVSCodeInsiders,
	"mock": KindMock,
}

// CanonicalKind returns the kind for a `provider:` value, or "" when unknown.
func CanonicalKind(provider string) string {
	return kindAliases[lower(provider)]
}
