package report

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// clean makes untrusted text safe to put anywhere: it removes ANSI escape sequences (CSI, OSC
// and the other ESC forms) and every character XML 1.0 cannot carry or a terminal would act on
// — NUL and the other C0 controls except tab and newline, DEL, C1 controls, U+FFFE and U+FFFF —
// and replaces invalid UTF-8 (lone surrogates included) with U+FFFD. CR LF and lone CR become LF.
func clean(s string) string {
	if isClean(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == 0x1b:
				i = skipEscape(s, i)
				continue
			case c == '\r':
				b.WriteByte('\n')
				if i+1 < len(s) && s[i+1] == '\n' {
					i++
				}
			case c == '\n' || c == '\t' || (c >= 0x20 && c < 0x7f):
				b.WriteByte(c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteRune(utf8.RuneError)
		case r == 0x9b: // C1 form of CSI
			i = skipCSI(s, i+size)
			continue
		case r >= 0x80 && r <= 0x9f, r == 0xfffe, r == 0xffff:
			// dropped
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// isClean reports whether clean would return s unchanged (the common case, checked cheaply).
func isClean(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			return cleanUnicode(s[i:])
		}
		if (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f {
			return false
		}
	}
	return true
}

func cleanUnicode(s string) bool {
	for i, r := range s {
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				return false
			}
		}
		if (r < 0x20 && r != '\n' && r != '\t') || (r >= 0x7f && r <= 0x9f) || r == 0xfffe || r == 0xffff {
			return false
		}
	}
	return true
}

// skipEscape returns the index after the escape sequence starting with ESC at s[i].
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
		// nF: intermediates then one final byte (charset designation and the like)
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
	return j // lone ESC before a control or non-ASCII: drop just the ESC
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

// cutMark ends a text that compact cut short, followed by the number of characters it left
// out (and the text's trailing newlines). NUL never survives clean, so the mark cannot show even where truncate is bypassed.
const cutMark = "\x00agentv-cut:"

// truncate cuts s to at most limit runes, ending with a note of how much was left out,
// counting what compact already cut.
func truncate(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	extra := 0
	if i := strings.LastIndex(s, cutMark); i >= 0 {
		tail := s[i+len(cutMark):]
		digits := strings.TrimRight(tail, "\n")
		if n, err := strconv.Atoi(digits); err == nil && n >= 0 {
			s, extra = s[:i], n+len(tail)-len(digits) // the count, then the newlines kept after it
		}
	}
	n := utf8.RuneCountInString(s)
	if n+extra <= limit {
		return s
	}
	end, shown := runeOffset(s, limit)
	left := n + extra - shown
	return s[:end] + fmt.Sprintf("… [%s more %s]", thousands(left), plural(left, "character", "characters"))
}

// runeOffset returns the byte offset of s's rune number n (len(s) when s is shorter) and how
// many runes come before it. Invalid bytes count as one rune each, as in utf8.RuneCountInString.
func runeOffset(s string, n int) (end, runes int) {
	for i := range s {
		if runes == n {
			return i, runes
		}
		runes++
	}
	return len(s), runes
}

// oneLine joins the lines of s with spaces and trims it, for messages shown on one line.
func oneLine(s string) string {
	if isOneLine(s) {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}

// isOneLine reports whether oneLine would return s unchanged: printable ASCII with single
// inner spaces (checked without allocating; anything else takes the general path).
func isOneLine(s string) bool {
	if s == "" {
		return true
	}
	if s[0] == ' ' || s[len(s)-1] == ' ' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == ' ' {
			if s[i-1] == ' ' {
				return false
			}
			continue
		}
		if c < ' ' || c >= 0x7f {
			return false
		}
	}
	return true
}
