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

// batched holds the answers of batch calls that went through the cache until their cases
// take them (Batched): whether each came from the cache.
var batched sync.Map // *providers.Response → bool

// Batched counts, in ctx's Use, the cache use of a case's answer that came from a batch call.
func Batched(ctx context.Context, resp *providers.Response) {
	v, ok := batched.LoadAndDelete(resp)
	if !ok {
		return
	}
	if u := useOf(ctx); u != nil {
		var tokens int64
		if hit := v.(bool); hit && resp.Usage != nil {
			tokens = resp.Usage.Input + resp.Usage.Output
		}
		u.add(v.(bool), tokens)
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

func (u *Use) add(hit bool, tokens int64) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if hit {
		u.hits++
		u.tokens += tokens
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
