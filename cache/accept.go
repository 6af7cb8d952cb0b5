package cache

import (
	"context"

	"github.com/agentv/action/providers"
)

// Accept says whether a caller uses an answer: a target's answer without an error, a judge
// reply that holds a verdict its evaluator can read.
type Accept func(*providers.Response) bool

type acceptKey struct{}

type bypassKey struct{}

// WithAccept returns a context whose cached calls store an answer only when accept takes it,
// and take a stored answer only when accept takes it too (an entry the caller would reject
// is a miss, so a re-ask reaches the provider). Without an accept, nothing is stored: the
// cache keeps only what some caller said it used.
func WithAccept(ctx context.Context, accept Accept) context.Context {
	return context.WithValue(ctx, acceptKey{}, accept)
}

func acceptOf(ctx context.Context) Accept {
	a, _ := ctx.Value(acceptKey{}).(Accept)
	return a
}

// Bypass returns a context whose calls go straight to the provider: neither answered from the
// cache nor stored nor counted. A code judge's target proxy uses it: a script that asks the
// same question three times wants three answers.
func Bypass(ctx context.Context) context.Context {
	return context.WithValue(ctx, bypassKey{}, true)
}

func bypassed(ctx context.Context) bool {
	b, _ := ctx.Value(bypassKey{}).(bool)
	return b
}
