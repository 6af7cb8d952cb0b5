package forkserver

import (
	"context"
	"crypto/sha256"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/agentv/action/internal/proc"
)

const supported = true

// maxFailures is how many calls in a row a (interpreter, environment) may fail to serve
// before its calls are only spawned: a python too old for the server (3.9+) must not cost a
// server start per call.
const maxFailures = 3

// Pool holds the servers, at most max of them; the least recently used idle one makes room.
type Pool struct {
	mu       sync.Mutex
	max      int
	servers  map[[32]byte]*server
	failures map[[32]byte]int
	tick     uint64
	// Preimport names modules each new server imports before it forks (a measurement knob).
	Preimport []string
}

// NewPool returns a pool of at most max servers.
func NewPool(max int) *Pool {
	return &Pool{max: max, servers: map[[32]byte]*server{}, failures: map[[32]byte]int{}}
}

// Run runs c from a server of c's interpreter and environment, else spawns it.
func (p *Pool) Run(ctx context.Context, c proc.Cmd) (*proc.Result, error) {
	if c.StdoutTee != nil || !scriptOK(c) {
		return proc.Run(ctx, c)
	}
	// Where exec.Cmd looks: a relative path with a slash is relative to Dir, a bare name on PATH.
	name := c.Argv[0]
	if strings.Contains(name, "/") && !filepath.IsAbs(name) && c.Dir != "" {
		name = filepath.Join(c.Dir, name)
	}
	interp, err := exec.LookPath(name)
	if err != nil {
		return proc.Run(ctx, c)
	}
	if c.Env == nil {
		c.Env = os.Environ()
	}
	k := key(interp, c.Env)
	s := p.acquire(k, interp, c.Env)
	if s == nil {
		return proc.Run(ctx, c)
	}
	res, err, served := s.call(ctx, c)
	p.release(k, s, served)
	if !served {
		return proc.Run(ctx, c)
	}
	return res, err
}

// key names a server: its interpreter and its whole environment, in order (a server never
// serves two environments).
func key(interp string, env []string) [32]byte {
	h := sha256.New()
	h.Write([]byte(interp))
	for _, kv := range env {
		h.Write([]byte{0})
		h.Write([]byte(kv))
	}
	var k [32]byte
	h.Sum(k[:0])
	return k
}

// acquire returns a live server for k with one more call in flight, starting one if needed;
// nil when k keeps failing or the pool is full of busy servers.
func (p *Pool) acquire(k [32]byte, interp string, env []string) *server {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.failures[k] >= maxFailures {
		return nil
	}
	p.tick++
	if s := p.servers[k]; s != nil && !s.isDead() {
		s.busy++
		s.used = p.tick
		return s
	} else if s != nil {
		s.stop()
		delete(p.servers, k)
	}
	if len(p.servers) >= p.max && !p.evict() {
		return nil
	}
	s, err := startServer(interp, slices.Clone(env), p.Preimport)
	if err != nil {
		p.failures[k]++
		return nil
	}
	s.busy, s.used = 1, p.tick
	p.servers[k] = s
	return s
}

// evict stops the least recently used idle server; false when every server is busy.
func (p *Pool) evict() bool {
	var oldK [32]byte
	var old *server
	for k, s := range p.servers {
		if s.busy == 0 && (old == nil || s.used < old.used) {
			oldK, old = k, s
		}
	}
	if old == nil {
		return false
	}
	old.stop()
	delete(p.servers, oldK)
	return true
}

func (p *Pool) release(k [32]byte, s *server, served bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	s.busy--
	if served {
		p.failures[k] = 0
		return
	}
	p.failures[k]++
	s.markDead()
	if p.servers[k] == s {
		delete(p.servers, k)
	}
	if s.busy == 0 {
		s.stop()
	}
}

// Close stops every server (their running children go on until their calls end).
func (p *Pool) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for k, s := range p.servers {
		s.stop()
		delete(p.servers, k)
	}
}
