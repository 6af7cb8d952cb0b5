package providers

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestCallContextDeadline(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		wait func(ctx context.Context) // how the provider notices the deadline
	}{
		{"Done", func(ctx context.Context) { <-ctx.Done() }},
		{"Err polled", func(ctx context.Context) {
			for ctx.Err() == nil {
				time.Sleep(time.Millisecond)
			}
		}},
		{"child context", func(ctx context.Context) {
			child, cancel := context.WithCancel(ctx)
			defer cancel()
			<-child.Done()
			if !errors.Is(child.Err(), context.DeadlineExceeded) {
				t.Errorf("child Err = %v", child.Err())
			}
		}},
		{"AfterFunc", func(ctx context.Context) {
			done := make(chan struct{})
			context.AfterFunc(ctx, func() { close(done) })
			<-done
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := CallContext(t.Context(), "case-1", 20*time.Millisecond)
			defer ctx.Release()
			if d, ok := ctx.Deadline(); !ok || time.Until(d) > 20*time.Millisecond {
				t.Errorf("Deadline = %v, %v", d, ok)
			}
			tt.wait(ctx)
			if err := ctx.Err(); !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("Err = %v, want deadline exceeded", err)
			}
			select {
			case <-ctx.Done():
			default:
				t.Error("Done not closed after the deadline")
			}
			if cause := context.Cause(ctx); !errors.Is(cause, context.DeadlineExceeded) {
				t.Errorf("Cause = %v", cause)
			}
			if id := EvalIDFrom(ctx); id != "case-1" {
				t.Errorf("EvalIDFrom = %q", id)
			}
		})
	}
}

func TestCallContextRelease(t *testing.T) {
	t.Parallel()
	for _, armed := range []bool{false, true} {
		ctx := CallContext(t.Context(), "", time.Hour)
		release := ctx.Release
		if armed {
			_ = ctx.Done()
		}
		if err := ctx.Err(); err != nil {
			t.Fatalf("armed=%v: Err before release = %v", armed, err)
		}
		release()
		release() // idempotent
		if err := ctx.Err(); !errors.Is(err, context.Canceled) {
			t.Errorf("armed=%v: Err after release = %v", armed, err)
		}
		select {
		case <-ctx.Done():
		case <-time.After(5 * time.Second):
			t.Errorf("armed=%v: Done not closed after release", armed)
		}
		if id := EvalIDFrom(ctx); id != "" {
			t.Errorf("EvalIDFrom = %q, want none", id)
		}
	}
}

func TestCallContextParent(t *testing.T) {
	t.Parallel()
	type key struct{}
	parent, cancel := context.WithCancel(context.WithValue(t.Context(), key{}, "v"))
	ctx := CallContext(parent, "id", 0)
	defer ctx.Release()
	if _, ok := ctx.Deadline(); ok {
		t.Error("a zero timeout set a deadline")
	}
	if v := ctx.Value(key{}); v != "v" {
		t.Errorf("parent value = %v", v)
	}
	cancel()
	<-ctx.Done()
	if err := ctx.Err(); !errors.Is(err, context.Canceled) {
		t.Errorf("Err = %v, want the parent's cancellation", err)
	}

	// A parent deadline earlier than the timeout wins.
	early, cancelEarly := context.WithTimeout(t.Context(), time.Millisecond)
	defer cancelEarly()
	ctx = CallContext(early, "", time.Hour)
	defer ctx.Release()
	if d, _ := ctx.Deadline(); time.Until(d) > time.Second {
		t.Errorf("Deadline = %v, want the parent's", d)
	}
	<-early.Done()
	if err := ctx.Err(); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Err = %v after the parent's deadline", err)
	}
}

// A mock waiting out a delay longer than the timeout returns at the deadline.
func TestMockReturnsOnCancel(t *testing.T) {
	t.Parallel()
	p := &mockProvider{target: &Target{Name: "m"}, delay: time.Hour}
	if !ReturnsOnCancel(p) {
		t.Fatal("mock does not report ReturnsOnCancel")
	}
	ctx := CallContext(t.Context(), "", 10*time.Millisecond)
	defer ctx.Release()
	if _, err := p.Invoke(ctx, &Request{}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Invoke error = %v", err)
	}
}

// BenchmarkCallContext compares a call context that nobody waits on with the
// context.WithTimeout + WithEvalID pair it replaces.
func BenchmarkCallContext(b *testing.B) {
	ctx := context.Background()
	b.Run("CallContext", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			c := CallContext(ctx, "case-1", time.Minute)
			_ = c.Err()
			c.Release()
		}
	})
	b.Run("WithTimeout", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			c, cancel := context.WithTimeout(WithEvalID(ctx, "case-1"), time.Minute)
			_ = c.Err()
			cancel()
		}
	})
}
