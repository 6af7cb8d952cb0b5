package providers

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/agentv/action/internal/retry"
	"github.com/agentv/action/targets"
)

// MockAnswer is AgentV's canned mock and dry-run answer.
const MockAnswer = `{"answer":"Mock dry-run response"}`

func init() { register(targets.KindMock, newMock) }

// mockProvider answers every request with a fixed response after an optional delay,
// without any network. The dry-run mock also answers judge requests with a verdict.
type mockProvider struct {
	target   *targets.Target
	response string
	delay    time.Duration // fixed delay; used when delayMax is 0
	delayMin time.Duration
	delayMax time.Duration // > 0: a random delay in [delayMin, delayMax]
	judge    bool          // answer requests with a SystemPrompt (judge calls) with mockVerdict
}

// mockVerdict is a valid LLM-judge verdict of score 1 (dry run: the pipeline runs end to end).
const mockVerdict = `{"score":1,"hits":["dry run"],"misses":[],"reasoning":"dry-run judge"}`

// newMock reads `response` (a string; a map or list is sent as JSON), `delay_ms`, or
// `delay_min_ms`..`delay_max_ms` for a random delay.
func newMock(t *targets.Target, _ Options) (Provider, error) {
	m := &mockProvider{target: t, response: MockAnswer}
	if s, ok := t.Raw("response"); ok {
		switch v := s.Value.(type) {
		case map[string]any, []any:
			var b bytes.Buffer
			enc := json.NewEncoder(&b)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(v); err != nil {
				return nil, t.Error("response", "cannot encode as JSON: %v", err)
			}
			m.response = strings.TrimSuffix(b.String(), "\n")
		default:
			r, _, err := t.String("response")
			if err != nil {
				return nil, err
			}
			m.response = r
		}
	}
	r := &targets.Reader{T: t}
	ms := func(key string) (time.Duration, bool) {
		v, ok := r.Int(key)
		if v < 0 {
			r.Fail(key, "want a number of milliseconds >= 0, got %d", v)
		}
		return time.Duration(v) * time.Millisecond, ok
	}
	var hasDelay, hasMin, hasMax bool
	m.delay, hasDelay = ms("delay_ms")
	m.delayMin, hasMin = ms("delay_min_ms")
	m.delayMax, hasMax = ms("delay_max_ms")
	if r.Err != nil {
		return nil, r.Err
	}
	switch {
	case hasDelay && (hasMin || hasMax):
		return nil, t.Error("delay_ms", "set either delay_ms or delay_min_ms..delay_max_ms, not both")
	case hasMin && !hasMax:
		return nil, t.Error("delay_min_ms", "needs delay_max_ms too (a random delay in delay_min_ms..delay_max_ms)")
	case m.delayMax < m.delayMin:
		return nil, t.Error("delay_max_ms", "must be at least delay_min_ms (%d)", m.delayMin.Milliseconds())
	}
	return m, nil
}

// DryRun returns a mock standing in for t (`--dry-run`): agent requests get
// MockAnswer and judge requests (those with a SystemPrompt) a valid verdict of score 1, so
// the whole pipeline, code judges included, runs without a network. Each request waits
// delay, or a random time in [delayMin, delayMax] when delayMax > 0.
func DryRun(t *targets.Target, delay, delayMin, delayMax time.Duration) Provider {
	if delayMax < delayMin {
		delayMin, delayMax = delayMax, delayMin
	}
	return &mockProvider{target: t, response: MockAnswer, delay: delay, delayMin: max(delayMin, 0), delayMax: delayMax, judge: true}
}

func (m *mockProvider) Target() *targets.Target { return m.target }

// Invoke waits for the delay (returning early with ctx's error when ctx ends first) and answers.
func (m *mockProvider) Invoke(ctx context.Context, req *Request) (*Response, error) {
	d := m.delay
	if m.delayMax > 0 {
		d = m.delayMin + time.Duration(rand.Int64N(int64(m.delayMax-m.delayMin)+1))
	}
	err := ctx.Err()
	if err == nil && d > 0 {
		err = retry.Wait(ctx, d)
	}
	if err != nil {
		return nil, fmt.Errorf("mock target %q: %w", m.target.Name, err)
	}
	if m.judge && req != nil && req.SystemPrompt != "" {
		return &Response{Text: mockVerdict}, nil
	}
	return &Response{Text: m.response, OutputMessages: textAnswer(m.response)}, nil
}
