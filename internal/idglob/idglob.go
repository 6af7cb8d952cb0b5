// Package idglob matches test ids against the globs AgentV 4.42.4's `--test-id` takes. 4.42.4
// matches with micromatch 4 (picomatch 2) (packages/core/src/evaluation/yaml-parser.ts:102),
// whose syntax goes beyond Go's path globs: a leading `!` negates the pattern, extglobs
// `@(a|b)`, `?(a)`, `*(a)`, `+(a)` and `!(a)` choose among alternatives, `(a|b)` groups and
// `{a,b}` braces too, `{1..3}` is a character range, and `[[:digit:]]` names a class. This is
// a matcher of its own (Go's regexp has no lookahead, which picomatch's `!(...)` needs) that
// follows picomatch's readings, quirks included, so a command line selects the same tests:
//
//   - a pattern equal to the id always matches;
//   - `*` and `?` stay within a `/`-separated segment and, at the start of one, do not match a
//     leading `.`; `**` as a whole segment crosses segments;
//   - `!(p)` at the end of a pattern matches a rest that is not p; elsewhere it matches where
//     no alternative of p starts (picomatch's negative lookahead);
//   - `[!a]` is the class of `!` and `a` (only `[^a]` negates), and `{1..12}` is the class
//     `[1-12]`, as picomatch reads them;
//   - anything that does not close (`[a-`, `x(y`, `{a`) is literal text.
package idglob

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Pattern is a compiled glob.
type Pattern struct {
	raw    string
	negate bool
	seq    []node
}

type kind uint8

const (
	kLit      kind = iota // lit
	kOne                  // ?: one character, not /
	kStar                 // *: characters within a segment
	kGlobstar             // **: characters across segments
	kClass                // [...]
	kAlt                  // (a|b), {a,b} and extglobs; op says which
)

type node struct {
	kind  kind
	lit   string
	dot   bool // a wildcard at the start of a segment: no leading "."
	class *class
	op    byte     // '@' once, '?' at most once, '*' any times, '+' at least once, '!' none
	alts  [][]node // alternatives of kAlt
	last  bool     // a '!' extglob whose ) ends the pattern's text
	slash byte     // kGlobstar: '/' after it ("**/": may match nothing) or before it ("/**")
	trail bool     // a * ending the pattern, which picomatch lets take one trailing "/"
}

// Compile reads pattern p. It never fails: what is not glob syntax is literal text.
func Compile(p string) *Pattern {
	pat := &Pattern{raw: p}
	s := p
	for strings.HasPrefix(s, "!") && !strings.HasPrefix(s, "!(") {
		pat.negate = !pat.negate
		s = s[1:]
	}
	ps := &parser{s: s}
	pat.seq = ps.seq("", true)
	return pat
}

// Match reports whether id matches the pattern.
func (p *Pattern) Match(id string) bool {
	if id == p.raw {
		return true
	}
	if id == "" {
		return false
	}
	ok := match(p.seq, id, 0, func(end int) bool { return end == len(id) })
	return ok != p.negate
}

type parser struct {
	s string
	i int
}

// seq parses nodes up to one of the bytes in stop (not consumed) or the end. top marks the
// pattern's own level, where wildcards keep picomatch's dot rule.
func (ps *parser) seq(stop string, top bool) []node {
	var out []node
	lit := func(s string) {
		if n := len(out); n > 0 && out[n-1].kind == kLit {
			out[n-1].lit += s
			return
		}
		out = append(out, node{kind: kLit, lit: s})
	}
	segStart := func() bool {
		n := len(out)
		return top && (n == 0 || (out[n-1].kind == kLit && strings.HasSuffix(out[n-1].lit, "/")))
	}
	for ps.i < len(ps.s) {
		c := ps.s[ps.i]
		if strings.IndexByte(stop, c) >= 0 {
			break
		}
		switch {
		case c == '\\' && ps.i+1 < len(ps.s):
			_, w := utf8.DecodeRuneInString(ps.s[ps.i+1:])
			lit(ps.s[ps.i+1 : ps.i+1+w])
			ps.i += 1 + w
			continue
		case strings.IndexByte("@?*+!", c) >= 0 && ps.i+1 < len(ps.s) && ps.s[ps.i+1] == '(':
			if alts, ok := ps.group(ps.i+1, '|', ')'); ok {
				// picomatch reads !(p) ending the pattern text differently (see alt).
				out = append(out, node{kind: kAlt, op: c, alts: alts, last: top && ps.i == len(ps.s)})
				continue
			}
		case c == '(':
			if alts, ok := ps.group(ps.i, '|', ')'); ok {
				out = append(out, node{kind: kAlt, op: '@', alts: alts})
				continue
			}
		case c == '{':
			if n, ok := ps.brace(); ok {
				out = append(out, n)
				continue
			}
		case c == '[':
			if cl, ok := ps.class(); ok {
				out = append(out, node{kind: kClass, class: cl})
				continue
			}
		case c == '?' && len(out) > 0 && out[len(out)-1].kind == kAlt && ps.s[ps.i-1] == ')':
			// After a group picomatch leaves ? to the regular expression: a plain group becomes
			// optional, an extglob's quantifier lazy (which changes no match).
			if prev := &out[len(out)-1]; prev.op == '@' {
				prev.op = '?'
			}
			ps.i++
			continue
		case c == '*':
			start := ps.i
			for ps.i < len(ps.s) && ps.s[ps.i] == '*' && !strings.HasPrefix(ps.s[ps.i:], "*(") {
				ps.i++
			}
			if ps.i == start { // *( is an extglob that did not close: literal
				break
			}
			whole := segStart() && (ps.i == len(ps.s) || ps.s[ps.i] == '/')
			if ps.i-start == 2 && whole {
				g := node{kind: kGlobstar}
				if ps.i < len(ps.s) { // "**/": the slash goes with it
					g.slash = '/'
					ps.i++
				} else if n := len(out); n > 0 { // "/**" at the end: so does the one before
					out[n-1].lit = strings.TrimSuffix(out[n-1].lit, "/")
					if out[n-1].lit == "" {
						out = out[:n-1]
					}
					g.slash = '\\'
				}
				out = append(out, g)
				continue
			}
			out = append(out, node{kind: kStar, dot: segStart(), trail: top && ps.i == len(ps.s)})
			continue
		case c == '?':
			out = append(out, node{kind: kOne, dot: segStart()})
			ps.i++
			continue
		}
		_, w := utf8.DecodeRuneInString(ps.s[ps.i:])
		lit(ps.s[ps.i : ps.i+w])
		ps.i += w
	}
	return out
}

// closing returns the index of the bracket closing the one at open, or -1.
func (ps *parser) closing(open int, o, c byte) int {
	if i := indexTop(ps.s[open+1:], o, c, c); i >= 0 {
		return open + 1 + i
	}
	return -1
}

// indexTop returns the index of the first byte want in s outside nested o…c brackets (escapes
// skipped), or -1.
func indexTop(s string, o, c, want byte) int {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch ch := s[i]; {
		case ch == '\\':
			i++
		case ch == want && depth == 0:
			return i
		case ch == o:
			depth++
		case ch == c:
			depth--
		}
	}
	return -1
}

// group parses the alternatives between the bracket at open and its closing one, split at
// sep on their own level; ok is false (nothing consumed) when it does not close.
func (ps *parser) group(open int, sep, close byte) ([][]node, bool) {
	end := ps.closing(open, ps.s[open], close)
	if end < 0 {
		return nil, false
	}
	inner := &parser{s: ps.s[open+1 : end]}
	var alts [][]node
	for {
		alts = append(alts, inner.seq(string(sep), false))
		if inner.i >= len(inner.s) {
			break
		}
		inner.i++ // the separator
		if inner.i == len(inner.s) {
			alts = append(alts, nil)
			break
		}
	}
	ps.i = end + 1
	return alts, true
}

// brace parses {a,b} (alternatives) or {x..y} (picomatch's class [x-y]); ok is false when
// the brace does not close or holds neither.
func (ps *parser) brace() (node, bool) {
	end := ps.closing(ps.i, '{', '}')
	if end < 0 {
		return node{}, false
	}
	body := ps.s[ps.i+1 : end]
	if indexTop(body, '{', '}', ',') >= 0 {
		alts, _ := ps.group(ps.i, ',', '}')
		return node{kind: kAlt, op: '@', alts: alts}, true
	}
	if strings.Contains(body, "..") && !strings.ContainsAny(body, "{}[]()\\") {
		cl, ok := parseClass(strings.ReplaceAll(body, "..", "-"))
		if ok {
			ps.i = end + 1
			return node{kind: kClass, class: cl}, true
		}
	}
	return node{}, false
}

// class is a bracket expression: ranges of runes, maybe negated.
type class struct {
	negate bool
	ranges [][2]rune
	named  []func(rune) bool
}

func (c *class) has(r rune) bool {
	in := slices.ContainsFunc(c.ranges, func(rg [2]rune) bool { return rg[0] <= r && r <= rg[1] }) ||
		slices.ContainsFunc(c.named, func(f func(rune) bool) bool { return f(r) })
	if c.negate {
		return !in && r != '/'
	}
	return in
}

// posix are the [:name:] classes picomatch knows.
var posix = map[string]func(rune) bool{
	"alnum":  func(r rune) bool { return r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r)) },
	"alpha":  func(r rune) bool { return r < 128 && unicode.IsLetter(r) },
	"ascii":  func(r rune) bool { return r < 128 },
	"blank":  func(r rune) bool { return r == ' ' || r == '\t' },
	"cntrl":  func(r rune) bool { return r < 32 || r == 127 },
	"digit":  func(r rune) bool { return '0' <= r && r <= '9' },
	"graph":  func(r rune) bool { return r > 32 && r < 127 },
	"lower":  func(r rune) bool { return 'a' <= r && r <= 'z' },
	"print":  func(r rune) bool { return r >= 32 && r < 127 },
	"punct":  func(r rune) bool { return r < 128 && unicode.IsPunct(r) || r < 128 && unicode.IsSymbol(r) },
	"space":  func(r rune) bool { return strings.ContainsRune(" \t\r\n\v\f", r) },
	"upper":  func(r rune) bool { return 'A' <= r && r <= 'Z' },
	"word":   func(r rune) bool { return r == '_' || r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r)) },
	"xdigit": func(r rune) bool { return strings.ContainsRune("0123456789abcdefABCDEF", r) },
}

// class parses the bracket expression at ps.i; ok is false when it does not close.
func (ps *parser) class() (*class, bool) {
	i := ps.i + 1
	if i < len(ps.s) && ps.s[i] == '^' {
		i++
	}
	if i < len(ps.s) && ps.s[i] == ']' { // a leading ] is a member
		i++
	}
	for i < len(ps.s) && ps.s[i] != ']' {
		switch {
		case ps.s[i] == '\\':
			i++
		case strings.HasPrefix(ps.s[i:], "[:"):
			if j := strings.Index(ps.s[i+2:], ":]"); j >= 0 {
				i += 2 + j + 1
			}
		}
		i++
	}
	if i >= len(ps.s) {
		return nil, false
	}
	cl, ok := parseClass(ps.s[ps.i+1 : i])
	if !ok {
		return nil, false
	}
	ps.i = i + 1
	return cl, true
}

// parseClass reads the inside of a bracket expression.
func parseClass(body string) (*class, bool) {
	cl := &class{}
	if strings.HasPrefix(body, "^") {
		cl.negate = true
		body = body[1:]
	}
	var rs []rune
	for i := 0; i < len(body); {
		if strings.HasPrefix(body[i:], "[:") {
			if j := strings.Index(body[i+2:], ":]"); j >= 0 {
				if f := posix[body[i+2:i+2+j]]; f != nil {
					cl.named = append(cl.named, f)
					i += 2 + j + 2
					continue
				}
			}
		}
		if body[i] == '\\' && i+1 < len(body) {
			i++
		}
		r, w := utf8.DecodeRuneInString(body[i:])
		rs = append(rs, r)
		i += w
	}
	for i := 0; i < len(rs); i++ {
		if i+2 < len(rs) && rs[i+1] == '-' {
			if rs[i] > rs[i+2] {
				return nil, false // JavaScript refuses such a class; picomatch then matches literally
			}
			cl.ranges = append(cl.ranges, [2]rune{rs[i], rs[i+2]})
			i += 2
			continue
		}
		cl.ranges = append(cl.ranges, [2]rune{rs[i], rs[i]})
	}
	return cl, len(cl.ranges) > 0 || len(cl.named) > 0
}

// match reports whether seq matches s from pos with k accepting where it ends.
func match(seq []node, s string, pos int, k func(int) bool) bool {
	if len(seq) == 0 {
		return k(pos)
	}
	n, rest := &seq[0], seq[1:]
	next := func(p int) bool { return match(rest, s, p, k) }
	switch n.kind {
	case kLit:
		return strings.HasPrefix(s[pos:], n.lit) && next(pos+len(n.lit))
	case kOne:
		if pos >= len(s) || s[pos] == '/' || (n.dot && s[pos] == '.') {
			return false
		}
		_, w := utf8.DecodeRuneInString(s[pos:])
		return next(pos + w)
	case kStar:
		if n.dot && pos < len(s) && s[pos] == '.' {
			return false
		}
		for p := pos; ; {
			if next(p) {
				return true
			}
			if n.trail && p == len(s)-1 && s[p] == '/' {
				return next(len(s))
			}
			if p >= len(s) || s[p] == '/' {
				return false
			}
			_, w := utf8.DecodeRuneInString(s[p:])
			p += w
		}
	case kGlobstar:
		return globstar(n, s, pos, next)
	case kClass:
		if pos >= len(s) {
			return false
		}
		r, w := utf8.DecodeRuneInString(s[pos:])
		return n.class.has(r) && next(pos+w)
	case kAlt:
		return alt(n, s, pos, next)
	}
	return false
}

// globstar matches ** with its slash: "**" any text, "**/" nothing or text ending in "/",
// "/**" nothing or "/" and text; no segment of the text may start with ".".
func globstar(n *node, s string, pos int, next func(int) bool) bool {
	from := pos
	if n.slash != 0 && next(pos) {
		return true
	}
	if n.slash == '\\' {
		if pos >= len(s) || s[pos] != '/' {
			return false
		}
		from = pos + 1
	}

	for p := from; p <= len(s); p++ {
		if !dotFree(s[from:p]) {
			return false // longer texts hold the same segment
		}
		if n.slash == '/' && (p == from || s[p-1] != '/') {
			continue
		}
		if next(p) {
			return true
		}
	}
	return false
}

// dotFree reports whether no "/"-separated segment of t starts with ".".
func dotFree(t string) bool {
	return !strings.HasPrefix(t, ".") && !strings.Contains(t, "/.")
}

// alt matches a group or extglob.
func alt(n *node, s string, pos int, next func(int) bool) bool {
	once := func(p int, k func(int) bool) bool {
		return slices.ContainsFunc(n.alts, func(a []node) bool { return match(a, s, p, k) })
	}

	switch n.op {
	case '@':
		return once(pos, next)
	case '?':
		return next(pos) || once(pos, next)
	case '*', '+':
		var rep func(p, times int) bool
		rep = func(p, times int) bool {
			if (times > 0 || n.op == '*') && next(p) {
				return true
			}
			return once(p, func(q int) bool { return q > p && rep(q, times+1) })
		}
		return rep(pos, 0)
	case '!':
		segEnd := pos
		for segEnd < len(s) && s[segEnd] != '/' {
			segEnd++
		}
		if n.last {
			// picomatch: (?!(?:p)$)[^/]*? then the end: the rest, within its segment, is not p.
			return segEnd == len(s) && !once(pos, func(q int) bool { return q == len(s) }) && next(len(s))
		}
		// picomatch: (?!(?:p))[^/]*?: no alternative starts here, then any text in the segment.
		if once(pos, func(int) bool { return true }) {
			return false
		}
		for p := pos; p <= segEnd; p++ {
			if next(p) {
				return true
			}
		}
	}
	return false
}
