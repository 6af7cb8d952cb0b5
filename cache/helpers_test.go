package cache

import (
	"github.com/agentv/action/providers"
	"github.com/agentv/action/targets"
)

// Key is the cache key of req sent to t as trial trial, as a new run's store computes it.
func Key(t *targets.Target, req *providers.Request, trial int) (string, bool) {
	return (&hasher{}).key(t, req, trial)
}
