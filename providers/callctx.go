package providers

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// CallContext returns the context of one target or judge invocation: ctx, naming the case
// (EvalIDFrom; "" names none) and ending timeout from now (timeout <= 0: only when ctx ends).
// Release must be called when the invocation is over; the context then reports Canceled.
//
// It behaves as context.WithTimeout(WithEvalID(ctx, id), timeout), but the timer behind the
// deadline is only armed when something needs to be woken by it: Done, or any Value lookup
// other than the case id (the context package finds its parent cancel context that way).
// Err compares the clock with the deadline. A provider that answers without blocking (the
// mock) thus costs one allocation, no timer and no goroutine.
func CallContext(ctx context.Context, evalID string, timeout time.Duration) *CallCtx {
	c := &CallCtx{parent: ctx, evalID: evalID}
	if timeout > 0 {
		c.deadline = time.Now().Add(timeout)
		c.hasDeadline = true
	}
	return c
}

// CallCtx is CallContext's context. Until armed it answers Err, Deadline and the case id
// itself; armed holds the real context (with its timer) once something waits on it.
type CallCtx struct {
	parent      context.Context
	evalID      string
	deadline    time.Time
	hasDeadline bool

	mu       sync.Mutex // arming and releasing
	armed    atomic.Pointer[armedCtx]
	released atomic.Bool
}

type armedCtx struct {
	ctx    context.Context
	cancel context.CancelFunc
}

func (c *CallCtx) Deadline() (time.Time, bool) {
	pd, pok := c.parent.Deadline()
	switch {
	case !c.hasDeadline:
		return pd, pok
	case pok && pd.Before(c.deadline):
		return pd, true
	}
	return c.deadline, true
}

func (c *CallCtx) Done() <-chan struct{} { return c.arm().Done() }

func (c *CallCtx) Err() error {
	if a := c.armed.Load(); a != nil {
		return a.ctx.Err()
	}
	if err := c.parent.Err(); err != nil {
		return err
	}
	if c.released.Load() {
		return context.Canceled
	}
	if c.hasDeadline && !time.Now().Before(c.deadline) {
		return context.DeadlineExceeded
	}
	return nil
}

func (c *CallCtx) Value(key any) any {
	if _, ok := key.(evalIDKey); ok {
		return c.evalID
	}
	return c.arm().Value(key)
}

// arm returns the real context, creating it on first use: a context already past its
// deadline or released is born done, so the answers of Err stay the same once armed.
func (c *CallCtx) arm() context.Context {
	if a := c.armed.Load(); a != nil {
		return a.ctx
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if a := c.armed.Load(); a != nil {
		return a.ctx
	}
	a := &armedCtx{}
	if c.hasDeadline {
		a.ctx, a.cancel = context.WithDeadline(c.parent, c.deadline)
	} else {
		a.ctx, a.cancel = context.WithCancel(c.parent)
	}
	if c.released.Load() {
		a.cancel()
	}
	c.armed.Store(a)
	return a.ctx
}

// Release ends the call: the context reports Canceled from now on.
func (c *CallCtx) Release() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.released.Store(true)
	if a := c.armed.Load(); a != nil {
		a.cancel()
	}
}

// ReturnsOnCancel reports whether p is known to return from Invoke as soon as its context
// ends, so a caller may call it directly instead of guarding the call with a goroutine that
// gives up at the deadline. Only providers of this package can say so (the mock does).
func ReturnsOnCancel(p Provider) bool {
	_, ok := p.(interface{ returnsOnCancel() })
	return ok
}

// returnsOnCancel: the mock checks its context before answering and waits on Done.
func (m *mockProvider) returnsOnCancel() {}
