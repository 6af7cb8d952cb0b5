package cache

import (
	"context"
	"sync"

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
