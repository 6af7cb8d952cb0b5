// Package cache answers provider calls from earlier runs: a response cache on disk, keyed by
// everything that decides an answer, wrapped around the providers of targets and LLM judges.
//
// Only answers their caller accepted are stored (WithAccept). Entries are renamed into place,
// so runs sharing a directory see whole entries or none; an entry that does not read back
// whole is a miss, never an error.
package cache

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/agentv/action/internal/atomicfile"
	"github.com/agentv/action/internal/redact"
	"github.com/agentv/action/internal/safefile"
	"github.com/agentv/action/providers"
	"github.com/agentv/action/targets"
)

// Mode is how a run uses the cache.
type Mode string

// Cache modes.
const (
	ReadWrite Mode = "read-write" // answer from the cache and store new answers
	ReadOnly  Mode = "read-only"  // answer from the cache, store nothing
	Off       Mode = "off"
)

// Options configure a Store.
type Options struct {
	Dir     string
	Mode    Mode
	Verbose bool                             // log each miss
	Logf    func(format string, args ...any) // misses (Verbose) and the warning of a failed write
	// Base is the folder (the checkout) below which no folder down to an entry may be a
	// symbolic link, Dir's parents included: a committed link would take reads and writes
	// (and, in the Action, a change of owner) outside it. "" or a Dir outside Base checks Dir
	// and below only.
	Base string
	// Redactor holds the run's secrets: an answer that contains one is not stored, since a
	// later run (with the secret rotated) would replay it unmasked.
	Redactor *redact.Redactor
}

// Store is the cache of one run.
type Store struct {
	opts     Options
	hash     *hasher
	warnOnce sync.Once
	warning  atomic.Pointer[string]
}

// Open returns the store of a run; nil when the mode is off.
func Open(opts Options) *Store {
	if opts.Mode == Off || opts.Mode == "" {
		return nil
	}
	if opts.Logf == nil {
		opts.Logf = func(string, ...any) {}
	}
	return &Store{opts: opts, hash: &hasher{}}
}

// Warning returns why the run's answers could not be stored, "" when nothing went wrong.
func (s *Store) Warning() string {
	if s == nil {
		return ""
	}
	if w := s.warning.Load(); w != nil {
		return *w
	}
	return ""
}

// cacheableKinds use the cache unless a target says `cache: false`: their answer depends only
// on the request. Agent providers may read files the key does not see: only `cache: true`.
var cacheableKinds = map[string]bool{
	targets.KindOpenAI: true, targets.KindAzure: true, targets.KindAnthropic: true,
	targets.KindGemini: true, targets.KindMock: true,
}

// Wrap returns p answering from the cache, or p itself when its target does not use it.
func (s *Store) Wrap(p providers.Provider) (providers.Provider, error) {
	t := p.Target()
	if s == nil || t == nil {
		return p, nil
	}
	use := cacheableKinds[t.Kind]
	if v, ok, err := t.Bool("cache"); err != nil {
		return nil, err
	} else if ok {
		use = v
	}
	if !use {
		return p, nil
	}
	c := &cached{store: s, p: p}
	if bp, ok := p.(providers.BatchProvider); ok {
		return &cachedBatch{c, bp}, nil
	}
	return c, nil
}

// path is where the entry of key lives: two levels, so no folder grows too large.
func (s *Store) path(key string) string {
	return filepath.Join(s.opts.Dir, fmt.Sprintf("v%d", keyVersion), key[:2], key+".json")
}

// entryLimit bounds an entry file read back: a larger file, or a device or FIFO, is a miss.
const entryLimit = 64 << 20

// lookup returns the stored answer of key, nil on a miss.
func (s *Store) lookup(key string) *providers.Response {
	p := s.path(key)
	if s.linkOnPath(p) != nil {
		return nil
	}
	b, err := safefile.ReadFile(p, entryLimit)
	if err != nil {
		return nil
	}
	return decodeEntry(b, key)
}

// linkOnPath returns an error when any folder or file from below Base (see Options) down to
// p is a symbolic link or not what it should be.
func (s *Store) linkOnPath(p string) error {
	top := s.top()
	rel, err := filepath.Rel(top, p)
	if err != nil {
		return err
	}
	return safefile.WalkDown(top, rel, func(d string, fi fs.FileInfo) error {
		if fi.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("%s is a symbolic link, which the cache does not follow", d)
		}
		if d != p && !fi.IsDir() {
			return fmt.Errorf("%s is %s, not a folder", d, safefile.Describe(fi.Mode()))
		}
		return nil
	})
}

// top is where linkOnPath starts: Base when it holds the cache folder, else its parent.
func (s *Store) top() string {
	dir := filepath.Clean(s.opts.Dir)
	if b := s.opts.Base; b != "" {
		b = filepath.Clean(b)
		if rel, err := filepath.Rel(b, dir); err == nil && rel != "." && filepath.IsLocal(rel) {
			return b
		}
	}
	return filepath.Dir(dir)
}

// store writes the answer of key unless read-only; a failed write is warned about once.
func (s *Store) store(key string, resp *providers.Response) {
	if s.opts.Mode != ReadWrite {
		return
	}
	b, err := encodeEntry(key, resp)
	if err == nil && s.opts.Redactor != nil && !bytes.Equal(s.opts.Redactor.Bytes(b), b) {
		if s.opts.Verbose {
			s.opts.Logf("cache: an answer (key %s) holds a secret and is not stored", key[:12])
		}
		return
	}
	if err == nil {
		err = s.writeAtomic(s.path(key), b)
	}
	if err != nil {
		s.warnOnce.Do(func() {
			msg := fmt.Sprintf("response cache %s cannot be written, answers of this run are not stored: %v", s.opts.Dir, err)
			s.warning.Store(&msg)
			s.opts.Logf("warning: %s", msg)
		})
	}
}

// writeAtomic writes b to path under a temporary name renamed into place, making the folders
// on the way one by one, none of them a symbolic link.
func (s *Store) writeAtomic(path string, b []byte) error {
	dir := filepath.Dir(path)
	top := s.top()
	if err := os.MkdirAll(top, 0o755); err != nil {
		return err
	}
	rel, err := filepath.Rel(top, dir)
	if err != nil {
		return err
	}
	d := top
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		d = filepath.Join(d, part)
		if err := s.linkOnPath(d); err != nil {
			return err
		}
		if err := os.Mkdir(d, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
	}
	if err := s.linkOnPath(path); err != nil {
		return err
	}
	// Entries are cheap to write again: no sync. A rename replaces a link at path instead of following it.
	return atomicfile.Replace(path, b)
}

// cached is a provider answering from the store first.
type cached struct {
	store *Store
	p     providers.Provider
}

var _ providers.HealthChecker = (*cached)(nil)

func (c *cached) Target() *targets.Target { return c.p.Target() }

// HealthCheck runs the wrapped provider's healthcheck; one without passes.
func (c *cached) HealthCheck(ctx context.Context) error {
	if hc, ok := c.p.(providers.HealthChecker); ok {
		return hc.HealthCheck(ctx)
	}
	return nil
}

func (c *cached) Invoke(ctx context.Context, req *providers.Request) (*providers.Response, error) {
	if bypassed(ctx) {
		return c.p.Invoke(ctx, req)
	}
	key, ok := c.store.hash.key(c.p.Target(), req, trialOf(ctx))
	if !ok {
		return c.p.Invoke(ctx, req)
	}
	accept := acceptOf(ctx)
	if resp := c.hit(ctx, key, accept); resp != nil {
		return resp, nil
	}
	c.miss(ctx, req, key)
	resp, err := c.p.Invoke(ctx, req)
	if err == nil && storable(accept, resp) {
		c.store.store(key, resp)
	}
	return resp, err
}

// hit returns the stored answer of key when there is one the caller accepts.
func (c *cached) hit(ctx context.Context, key string, accept Accept) *providers.Response {
	resp := c.store.lookup(key)
	if resp == nil {
		return nil
	}
	if accept != nil && !accept(resp) {
		// Asked again, and replaced if the new answer is accepted.
		if c.store.opts.Verbose {
			c.store.opts.Logf("cache: the stored answer of key %s is not one its caller accepts; asking again", key[:12])
		}
		return nil
	}
	if u := useOf(ctx); u != nil {
		u.add(true, resp)
	}
	return resp
}

func (c *cached) miss(ctx context.Context, req *providers.Request, key string) {
	if u := useOf(ctx); u != nil {
		u.add(false, nil)

	}
	if c.store.opts.Verbose {
		what := "target"
		if req.SystemPrompt != "" {
			what = "judge"
		}
		c.store.opts.Logf("cache miss: %s: %s %q called (key %s)", req.EvalID, what, c.p.Target().Name, key[:12])
	}
}

// storable reports whether an answer may be stored: one without a reported error that its
// caller accepted (a judge reply that is no verdict would be replayed to every later ask).
func storable(accept Accept, resp *providers.Response) bool {
	return resp != nil && resp.Error == "" && accept != nil && accept(resp)
}

// cachedBatch answers a batch's cached requests from the store and sends only the others.
type cachedBatch struct {
	*cached
	bp providers.BatchProvider
}

var _ providers.BatchProvider = (*cachedBatch)(nil)

func (c *cachedBatch) InvokeBatch(ctx context.Context, reqs []*providers.Request) ([]*providers.Response, error) {
	if bypassed(ctx) {
		return c.bp.InvokeBatch(ctx, reqs)
	}
	out := make([]*providers.Response, len(reqs))
	keys := make([]string, len(reqs))
	var missing []*providers.Request
	var where []int
	trial := trialOf(ctx)
	accept := acceptOf(ctx)
	for i, req := range reqs {
		key, ok := c.store.hash.key(c.p.Target(), req, trial)
		// A batch serves many cases: each answer is noted for its case (Batched).
		if ok {
			keys[i] = key
			out[i] = c.hit(ctx, key, accept)
		}
		if out[i] != nil {
			batched.Store(out[i], true)
		} else {
			if ok {
				c.miss(ctx, req, key)
			}
			missing = append(missing, req)
			where = append(where, i)
		}
	}
	if len(missing) == 0 {
		return out, nil
	}
	resps, err := c.bp.InvokeBatch(ctx, missing)
	if err != nil {
		return nil, err
	}
	if len(resps) != len(missing) {
		return nil, fmt.Errorf("batch returned %d answers for %d cases", len(resps), len(missing))
	}
	for n, i := range where {
		out[i] = resps[n]
		if resps[n] != nil {
			batched.Store(resps[n], false)
		}
		if keys[i] != "" && storable(accept, resps[n]) {
			c.store.store(keys[i], resps[n])
		}
	}
	return out, nil
}
