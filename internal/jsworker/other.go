//go:build !unix

package jsworker

import (
	"context"

	"github.com/agentv/action/internal/proc"
)

// Pool is a stand-in that spawns every call.
type Pool struct {
	MaxCalls int // unused here
}

func NewPool(int) *Pool { return &Pool{} }

var Default = NewPool(0)

func (*Pool) Run(ctx context.Context, c proc.Cmd) (*proc.Result, error) { return proc.Run(ctx, c) }

func (*Pool) Starts() int { return 0 }

func (*Pool) Served() int { return 0 }

func (*Pool) Close() {}
