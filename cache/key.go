package cache

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/agentv/action/internal/safefile"
	"github.com/agentv/action/providers"
	"github.com/agentv/action/targets"
)

// keyVersion is part of every key: bump it when the way requests are rendered for a provider
// changes, so answers to the old rendering are no longer used. 2: the key holds every field of
// the request (v1 left out a grader's own temperature).
const keyVersion = 2

// howSettings are target settings that change how a call is made, not what is asked: they
// are left out of the key, so tuning retries or workers keeps the cache warm.
var howSettings = map[string]bool{
	"name": true, "judge_target": true, "grader_target": true, "workers": true, "provider_batching": true,
	"max_retries": true, "retry_initial_delay_ms": true, "retry_max_delay_ms": true, "retry_backoff_factor": true,
	"retry_status_codes": true, "timeout_seconds": true, "healthcheck": true, "verbose": true, "cli_verbose": true,
	"keep_temp_files": true, "keep_output_files": true, "log_dir": true, "log_format": true, "cache": true, "$schema": true,
	"delay_ms": true, "delay_min_ms": true, "delay_max_ms": true,
}

type trialKey struct{}

// WithTrial returns a context whose calls are keyed as trial n (0-based) of their case: each
// trial of a case is its own sample, answered and cached separately.
func WithTrial(ctx context.Context, n int) context.Context {
	return context.WithValue(ctx, trialKey{}, n)
}

func trialOf(ctx context.Context) int {
	n, _ := ctx.Value(trialKey{}).(int)
	return n
}

// keyDoc is what a key hashes. Request is the whole request (see requestDoc), so a field
// added to providers.Request is in the key without anyone remembering to add it here.
type keyDoc struct {
	Version  int               `json:"v"`
	Kind     string            `json:"kind"`
	Settings map[string]any    `json:"settings"`
	Trial    int               `json:"trial"`
	Request  providers.Request `json:"request"`
	Files    []fileRef         `json:"files"`
}

// fileRef is an attachment as the key sees it: its path relative to the eval file's folder
// and the hash of its contents.
type fileRef struct {
	Path string `json:"path"`
	Hash string `json:"sha256"`
}

// hasher hashes attachments once per run: the same guideline file is attached to many cases.
type hasher struct {
	files sync.Map // absolute path → content hash
}

// key is the cache key of req sent to target t as trial trial of its case: a SHA-256 over
// the provider kind, the target's settings (`${{ VAR }}` values resolved; secrets and
// howSettings left out) and every field of the request, attachments by the hash of their
// contents. ok is false when the request cannot be encoded: such a call is not stored.
func (h *hasher) key(t *targets.Target, req *providers.Request, trial int) (string, bool) {
	doc := keyDoc{Version: keyVersion, Kind: t.Kind, Settings: settingsOf(t), Trial: trial, Request: requestDoc(req)}
	for _, f := range req.Files {
		doc.Files = append(doc.Files, fileRef{Path: relOne(req.Dir, f), Hash: h.fileHash(f)})
	}
	// Maps encode with sorted keys, so equal documents hash equally.
	b, err := json.Marshal(doc)
	if err != nil {
		return "", false
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), true
}

// requestDoc is req as the key sees it: every field as sent, except
//   - Attempt: a call is asked again only after a timeout or a reply its caller rejected, and
//     neither is stored, so the attempt never picks between answers;
//   - Dir and absolute paths: they differ between machines and checkouts; paths are kept
//     relative to Dir, and attachments (Files) are keyed by their contents instead.
func requestDoc(req *providers.Request) providers.Request {
	r := *req
	r.Attempt = 0
	r.Dir = ""
	r.Files = nil
	r.GuidelinePaths = rel(req.Dir, req.GuidelinePaths)
	r.InputFiles = rel(req.Dir, req.InputFiles)
	if r.Workspace != "" {
		r.Workspace = relOne(req.Dir, r.Workspace)
	}
	return r
}

// fileHash is the hash of a file's contents, or a marker for a file that cannot be read
// (the provider fails on it, and failures are not stored).
func (h *hasher) fileHash(path string) string {
	if v, ok := h.files.Load(path); ok {
		return v.(string)
	}
	sum := "unreadable"
	// Attachments are named by eval files: a FIFO or a device among them must not block or
	// never end (the provider refuses them; so does the key).
	if f, err := safefile.Open(path); err == nil {
		d := sha256.New()
		if _, err := io.Copy(d, f); err == nil {
			sum = hex.EncodeToString(d.Sum(nil))
		}
		f.Close()
	}
	h.files.Store(path, sum)
	return sum
}

func rel(dir string, paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = relOne(dir, p)
	}
	return out
}

func relOne(dir, p string) string {
	if dir != "" && filepath.IsAbs(p) {
		if r, err := filepath.Rel(dir, p); err == nil {
			return filepath.ToSlash(r)
		}
	}
	return filepath.ToSlash(p)
}

// settingsOf returns the target's settings that reach a request, `${{ VAR }}` resolved.
func settingsOf(t *targets.Target) map[string]any {
	out := map[string]any{}
	for k, s := range t.Settings {
		if howSettings[k] {
			continue
		}
		v := resolve(t, s.Value)
		// Credentials do not change an answer (a rotated key keeps the cache) and must not be
		// hashed into anything kept; numbers under such names (max_output_tokens) do count.
		if targets.IsSecretKey(k) && !plain(v) {
			continue
		}
		out[k] = v
	}
	return out
}

// plain reports whether a setting's value is a number or a boolean: no credential.
func plain(v any) bool {
	switch x := v.(type) {
	case int, int64, float64, bool:
		return true
	case string:
		if _, err := strconv.ParseFloat(strings.TrimSpace(x), 64); err == nil {
			return true
		}
		_, err := strconv.ParseBool(strings.TrimSpace(x))
		return err == nil
	}
	return false
}

func resolve(t *targets.Target, v any) any {
	switch x := v.(type) {
	case string:
		if name, ok := targets.EnvRef(x); ok && t.Env != nil {
			val, _ := t.Env(name)
			return val
		}
		return x
	case []any:
		out := make([]any, len(x))
		for i, it := range x {
			out[i] = resolve(t, it)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, it := range x {
			out[k] = resolve(t, it)
		}
		return out
	}
	return v
}
