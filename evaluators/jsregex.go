package evaluators

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/dlclark/regexp2/v2"
	rx2syntax "github.com/dlclark/regexp2/v2/syntax"
)

// regexMatchTimeout bounds one regex match. Suites are written for JavaScript's backtracking
// engine, so a pattern such as ^(a+)+$ can take exponential time on a hostile or unlucky
// answer; past this the assertion is an error instead of a hung run. A variable so that tests
// can shorten it.
var regexMatchTimeout = 2 * time.Second

// jsPattern is a compiled JavaScript regular expression: what RegExp.prototype.test sees.
type jsPattern struct {
	re *regexp2.Regexp
	// unicode is flag u or v: the pattern and the text are code points; otherwise both are
	// UTF-16 code units, as in JavaScript, so that . matches half of an emoji.
	unicode bool
	// sticky is flag y: the match must start at the beginning of the text.
	sticky bool
}

// compiledJS holds each pattern compiled once for the whole process: a suite's assertions are
// copied into every one of its tests, and a compiled program takes several KB. A
// *regexp2.Regexp is safe for concurrent use.
var compiledJS sync.Map // flags + "/" + source → *jsPattern

// compileJS compiles source with flags (already checked to be JavaScript flags) with
// JavaScript's semantics: regexp2's ECMAScript mode, which has lookaround, backreferences,
// named groups and JavaScript's \d, \s, \w, . and $. The error says what is wrong with the
// pattern, not where it was written.
func compileJS(source, flags string) (p *jsPattern, err error) {
	key := flags + "/" + source
	if v, ok := compiledJS.Load(key); ok {
		return v.(*jsPattern), nil
	}
	p = &jsPattern{unicode: strings.ContainsAny(flags, "uv"), sticky: strings.ContainsRune(flags, 'y')}
	if err := checkJSOnly(source, p.unicode, strings.ContainsRune(flags, 'v')); err != nil {
		return nil, err
	}
	opts := regexp2.ECMAScript
	for _, f := range flags {
		opts |= jsFlags[f]
	}
	pattern := source
	if !p.unicode {
		pattern = utf16Pattern(source)
	}
	// The parser is not ours: a panic on some odd pattern must stay a load error of that
	// pattern, not end the run.
	defer func() {
		if r := recover(); r != nil {
			p, err = nil, fmt.Errorf("the regular expression engine failed on it (%v)", r)
		}
	}()
	re, err := regexp2.Compile(pattern, opts)
	if err != nil {
		if e := (*rx2syntax.Error)(nil); errors.As(err, &e) {
			msg := e.Code.String()
			if len(e.Args) > 0 {
				msg = fmt.Sprintf(msg, e.Args...)
			}
			return nil, errors.New(msg)
		}
		return nil, err
	}
	re.MatchTimeout = regexMatchTimeout
	p.re = re
	v, _ := compiledJS.LoadOrStore(key, p)
	return v.(*jsPattern), nil
}

// jsFlags are regexp2's options for JavaScript's flags; g, d and y need none.
var jsFlags = map[rune]regexp2.RegexOptions{'i': regexp2.IgnoreCase, 'm': regexp2.Multiline, 's': regexp2.Singleline,
	'u': regexp2.Unicode, 'v': regexp2.Unicode}

// test is RegExp.prototype.test on a fresh RegExp: one search from the start of text.
func (p *jsPattern) test(text string) (bool, error) {
	in := []rune(text)
	if !p.unicode {
		in = utf16Units(text)
	}
	var (
		ok  bool
		err error
	)
	if p.sticky {
		// The leftmost match starts at 0 whenever any match does.
		var m *regexp2.Match
		m, err = p.re.FindRunesMatch(in)
		ok = m != nil && m.RuneIndex == 0
	} else {
		ok, err = p.re.MatchRunes(in)
	}
	switch {
	case errors.Is(err, regexp2.ErrBacktrackingStackLimit):
		return false, errors.New("the match needs more backtracking than allowed on this answer; simplify the pattern")
	case err != nil:
		// regexp2's own message quotes the whole answer.
		return false, fmt.Errorf("the match did not finish within %v on this answer (the pattern backtracks too much: nested quantifiers such as (a+)+); simplify the pattern", regexMatchTimeout)
	}
	return ok, nil
}

// Without flag u, JavaScript matches UTF-16 code units: a character outside the Basic
// Multilingual Plane is two surrogates, and . matches one of them. regexp2 matches runes, and
// its search optimizations keep literals as Go strings, where a lone surrogate turns into
// U+FFFD; so surrogates are moved, in both the text and the pattern, to the private-use plane
// 15 (U+F0000–U+F07FF), where no character of such a text can be.
const (
	surrogateLo = 0xD800
	surrogateHi = 0xDFFF
	movedBase   = 0xF0000
)

func moveSurrogate(u rune) rune { return movedBase + u - surrogateLo }

// utf16Units is text as JavaScript sees it without flag u, its surrogates moved.
func utf16Units(text string) []rune {
	out := make([]rune, 0, len(text))
	for _, r := range text {
		if r >= 0x10000 {
			hi, lo := utf16.EncodeRune(r)
			out = append(out, moveSurrogate(hi), moveSurrogate(lo))
			continue
		}
		out = append(out, r)
	}
	return out
}

// utf16Pattern rewrites source (without flag u) to match utf16Units' text: a character outside
// the Basic Multilingual Plane becomes its two moved code units, so does an escaped one (\😀,
// JavaScript's identity escape of its high surrogate), a \uHHHH surrogate escape becomes the
// moved unit, and a class range such as [\u0000-\uFFFF] that covers surrogates covers the
// moved ones.
func utf16Pattern(source string) string {
	var b strings.Builder
	inClass := false
	for i := 0; i < len(source); {
		if !inClass && groupName(source[i:]) {
			// a name in (?<name> or \k<name> is a name, not characters to match
			end := i + strings.IndexByte(source[i:], '>') + 1
			b.WriteString(source[i:end])
			i = end
			continue
		}
		unit, n, astral := classAtom(source[i:])
		if n == 0 {
			// syntax, or an escape with a meaning of its own: copied as written
			r, size := utf8.DecodeRuneInString(source[i:])
			if r == '\\' && i+size < len(source) {
				_, next := utf8.DecodeRuneInString(source[i+size:])
				size += next
			}
			switch {
			case r == '[' && !inClass:
				inClass = true
			case r == ']' && inClass:
				inClass = false
			}
			b.WriteString(source[i : i+size])
			i += size
			continue
		}
		if inClass && unit >= 0 && strings.HasPrefix(source[i+n:], "-") {
			if hi, n2, _ := classAtom(source[i+n+1:]); n2 > 0 && hi >= 0 {
				writeRange(&b, unit, hi)
				i += n + 1 + n2
				continue
			}
		}
		switch {
		case unit < 0:
			b.WriteString(astral)
		case unit >= surrogateLo && unit <= surrogateHi:
			b.WriteRune(moveSurrogate(unit))
		default:
			b.WriteString(source[i : i+n])
		}
		i += n
	}
	return b.String()
}

// groupName reports whether s starts a group name, (?<name> or \k<name>, closed by >.
func groupName(s string) bool {
	named := strings.HasPrefix(s, "(?<") && !strings.HasPrefix(s, "(?<=") && !strings.HasPrefix(s, "(?<!")
	return (named || strings.HasPrefix(s, `\k<`)) && strings.IndexByte(s, '>') > 0
}

// classAtom reads one character with a known UTF-16 code unit at the start of s: a plain
// character, \uHHHH, \xHH or an escaped non-letter. It returns the unit, the bytes read, and
// for a character outside the Basic Multilingual Plane (unit -1) its moved units as text. n is
// 0 for anything else (syntax, classes such as \d, other escapes).
func classAtom(s string) (unit rune, n int, astral string) {
	r, size := utf8.DecodeRuneInString(s)
	escaped := r == '\\'
	if escaped {
		if len(s) < 2 {
			return 0, 0, ""
		}
		if s[1] == 'u' && len(s) >= 6 {
			if v, err := strconv.ParseUint(s[2:6], 16, 32); err == nil {
				return rune(v), 6, ""
			}
		}
		if s[1] == 'x' && len(s) >= 4 {
			if v, err := strconv.ParseUint(s[2:4], 16, 32); err == nil {
				return rune(v), 4, ""
			}
		}
		r, size = utf8.DecodeRuneInString(s[1:])
		if r < 0x10000 {
			return 0, 0, "" // \n, \d, \- and the like keep their meaning
		}
		size++
	} else if strings.ContainsRune(`[]()-^\|{}?*+.$`, r) {
		return 0, 0, ""
	}
	if r >= 0x10000 {
		hi, lo := utf16.EncodeRune(r)
		return -1, size, string([]rune{moveSurrogate(hi), moveSurrogate(lo)})
	}
	return r, size, ""
}

// writeRange writes the class range lo-hi of code units, its surrogate part moved.
func writeRange(b *strings.Builder, lo, hi rune) {
	piece := func(a, z rune) {
		if a > z {
			return
		}
		if a >= surrogateLo && z <= surrogateHi {
			b.WriteRune(moveSurrogate(a))
			b.WriteByte('-')
			b.WriteRune(moveSurrogate(z))
			return
		}
		fmt.Fprintf(b, `\u%04X-\u%04X`, a, z)
	}
	if lo > hi {
		fmt.Fprintf(b, `\u%04X-\u%04X`, lo, hi) // out of order: regexp2 reports it
		return
	}
	piece(lo, min(hi, surrogateLo-1))
	piece(max(lo, surrogateLo), min(hi, surrogateHi))
	piece(max(lo, surrogateHi+1), hi)
}

// checkJSOnly rejects what regexp2's ECMAScript mode accepts but JavaScript does not, so that a
// pattern AgentV 4.42.4 would fail on is an error here too: .NET's group syntax ((?#...),
// (?>...), (?'name'...), inline options such as (?i) or (?x:...)), and with flag u or v the
// lone braces and brackets and the identity escapes that Unicode mode forbids. With flag v, the
// class set syntax (nested classes, --, &&, \q{...}) is an error: regexp2 would read it as
// plain characters and match something else.
func checkJSOnly(source string, unicodeMode, vMode bool) error {
	inClass, classStart := false, 0 // classStart: the class's first character, after [ or [^
	for i := 0; i < len(source); {
		c := source[i]
		switch {
		case vMode && inClass && (c == '[' || strings.HasPrefix(source[i:], "--") || strings.HasPrefix(source[i:], "&&") || strings.HasPrefix(source[i:], `\q{`)):
			return errors.New("flag v's class set syntax (nested classes, --, &&, \\q{...}) is not supported: use flag u and a plain class")
		case vMode && inClass && (strings.ContainsRune("(){}/|", rune(c)) || c == '-' && (i == classStart || i+1 < len(source) && source[i+1] == ']')):
			return fmt.Errorf("a %c in a class must be escaped as \\%c with the v flag", c, c)
		case c == '\\':
			n, err := checkEscape(source[i:], inClass, unicodeMode)
			if err != nil {
				return err
			}
			i += n
			continue
		case inClass:
			if c == ']' {
				inClass = false
			}
		case c == '[':
			inClass, classStart = true, i+1
			if strings.HasPrefix(source[i:], "[^") {
				classStart++
			}
		case c == '(' && strings.HasPrefix(source[i:], "(?"):
			if err := checkGroup(source[i+2:]); err != nil {
				return err
			}
		case unicodeMode && c == '{':
			n := quantifierLen(source[i:])
			if n == 0 {
				return errors.New("a lone { must be escaped as \\{ with the u flag")
			}
			i += n
			continue
		case unicodeMode && (c == '}' || c == ']'):
			return fmt.Errorf("a lone %c must be escaped as \\%c with the u flag", c, c)
		}
		i++
	}
	return nil
}

// checkGroup checks what follows "(?": JavaScript knows (?:, (?=, (?!, (?<=, (?<!, (?<name>
// and the modifiers (?ims-ims:...) (ES2025).
func checkGroup(rest string) error {
	switch {
	case rest == "":
		return nil // regexp2 reports the unclosed group
	case strings.ContainsRune(":=!", rune(rest[0])):
		return nil
	case rest[0] == '<':
		if len(rest) > 1 && rest[1] == '=' || len(rest) > 1 && rest[1] == '!' {
			return nil
		}
		if end := strings.IndexByte(rest, '>'); end > 1 && !strings.ContainsAny(rest[1:end], "'()[]") {
			return nil // regexp2 checks the name itself
		}
	}
	if colon := strings.IndexByte(rest, ':'); colon > 0 && validModifiers(rest[:colon]) {
		return nil
	}
	show := rest
	if n := strings.IndexAny(show, ":)"); n >= 0 {
		show = show[:n+1]
	}
	if len(show) > 12 {
		show = show[:12] + "..."
	}
	return fmt.Errorf("(?%s is not JavaScript syntax: groups are (?:...), (?=...), (?!...), (?<=...), (?<!...), (?<name>...) and the flag modifiers (?i:...), (?-i:...) with i, m and s", show)
}

// validModifiers reports whether m is JavaScript's "ims-ims" of a modifier group: flags i, m
// and s, none twice, not both sides empty.
func validModifiers(m string) bool {
	on, off, _ := strings.Cut(m, "-")
	if on+off == "" {
		return false
	}
	for i, f := range on + off {
		if !strings.ContainsRune("ims", f) || strings.ContainsRune((on + off)[:i], f) {
			return false
		}
	}
	return true
}

// checkEscape checks the escape at the start of s (s[0] is the backslash) and returns its length
// in bytes: only flag u or v makes an unknown escape an error; regexp2 checks the rest.
func checkEscape(s string, inClass, unicodeMode bool) (int, error) {
	if len(s) < 2 {
		return len(s), nil
	}
	r, size := utf8.DecodeRuneInString(s[1:])
	n := 1 + size
	if (r == 'u' || r == 'p' || r == 'P') && len(s) > 2 && s[2] == '{' {
		if end := strings.IndexByte(s, '}'); end > 0 {
			n = end + 1
		}
	}
	if !unicodeMode {
		return n, nil
	}
	switch {
	case strings.ContainsRune(`^$\.*+?()[]{}|/`, r),
		strings.ContainsRune("dDwWsSbBfnrtvcxukpP", r),
		r >= '0' && r <= '9',
		r == '-' && inClass:
		return n, nil
	}
	return 0, fmt.Errorf("\\%c is not a valid escape with the u flag", r)
}

// quantifierLen is the length of the {n}, {n,} or {n,m} quantifier at the start of s, or 0.
func quantifierLen(s string) int {
	i := 1
	digits := func() int {
		j := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i - j
	}
	if digits() == 0 {
		return 0
	}
	if i < len(s) && s[i] == ',' {
		i++
		digits()
	}
	if i < len(s) && s[i] == '}' {
		return i + 1
	}
	return 0
}
