// Package textcap caps the long texts a results record stores (questions, answers, prompts),
// so one huge input costs a bounded record rather than a multiple of its size.
package textcap

import (
	"strconv"
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
