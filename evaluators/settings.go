package evaluators

import (
	"encoding/json"
	"fmt"
	"math"
	"sync"

	"github.com/agentv/action/suite"
)

// settings decodes the keys of an evaluator entry (spec.Settings) for the types the loader
// does not model. Spelling alternatives (snake_case first, then camelCase) are tried in order.
type settings map[string]json.RawMessage

func settingsOf(spec *suite.EvaluatorSpec) (settings, error) {
	if isNull(spec.Settings) {
		return settings{}, nil
	}
	var s settings
	if err := json.Unmarshal(spec.Settings, &s); err != nil {
		return nil, fmt.Errorf("evaluator settings are not a JSON object: %w", err)
	}
	return s, nil
}

// raw returns the first present, non-null key.
func (s settings) raw(keys ...string) (json.RawMessage, string) {
	for _, k := range keys {
		if v, ok := s[k]; ok && !isNull(v) {
			return v, k
		}
	}
	return nil, ""
}

// number returns a finite, non-negative number setting.
func (s settings) number(keys ...string) (float64, bool, error) {
	v, k := s.raw(keys...)
	if v == nil {
		return 0, false, nil
	}
	var f float64
	if err := json.Unmarshal(v, &f); err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
		return 0, true, fmt.Errorf("`%s` must be a number >= 0, got %s", k, v)
	}
	return f, true, nil
}

// decode unmarshals a setting into dst.
func (s settings) decode(dst any, keys ...string) (bool, error) {
	v, k := s.raw(keys...)
	if v == nil {
		return false, nil
	}
	if err := json.Unmarshal(v, dst); err != nil {
		return true, fmt.Errorf("`%s`: %v", k, err)
	}
	return true, nil
}

// parsedCache memoizes parsed settings by their JSON text: suites share evaluator entries
// across many cases, and in-process evaluators must stay cheap (CONTRACT §8). It is cleared
// when full so per-case settings of a streamed JSONL suite cannot grow it without bound.
type parsedCache struct {
	mu sync.Mutex
	m  map[string]any
}

const parsedCacheMax = 256

func (c *parsedCache) get(key string, parse func() (any, error)) (any, error) {
	c.mu.Lock()
	v, ok := c.m[key]
	c.mu.Unlock()
	if ok {
		if err, isErr := v.(error); isErr {
			return nil, err
		}
		return v, nil
	}
	v, err := parse()
	c.mu.Lock()
	if c.m == nil || len(c.m) >= parsedCacheMax {
		c.m = map[string]any{}
	}
	if err != nil {
		c.m[key] = err
	} else {
		c.m[key] = v
	}
	c.mu.Unlock()
	return v, err
}
