// Package redact removes secret values from text before it reaches a log, report,
// comment, annotation or results file.
//
// Besides the value itself, a secret is found in the forms a model, a script or a JSON
// encoder commonly turns it into:
//   - JSON string escapes, single and double (a request body stored inside JSON), with and
//     without HTML-safe escapes, `\/` and `\uXXXX` for non-ASCII characters;
//   - for values of 8 bytes or more: base64 (standard and URL alphabets, padded or not),
//     also inside a longer base64 text, where the secret's characters depend on its byte
//     offset modulo 3: each of the three alignments is covered (the one or two characters
//     at each end, shared with the neighbouring bytes, may stay); percent-encoding (every
//     byte outside A-Z a-z 0-9 - . _ ~, or as Go's query and path escaping do it, with upper
//     or lower case hex digits); hex, lower or upper case;
//   - split across lines: a value of 8 bytes or more (or its hex or base64 form) with line
//     breaks inserted anywhere in it. A line break is a newline (LF, CRLF or CR) or its
//     JSON escape (`\n`, `\r\n`, `\r`), together with the spaces and tabs around it; any
//     number of them may interrupt the value. The whole span, breaks included, is masked.
package redact

import (
	"bytes"
	"cmp"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
)

// Mask replaces every secret in redacted text.
const Mask = "***"

// minLen is the shortest value treated as a secret; shorter values ("1", "true") would
// shred ordinary text and cannot be meaningful keys.
const minLen = 4

// minEncodedLen is the shortest value whose encodings and line-split copies are masked too:
// the encoded fragments of shorter values would match ordinary text by chance.
const minEncodedLen = 8

// Redactor holds secret values and removes them from text. The zero value is ready to use
// and safe for concurrent use; a nil *Redactor redacts nothing.
type Redactor struct {
	mu       sync.RWMutex
	secrets  []string            // the registered values, in order of registration
	forms    map[string]struct{} // every literal form masked: values and their encodings
	split    map[string]struct{} // forms also searched for with line breaks inside
	replacer *strings.Replacer
	splits   []string // split as a slice, longest first
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
		if r.forms == nil {
			r.forms, r.split = map[string]struct{}{}, map[string]struct{}{}
		}
		r.secrets = append(r.secrets, v)
		added = append(added, v)
		for _, f := range literalForms(v) {
			r.forms[f] = struct{}{}
		}
		for _, f := range splitForms(v) {
			r.split[f] = struct{}{}
		}
	}
	if len(added) > 0 {
		forms := longestFirst(r.forms)
		pairs := make([]string, 0, 2*len(forms))
		for _, s := range forms {
			pairs = append(pairs, s, Mask)
		}
		r.replacer = strings.NewReplacer(pairs...)
		r.splits = longestFirst(r.split)
	}
	hooks := r.onAdd
	r.mu.Unlock()
	for _, v := range added {
		for _, h := range hooks {
			h(v)
		}
	}
}

// longestFirst lists a set longest first (then alphabetically), so a form containing
// another is replaced whole.
func longestFirst(set map[string]struct{}) []string {
	out := slices.Collect(maps.Keys(set))
	slices.SortFunc(out, func(a, b string) int { return cmp.Or(len(b)-len(a), strings.Compare(a, b)) })
	return out
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
	rep, splits := r.replacer, r.splits
	r.mu.RUnlock()
	if rep == nil {
		return s
	}
	s = rep.Replace(s)
	if len(splits) > 0 && hasBreak(s) {
		s = maskSplit(s, splits)
	}
	return s
}

// Bytes returns b with every secret replaced by Mask.
func (r *Redactor) Bytes(b []byte) []byte {
	if r.Empty() {
		return b
	}
	return []byte(r.String(string(b)))
}

// Empty reports whether no secret is registered.
func (r *Redactor) Empty() bool {
	if r == nil {
		return true
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.secrets) == 0
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

// literalForms lists the texts that stand for v: v, its JSON escapes and, for values long
// enough not to match by chance, its base64, percent and hex encodings.
func literalForms(v string) []string {
	out := jsonForms(v)
	if len(v) < minEncodedLen {
		return out
	}
	b := []byte(v)
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
		out = append(out, enc.EncodeToString(b))
	}
	out = append(out, base64Cores(b)...)
	for _, upper := range []bool{false, true} {
		out = append(out, percentEncode(v, upper))
	}
	q, p := url.QueryEscape(v), url.PathEscape(v)
	out = append(out, q, strings.ToLower(q), p, strings.ToLower(p))
	h := hex.EncodeToString(b)
	return append(out, h, strings.ToUpper(h))
}

// splitForms lists the forms of v also masked when line breaks interrupt them: the value, its
// JSON escape, its hex forms and its base64 (which tools wrap at a fixed width).
func splitForms(v string) []string {
	if len(v) < minEncodedLen {
		return nil
	}
	b := []byte(v)
	h := hex.EncodeToString(b)
	out := []string{v, jsonEscaped(v, true), h, strings.ToUpper(h)}
	return append(out, base64Cores(b)...)
}

// jsonForms lists v as it may appear inside a JSON string (without the quotes).
func jsonForms(v string) []string {
	out := []string{v}
	for _, html := range []bool{true, false} {
		e := jsonEscaped(v, html)
		out = append(out, e, strings.ReplaceAll(e, "/", `\/`), asciiEscaped(e), jsonEscaped(e, html))
	}
	return out
}

// jsonEscaped returns v as it appears inside a JSON string (without the quotes); html
// escapes <, > and & as \u003c, \u003e and \u0026 (as Go's encoder does by default).
func jsonEscaped(v string, html bool) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(html)
	if err := enc.Encode(v); err != nil {
		return v
	}
	b := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	if len(b) < 2 {
		return v
	}
	return string(b[1 : len(b)-1])
}

// asciiEscaped writes the non-ASCII characters of a JSON string body as \uXXXX escapes
// (UTF-16 surrogate pairs beyond the basic plane), as ASCII-only encoders do.
func asciiEscaped(s string) string {
	var b strings.Builder
	for _, u := range utf16.Encode([]rune(s)) {
		if u < utf8.RuneSelf {
			b.WriteByte(byte(u))
		} else {
			fmt.Fprintf(&b, `\u%04x`, u)
		}
	}
	return b.String()
}

// percentEncode escapes every byte outside the unreserved characters of URLs.
func percentEncode(v string, upper bool) string {
	escape := "%%%02x"
	if upper {
		escape = "%%%02X"
	}
	var b strings.Builder
	for _, c := range []byte(v) {
		if 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || strings.IndexByte("-._~", c) >= 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, escape, c)
		}
	}
	return b.String()
}

// base64Cores returns, for each of the three byte alignments v can have inside longer data,
// the base64 characters (standard and URL alphabets) that depend on v's bytes alone. A
// character encodes 6 bits and so spans one or two bytes; those spanning a neighbour's
// byte differ with the neighbour and are left out.
func base64Cores(v []byte) []string {
	var out []string
	for k := 0; k < 3; k++ {
		buf := make([]byte, k+len(v)+2) // k bytes before v, two after, all zero
		copy(buf[k:], v)
		enc := base64.RawStdEncoding.EncodeToString(buf)
		first, last := -1, -1
		for i := range enc {
			lo, hi := 6*i/8, (6*i+5)/8
			if lo >= k && hi < k+len(v) {
				if first < 0 {
					first = i
				}
				last = i
			}
		}
		if first < 0 || last-first+1 < minEncodedLen {
			continue
		}
		core := enc[first : last+1]
		out = append(out, core, strings.NewReplacer("+", "-", "/", "_").Replace(core))
	}
	return out
}

// hasBreak reports whether s holds a line break or its JSON escape.
func hasBreak(s string) bool {
	return strings.ContainsAny(s, "\r\n") || strings.Contains(s, `\n`) || strings.Contains(s, `\r`)
}

// lineBreak returns the length of the line breaks (LF, CR, or their JSON escapes) starting
// at s[i], with the spaces and tabs that follow them; 0 when none starts there.
func lineBreak(s string, i int) int {
	j := i
	for {
		switch {
		case j < len(s) && (s[j] == '\n' || s[j] == '\r'):
			j++
		case j+1 < len(s) && s[j] == '\\' && (s[j+1] == 'n' || s[j+1] == 'r'):
			j += 2
		case j > i && j < len(s) && (s[j] == ' ' || s[j] == '\t'):
			j++
		default:
			return j - i
		}
	}
}

// maskSplit masks the forms that occur in s once its line breaks are removed and whose
// occurrence spans a break (unbroken ones were replaced already).
func maskSplit(s string, forms []string) string {
	// The view is s without its breaks, kept as runs of s: run i starts at view offset
	// starts[i] and at offset origs[i] of s.
	var view strings.Builder
	view.Grow(len(s))
	var starts, origs []int
	from := 0 // start of the current run in s
	for i := 0; i < len(s); {
		k := strings.IndexAny(s[i:], "\n\r\\")
		if k < 0 {
			break
		}
		k += i
		n := lineBreak(s, k)
		if n == 0 {
			i = k + 1
			continue
		}
		end := k // spaces and tabs before a break belong to it
		for end > from && (s[end-1] == ' ' || s[end-1] == '\t') {
			end--
		}
		starts, origs = append(starts, view.Len()), append(origs, from)
		view.WriteString(s[from:end])
		from, i = k+n, k+n
	}
	if len(starts) == 0 {
		return s
	}
	starts, origs = append(starts, view.Len()), append(origs, from)
	view.WriteString(s[from:])
	v := view.String()
	// run returns the run holding view offset p.
	run := func(p int) int { return sort.Search(len(starts), func(i int) bool { return starts[i] > p }) - 1 }
	type span struct{ start, end int }
	var spans []span
	for _, f := range forms {
		for off := 0; off < len(v); {
			j := strings.Index(v[off:], f)
			if j < 0 {
				break
			}
			a, b := off+j, off+j+len(f)-1
			if ra, rb := run(a), run(b); ra != rb {
				spans = append(spans, span{origs[ra] + a - starts[ra], origs[rb] + b - starts[rb] + 1})
			}
			off = b + 1
		}
	}
	if len(spans) == 0 {
		return s
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].start < spans[j].start })
	var out strings.Builder
	out.Grow(len(s))
	at := 0
	for _, sp := range spans {
		if sp.start < at { // overlaps the span masked last
			at = max(at, sp.end)
			continue
		}
		out.WriteString(s[at:sp.start])
		out.WriteString(Mask)
		at = sp.end
	}
	out.WriteString(s[at:])
	return out.String()
}
