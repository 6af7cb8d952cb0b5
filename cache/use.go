package cache

import (
	"context"
	"sync"

	"github.com/agentv/action/providers"
	"github.com/agentv/action/results"
)

// Use counts one case's calls through the cache (its target's and its judges').
type Use struct {
	mu     sync.Mutex
	hits   int
	misses int
	tokens int64
}

type useKey struct{}

// batched holds whether the answers of batch calls came from the cache, until their cases
// take them (Batched).
var batched sync.Map // *providers.Response → bool

// Batched counts, in ctx's Use, the cache use of a case's answer that came from a batch call.
func Batched(ctx context.Context, resp *providers.Response) {
	v, ok := batched.LoadAndDelete(resp)
	if !ok {
		return
	}
	if u := useOf(ctx); u != nil {
		u.add(v.(bool), resp)
	}
}

// Track returns a context whose cached calls are counted in the returned Use.
func Track(ctx context.Context) (context.Context, *Use) {
	u := &Use{}
	return context.WithValue(ctx, useKey{}, u), u
}

func useOf(ctx context.Context) *Use {
	u, _ := ctx.Value(useKey{}).(*Use)
	return u
}

// add counts a call; a hit saved the tokens of resp.
func (u *Use) add(hit bool, resp *providers.Response) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if hit {
		u.hits++
		if resp.Usage != nil {
			u.tokens += resp.Usage.Input + resp.Usage.Output
		}
	} else {

		u.misses++
	}
}

// Record returns what the case's record says of the cache, nil when no call went through it.
func (u *Use) Record() *results.CacheUse {
	if u == nil {
		return nil
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.hits+u.misses == 0 {
		return nil
	}
	return &results.CacheUse{Hits: u.hits, Misses: u.misses, TokensSaved: u.tokens}
}

// Accept says whether a caller uses an answer: a target's answer without an error, a judge
// reply that holds a verdict its evaluator can read.
type Accept func(*providers.Response) bool

type acceptKey struct{}

type bypassKey struct{}

// WithAccept returns a context whose cached calls store, and take from the cache, only an
// answer accept takes. Without an accept nothing is stored.
func WithAccept(ctx context.Context, accept Accept) context.Context {
	return context.WithValue(ctx, acceptKey{}, accept)
}

func acceptOf(ctx context.Context) Accept {
	a, _ := ctx.Value(acceptKey{}).(Accept)
	return a
}

// Bypass returns a context whose calls go straight to the provider, uncounted: a code
// judge's script that asks the same question three times wants three answers.
func Bypass(ctx context.Context) context.Context {
	return context.WithValue(ctx, bypassKey{}, true)
}

func bypassed(ctx context.Context) bool {
	b, _ := ctx.Value(bypassKey{}).(bool)
	return b
}
