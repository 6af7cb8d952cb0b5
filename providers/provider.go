// Package providers answers eval requests: the Provider interface and every provider
// (mock, cli, codex, claude-code, vscode, azure, anthropic, gemini, openai), built from a target that
// package targets loaded, with one retry policy for the API ones.
package providers

import (
	"context"

	"github.com/agentv/action/suite"
	"github.com/agentv/action/targets"
)

// Mode is how a provider wants a case formatted (see prompt.Build).
type Mode uint8

const (
	ModeLM    Mode = iota // file contents embedded in the prompt (API providers and mock)
	ModeAgent             // files referenced by path (cli, codex, claude-code, vscode): the agent reads them
)

// ChatMessage is one entry of a multi-turn chat prompt.
type ChatMessage struct {
	Role    string `json:"role"` // system | user | assistant
	Content string `json:"content"`
}

// Request is one invocation of a target (or of a judge).
type Request struct {
	EvalID       string
	Attempt      int           // 0-based
	Question     string        // the formatted question (user prompt for judges)
	Guidelines   string        // the guideline files' contents block, "" if none
	SystemPrompt string        // set for judge calls (the JSON contract): replaces the provider's default
	Chat         []ChatMessage // the multi-turn prompt (role-marker mode), nil for single-turn requests
	// Files are absolute paths: guideline files first, then input files.
	Files          []string
	GuidelinePaths []string
	InputFiles     []string
	Dir            string   // the eval file's directory (default working directory of agent targets)
	Temperature    *float64 // when set, replaces the target's temperature for this call (a grader's own)
	// Workspace is the suite's workspace directory (AgentV 4.x `workspace`), "" if none: cli,
	// claude and codex targets run there whatever their cwd.
	Workspace string
	// Turn is the conversation turn this request sends (1, 2, …), 0 outside conversations:
	// 4.42.4 gives a turn no attempt number, which its claude logs show.
	Turn  int
	Agent suite.AgentRules // how agent targets build their prompt, resolve a relative cwd and log
}

// Usage counts tokens of one invocation.
type Usage struct {
	Input, Output int64
	Cached        *int64
}

// Response is a provider's answer.
type Response struct {
	// Text is the final answer. When OutputMessages is set, Text is the content of the last
	// assistant message (see Candidate).
	Text           string
	OutputMessages []suite.Message
	Usage          *Usage
	CostUSD        *float64
	DurationMS     *float64
	// Error is a problem the provider reported alongside an answer (e.g. a batch line missing):
	// the case is still scored but the record carries the error.
	Error string
	// Metadata holds provider details that are not the answer, nil if none. A vscode target with
	// dry_run returns its prompt document here (key "prompt_document") with an empty Text.
	Metadata map[string]any
}

// Provider answers requests for one target; Invoke must return promptly when ctx is done.
type Provider interface {
	Target() *targets.Target
	Invoke(ctx context.Context, req *Request) (*Response, error)
}

// BatchProvider is a Provider that can answer many requests in one call. Responses are in
// request order; a missing answer is a Response with Error set.
type BatchProvider interface {
	Provider
	InvokeBatch(ctx context.Context, reqs []*Request) ([]*Response, error)
}

// HealthChecker is a Provider with a probe that must pass before its first request.
type HealthChecker interface {
	HealthCheck(ctx context.Context) error
}

// ModeOf returns the formatting mode of a provider kind.
func ModeOf(kind string) Mode {
	switch kind {
	case targets.KindCLI, targets.KindCodex, targets.KindClaude, targets.KindVSCode, targets.KindVSCodeInsiders:
		return ModeAgent
	}
	return ModeLM
}

type ctxKey int

const (
	evalIDKey ctxKey = iota
	evalDirKey
	agentRulesKey
)

func ctxValue[T any](ctx context.Context, key ctxKey) T {
	v, _ := ctx.Value(key).(T)
	return v
}

// WithEvalID names the case an invocation is for, so logs from deep inside a provider
// (retries) can say which case they belong to.
func WithEvalID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, evalIDKey, id)
}

// EvalIDFrom returns the case id set by WithEvalID, or "".
func EvalIDFrom(ctx context.Context) string { return ctxValue[string](ctx, evalIDKey) }

// WithEvalDir names the eval file directory a healthcheck runs for: a cli target resolves a
// relative cwd against it, as AgentV 2.5 and 4.x do (one provider serves every eval file that
// names the target, so the directory travels with the call).
func WithEvalDir(ctx context.Context, dir string) context.Context {
	return context.WithValue(ctx, evalDirKey, dir)
}

// WithAgentRules holds the agent rules of the eval files a healthcheck runs for: a claude or
// codex target resolves a relative cwd by them.
func WithAgentRules(ctx context.Context, rules suite.AgentRules) context.Context {
	return context.WithValue(ctx, agentRulesKey, rules)
}

// textAnswer is a plain-text answer as one assistant message, so judges see output_messages
// as for any other provider.
func textAnswer(text string) []suite.Message {
	return []suite.Message{{Role: suite.RoleAssistant, Content: suite.Content{Kind: suite.ContentText, Text: text}}}
}

// targetCost is the cost of u at t's price (the user's own rate wins over any estimate), nil
// without a price or usage.
func targetCost(t *targets.Target, u *Usage) *float64 {
	if t.Price == nil || u == nil {
		return nil
	}
	c := t.Price.Cost(u.Input, u.Output)
	return &c
}

// UniqueFiles keeps the first of each path, in order: a request's Files, or a batch's, name
// each file once.
func UniqueFiles(paths []string) []string {
	out := make([]string, 0, len(paths))
	seen := make(map[string]bool, len(paths))
	for _, p := range paths {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}
