package report

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agentv/action/internal/textcap"
	"github.com/agentv/action/internal/textfmt"
)

// cutMark ends a text that compact cut short, followed by how many characters it left out (and
// the text's trailing newlines). NUL never survives logtext.Block, so the mark cannot show.
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
	return s[:end] + fmt.Sprintf("… [%s more %s]", thousands(left), textfmt.Plural(left, "character", "characters"))
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

// midMark stands for the middle cutWhy left out, followed by how many characters and a NUL.
const midMark = "\x00agentv-mid:"

// cutWhy keeps at most n characters of a Why, its start and its end (textcap.MiddleParts),
// marking how many it left out, so elide can shorten it further and still count them.
func cutWhy(s string, n int) string {
	head, tail, left := textcap.MiddleParts(s, n)
	if left == 0 {
		return s
	}
	return head + midMark + strconv.Itoa(left) + "\x00" + tail
}

// elide shortens a reason to about limit characters (never under textcap.MinKeep), keeping its
// start and its end, where an error names what failed: "start … [N characters left out] … end".
// It counts what cutWhy left out; a text compact cut at its end is cut there (truncate).
func elide(s string, limit int) string {
	if strings.Contains(s, cutMark) {
		return truncate(s, limit)
	}
	extra := 0
	if i := strings.Index(s, midMark); i >= 0 {
		rest := s[i+len(midMark):]
		if j := strings.IndexByte(rest, 0); j >= 0 {
			if n, err := strconv.Atoi(rest[:j]); err == nil && n >= 0 {
				head, tail := s[:i], rest[j+1:]
				if utf8.RuneCountInString(head)+utf8.RuneCountInString(tail) <= max(limit, textcap.MinKeep) {
					return head + middleNote(n) + tail
				}
				s, extra = head+tail, n // cut further: the parts kept are far longer than the cut's sides
			}
		}
	}
	head, tail, left := textcap.MiddleParts(s, limit)
	if left == 0 {
		return s
	}
	return head + middleNote(left+extra) + tail
}

// middleNote stands for the n characters a middle cut left out.
func middleNote(n int) string {
	return fmt.Sprintf(" … [%s %s left out] … ", thousands(n), textfmt.Plural(n, "character", "characters"))
}
