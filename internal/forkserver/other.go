//go:build !linux

package forkserver

import (
	"context"

	"github.com/agentv/action/internal/proc"
)

// supported is false where the server's descriptor passing and process groups are not
// available as on Linux (Windows, and others untested): every call is spawned.
const supported = false

// Pool is a stand-in that spawns every call.
type Pool struct {
	Preimport []string // unused here
}

func NewPool(int) *Pool { return &Pool{} }

func (*Pool) Run(ctx context.Context, c proc.Cmd) (*proc.Result, error) { return proc.Run(ctx, c) }

func (*Pool) Close() {}
