// Package logtext makes untrusted text (case ids, file names, model answers, error messages)
// safe to print in a CI log or to put in a report: it is the one sanitiser of such text.
//
// Under GitHub Actions the runner reads every line a step writes, on stdout and stderr, as a
// possible workflow command: a line that starts with "::" once leading whitespace is trimmed
// (::add-mask::, ::error::, ::stop-commands::), and a "##[" anywhere in a line (the legacy
// form, ##[add-mask]value). Text that carries a line break can therefore start a line of its
// own and command the runner; so can a stray "##[". The runner splits lines at LF and CR, and
// a viewer may break them at the Unicode separators too.
//
// Line flattens text to one safe line; Block keeps the lines of text that is printed between
// ::stop-commands:: and its resume token, where the runner takes no line for a command, or
// that goes into a report (JUnit XML, Markdown).
package logtext

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Line returns s as one line that is safe anywhere in a log line: Block's removals, every run
// of whitespace (line breaks of every kind included) becomes one space, the ends are trimmed,
// every "##[" becomes `##\[`, and a leading "::" becomes `\::`.
func Line(s string) string {
	if isSafeLine(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for r := range runes(s) {
		switch {
		case unicode.IsSpace(r):
			space = b.Len() > 0
			continue
		case dropped(r):
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		if r == '[' && strings.HasSuffix(b.String(), "##") {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	out := b.String()
	if strings.HasPrefix(out, "::") {
		out = `\` + out
	}
	return out
}

// isSafeLine reports whether Line would return s unchanged, without allocating: printable
// ASCII, single inner spaces, no "##[" and no leading "::".
func isSafeLine(s string) bool {
	if s == "" {
		return true
	}
	if s[0] == ' ' || s[len(s)-1] == ' ' || strings.HasPrefix(s, "::") {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == ' ':
			if s[i-1] == ' ' {
				return false
			}
		case c == '[':
			if i >= 2 && s[i-1] == '#' && s[i-2] == '#' {
				return false
			}
		case c < ' ' || c >= 0x7f:
			return false
		}
	}
	return true
}

// Block returns s with its lines kept: ANSI escape sequences (CSI, OSC and the other ESC
// forms), control characters other than tab (a terminal or viewer would act on them), the
// non-characters U+FFFE and U+FFFF (XML 1.0 cannot carry them) and bidirectional overrides are
// removed (NEL too, a C1 control); CR LF and the other line breaks (CR, VT, FF, U+2028, U+2029)
// become LF, and invalid UTF-8 becomes U+FFFD.
func Block(s string) string {
	if isSafeBlock(s) {
		return s // the common case, checked without allocating (reports clean every text)
	}
	var b strings.Builder
	b.Grow(len(s))
	for r := range runes(s) {
		switch {
		case isBreak(r):
			b.WriteByte('\n')
		case r == '\t' || !dropped(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// isSafeBlock reports whether Block would return s unchanged.
func isSafeBlock(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= utf8.RuneSelf {
			return safeRunes(s[i:])
		} else if (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f {
			return false
		}
	}
	return true
}

func safeRunes(s string) bool {
	for i, r := range s {
		switch {
		case r == '\n' || r == '\t':
		case r == utf8.RuneError:
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				return false
			}
		case isBreak(r) || dropped(r):
			return false
		}
	}
	return true
}

// runes yields the runes of s without its escape sequences, CR LF as one LF and each invalid
// byte as U+FFFD.
func runes(s string) func(yield func(rune) bool) {
	return func(yield func(rune) bool) {
		for i := 0; i < len(s); {
			if s[i] == 0x1b {
				i = skipEscape(s, i)
				continue
			}
			if s[i] == '\r' && i+1 < len(s) && s[i+1] == '\n' {
				i++
			}
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == 0x9b { // C1 form of CSI
				i = skipCSI(s, i+size)
				continue
			}
			i += size
			if !yield(r) {
				return
			}
		}
	}
}

// isBreak reports whether r ends a line for the runner or for a log viewer. NEL, a C1
// control, is dropped instead: reports always did.
func isBreak(r rune) bool {
	switch r {
	case '\n', '\r', '\v', '\f', 0x2028, 0x2029:
		return true
	}
	return false
}

// dropped reports whether r is removed: control characters, the non-characters U+FFFE and
// U+FFFF, and the bidirectional embeddings, overrides and isolates, which can make a line read
// differently from its bytes.
func dropped(r rune) bool {
	switch {
	case unicode.IsControl(r), r == 0xfffe, r == 0xffff:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// skipEscape returns the index after the escape sequence that starts with ESC at s[i]
// (CSI, OSC and the other string controls, nF and Fp/Fe/Fs escapes).
func skipEscape(s string, i int) int {
	j := i + 1
	if j >= len(s) {
		return j
	}
	switch c := s[j]; {
	case c == '[':
		return skipCSI(s, j+1)
	case c == ']' || c == 'P' || c == 'X' || c == '^' || c == '_':
		// OSC, DCS, SOS, PM, APC: a string ended by BEL or ST (ESC \). Unterminated, only the
		// introducer goes, so a stray ESC ] cannot swallow the rest of the text.
		for k := j + 1; k < len(s); k++ {
			if s[k] == 0x07 {
				return k + 1
			}
			if s[k] == 0x1b && k+1 < len(s) && s[k+1] == '\\' {
				return k + 2
			}
		}
		return j + 1
	case c >= 0x20 && c <= 0x2f:
		// nF: intermediates, then one final byte
		k := j
		for k < len(s) && s[k] >= 0x20 && s[k] <= 0x2f {
			k++
		}
		if k < len(s) && s[k] >= 0x30 && s[k] <= 0x7e {
			k++
		}
		return k
	case c >= 0x30 && c <= 0x7e:
		return j + 1
	}
	return j // a lone ESC before a control or non-ASCII byte: drop just the ESC
}

// skipCSI returns the index after a control sequence whose parameters start at s[j]:
// parameter bytes 0x30–0x3F, intermediates 0x20–0x2F, one final byte 0x40–0x7E.
func skipCSI(s string, j int) int {
	for j < len(s) && s[j] >= 0x30 && s[j] <= 0x3f {
		j++
	}
	for j < len(s) && s[j] >= 0x20 && s[j] <= 0x2f {
		j++
	}
	if j < len(s) && s[j] >= 0x40 && s[j] <= 0x7e {
		j++
	}
	return j
}
