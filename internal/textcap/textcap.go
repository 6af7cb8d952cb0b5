// Package textcap caps the long texts a results record stores (questions, answers, prompts),
// so one huge input costs a bounded record rather than a multiple of its size.
package textcap

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Max is the most bytes of one text a record keeps.
const Max = 1 << 20

// Cap returns s when it fits in Max bytes, else its first Max bytes (cut at a character
// boundary) followed by a note saying how many bytes were dropped.
func Cap(s string) string {
	return CapAt(s, Max)
}

// CapAt is Cap with another limit.
func CapAt(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "… [truncated " + strconv.Itoa(len(s)-cut) + " bytes]"
}

// MinKeep is the fewest characters a message excerpt keeps: enough for an error's cause and
// the file or reply it names.
const MinKeep = 200

// snap is how far a middle cut moves to fall on a space (or before a "/" in the part kept
// from the end), so neither side starts or ends inside a word or a path's folder name.
const snap = 16

// Middle returns s when it has at most n characters (runes; never fewer than MinKeep), else
// its start and its end with the middle left out, "start … [N characters left out] … end":
// what fails is usually at the end of a message (the file not found, the reply that did not
// parse), and what it was doing at the start.
func Middle(s string, n int) string {
	head, tail, left := MiddleParts(s, n)
	if left == 0 {
		return s
	}
	return head + " … [" + strconv.Itoa(left) + " characters left out] … " + tail
}

// MiddleParts is Middle's cut: the start and end kept and how many characters lie between
// them (0, with head s, when s fits). The start gets three fifths of n.
func MiddleParts(s string, n int) (head, tail string, left int) {
	n = max(n, MinKeep)
	total := utf8.RuneCountInString(s)
	if total <= n {
		return s, "", 0
	}
	headRunes := n * 3 / 5
	he := byteOffset(s, headRunes)
	ts := byteOffset(s, total-(n-headRunes))
	// Back the start's end up to a space, and move the end's start on to a word or folder.
	if i := strings.LastIndexByte(s[:he], ' '); i >= 0 && utf8.RuneCountInString(s[i:he]) <= snap {
		he = i
	}
	limit := ts
	for k := 0; k < snap && limit < len(s); k++ {
		_, size := utf8.DecodeRuneInString(s[limit:])
		limit += size
	}
	if i := strings.IndexAny(s[ts:limit], " /"); i >= 0 {
		ts += i
		if s[ts] == ' ' {
			ts++
		}
	}
	head, tail = strings.TrimRight(s[:he], " "), s[ts:]
	return head, tail, total - utf8.RuneCountInString(head) - utf8.RuneCountInString(tail)
}

// byteOffset is the byte offset of s's rune number n.
func byteOffset(s string, n int) int {
	for k := range s {
		if n == 0 {
			return k
		}
		n--
	}
	return len(s)
}
