// Package redact removes secret values from text before it reaches a log, report,
// comment, annotation or results file.
package redact

import (
	"encoding/json"
	"slices"
	"strings"
	"sync"
)

// Mask replaces every secret in redacted text.
const Mask = "***"

// minLen is the shortest value treated as a secret; shorter values ("1", "true") would
// shred ordinary text and cannot be meaningful keys.
const minLen = 4

// Redactor holds secret values and removes them from text. The zero value is ready to use
// and safe for concurrent use; a nil *Redactor redacts nothing.
type Redactor struct {
	mu       sync.RWMutex
	secrets  []string // longest first, so a secret containing another is replaced whole
	replacer *strings.Replacer
	onAdd    []func(string)
}

// Add registers secret values. Blank and very short values are ignored.
func (r *Redactor) Add(values ...string) {
	if r == nil {
		return
	}
	r.mu.Lock()
	var added []string
	for _, v := range values {
		v = strings.TrimSpace(v)
		if len(v) < minLen || slices.Contains(r.secrets, v) {
			continue
		}
		r.secrets = append(r.secrets, v)
		added = append(added, v)
		// A secret inside JSON (results, recorded requests) may appear escaped.
		if q := jsonEscaped(v); q != v && !slices.Contains(r.secrets, q) {
			r.secrets = append(r.secrets, q)
		}
	}
	if len(added) > 0 {
		slices.SortFunc(r.secrets, func(a, b string) int { return len(b) - len(a) })
		pairs := make([]string, 0, 2*len(r.secrets))
		for _, s := range r.secrets {
			pairs = append(pairs, s, Mask)
		}
		r.replacer = strings.NewReplacer(pairs...)
	}
	hooks := r.onAdd
	r.mu.Unlock()
	for _, v := range added {
		for _, h := range hooks {
			h(v)
		}
	}
}

// OnAdd calls fn for every secret added from now on and for those already known
// (the Actions runtime uses it to emit ::add-mask::).
func (r *Redactor) OnAdd(fn func(secret string)) {
	if r == nil {
		return
	}
	r.mu.Lock()
	r.onAdd = append(r.onAdd, fn)
	known := slices.Clone(r.secrets)
	r.mu.Unlock()
	for _, s := range known {
		fn(s)
	}
}

// String returns s with every secret replaced by Mask.
func (r *Redactor) String(s string) string {
	if r == nil {
		return s
	}
	r.mu.RLock()
	rep := r.replacer
	r.mu.RUnlock()
	if rep == nil {
		return s
	}
	return rep.Replace(s)
}

// Bytes returns b with every secret replaced by Mask.
func (r *Redactor) Bytes(b []byte) []byte {
	if r == nil {
		return b
	}
	r.mu.RLock()
	rep := r.replacer
	r.mu.RUnlock()
	if rep == nil {
		return b
	}
	return []byte(rep.Replace(string(b)))
}

// jsonEscaped returns v as it appears inside a JSON string (without the quotes).
func jsonEscaped(v string) string {
	b, err := json.Marshal(v)
	if err != nil || len(b) < 2 {
		return v
	}
	return string(b[1 : len(b)-1])
}

// Secrets returns a copy of the registered secrets.
func (r *Redactor) Secrets() []string {
	if r == nil {
		return nil
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	return slices.Clone(r.secrets)
}
