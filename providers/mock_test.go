package providers

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentv/action/suite"
	"github.com/agentv/action/targets"
)

// mockTarget builds a mock target from settings as targets.Load would store them.
func mockTarget(settings map[string]any) *targets.Target {
	t := &targets.Target{Name: "m", Kind: targets.KindMock, Provider: "mock", Settings: map[string]*targets.Setting{}}
	for k, v := range settings {
		t.Settings[targets.SnakeCase(k)] = &targets.Setting{Key: k, Value: v}
	}
	return t
}

func TestMockResponses(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		settings map[string]any
		want     string
	}{
		{"default", nil, `{"answer":"Mock dry-run response"}`},
		{"string", map[string]any{"response": "hello"}, "hello"},
		{"map as json", map[string]any{"response": map[string]any{"answer": "<b>"}}, `{"answer":"<b>"}`},
		{"small delay", map[string]any{"delayMs": 1}, MockAnswer},
		{"random delay", map[string]any{"delay_min_ms": 0, "delay_max_ms": 2}, MockAnswer},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, warns, err := New(mockTarget(tc.settings), Options{})
			if err != nil || len(warns) > 0 {
				t.Fatalf("New: %v %v", err, warns)
			}
			resp, err := p.Invoke(t.Context(), &Request{EvalID: "x", SystemPrompt: "judge me"})
			if err != nil {
				t.Fatal(err)
			}
			if resp.Text != tc.want {
				t.Errorf("text %q, want %q", resp.Text, tc.want)
			}
			want := []suite.Message{{Role: suite.RoleAssistant, Content: suite.Content{Kind: suite.ContentText, Text: tc.want}}}
			if diff := cmp.Diff(want, resp.OutputMessages); diff != "" {
				t.Errorf("output messages (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMockSettingErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		settings map[string]any
		want     string
	}{
		{"negative", map[string]any{"delay_ms": -1}, "delay_ms: want a number of milliseconds >= 0"},
		{"not a number", map[string]any{"delay_ms": "soon"}, `delay_ms: want a number, got "soon"`},
		{"both forms", map[string]any{"delay_ms": 1, "delay_max_ms": 2}, "set either delay_ms or delay_min_ms..delay_max_ms"},
		{"min without max", map[string]any{"delay_min_ms": 5}, "needs delay_max_ms"},
		{"max below min", map[string]any{"delay_min_ms": 5, "delay_max_ms": 1}, "must be at least delay_min_ms (5)"},
		{"response list of maps ok, number not", map[string]any{"response": []any{1}, "delay_ms": 1.5}, "want a whole number"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, _, err := New(mockTarget(tc.settings), Options{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestMockUnknownSettingWarns(t *testing.T) {
	t.Parallel()
	_, warns, err := New(mockTarget(map[string]any{"respnse": "typo", "workers": 2}), Options{})
	if err != nil || len(warns) != 1 || !strings.Contains(warns[0].Message, `"respnse"`) {
		t.Errorf("warns %v err %v", warns, err)
	}
}

// TestMockHonoursCancellation: a long delay ends when ctx does, and not before.
func TestMockHonoursCancellation(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		p, _, err := New(mockTarget(map[string]any{"delay_ms": 600000}), Options{})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(t.Context())
		go func() { time.Sleep(10 * time.Millisecond); cancel() }()
		resp, err := p.Invoke(ctx, &Request{})
		if ctx.Err() == nil {
			t.Fatal("returned before ctx was done")
		}
		if !errors.Is(err, context.Canceled) || resp != nil {
			t.Errorf("resp %v err %v", resp, err)
		}
		// A deadline shows as one too (the runner retries timeouts).
		ctx, cancel2 := context.WithTimeout(t.Context(), 5*time.Millisecond)
		defer cancel2()
		if _, err := p.Invoke(ctx, &Request{}); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("err %v, want DeadlineExceeded", err)
		}
	})
}

func TestDryRun(t *testing.T) {
	t.Parallel()
	target := &targets.Target{Name: "prod", Kind: targets.KindOpenAI}
	p := DryRun(target, 0, 2*time.Millisecond, time.Millisecond)
	if p.Target() != target {
		t.Error("Target() is not the original target")
	}
	resp, err := p.Invoke(t.Context(), &Request{Question: "q"})
	if err != nil || resp.Text != `{"answer":"Mock dry-run response"}` {
		t.Errorf("agent answer %+v %v", resp, err)
	}
	resp, err = p.Invoke(t.Context(), &Request{Question: "grade", SystemPrompt: "return JSON"})
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Score  float64  `json:"score"`
		Hits   []string `json:"hits"`
		Misses []string `json:"misses"`
	}
	if err := json.Unmarshal([]byte(resp.Text), &v); err != nil || v.Score != 1 || len(v.Hits) != 1 || v.Misses == nil {
		t.Errorf("judge answer %q: %+v %v", resp.Text, v, err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := DryRun(target, time.Hour, 0, 0).Invoke(ctx, &Request{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled dry run: %v", err)
	}
}
