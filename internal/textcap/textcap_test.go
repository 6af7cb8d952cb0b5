package textcap

import (
	"strconv"
	"strings"
	"testing"
)

func TestCapAt(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in string
		max      int
		want     string
	}{
		{"fits", "hello", 5, "hello"},
		{"empty", "", 0, ""},
		{"cut", "hello world", 5, "hello… [truncated 6 bytes]"},
		// é is two bytes: a cut inside it backs up to the character's start.
		{"character boundary", "aé", 2, "a… [truncated 2 bytes]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := CapAt(tt.in, tt.max); got != tt.want {
				t.Errorf("CapAt(%q, %d) = %q, want %q", tt.in, tt.max, got, tt.want)
			}
		})
	}
	big := strings.Repeat("x", Max+10)
	if got := Cap(big); len(got) > Max+64 || !strings.HasSuffix(got, "[truncated 10 bytes]") {
		t.Errorf("Cap of %d bytes gave %d bytes ending %q", len(big), len(got), got[len(got)-30:])
	}
}

func TestMiddle(t *testing.T) {
	t.Parallel()
	words := strings.Repeat("word ", 100) // 500 characters
	path := "/work/" + strings.Repeat("a-long-folder-name/", 20) + "check_the_poem.py"
	reply := "the judge's reply held no valid verdict: " + strings.Repeat("x", 300) + "; reply: Looks fine to me, score high"
	tests := []struct {
		name, in string
		n        int
		check    func(t *testing.T, got string)
	}{
		{"fits", "hello", 5, func(t *testing.T, got string) {
			if got != "hello" {
				t.Errorf("got %q", got)
			}
		}},
		{"keeps at least MinKeep", strings.Repeat("é", 150), 10, func(t *testing.T, got string) {
			if got != strings.Repeat("é", 150) {
				t.Errorf("a 150-character text was cut at n=10: %q", got)
			}
		}},
		{"start and end of a reply", reply, 200, func(t *testing.T, got string) {
			if !strings.HasPrefix(got, "the judge's reply held no valid verdict: ") || !strings.HasSuffix(got, "; reply: Looks fine to me, score high") {
				t.Errorf("got %q", got)
			}
		}},
		{"end of a path, from a folder", "could not open " + path, 200, func(t *testing.T, got string) {
			_, tail, ok := strings.Cut(got, "left out] … ")
			if !ok || !strings.HasPrefix(tail, "/a-long-folder-name/") || !strings.HasSuffix(tail, "/check_the_poem.py") {
				t.Errorf("got %q", got)
			}
		}},
		{"cuts between words", words, 200, func(t *testing.T, got string) {
			head, tail, ok := strings.Cut(got, " … [")
			_, tail, _ = strings.Cut(tail, "] … ")
			if !ok || !strings.HasSuffix(head, "word") || !strings.HasPrefix(tail, "word") {
				t.Errorf("got %q", got)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := Middle(tt.in, tt.n)
			tt.check(t, got)
			// What is shown and what the note counts add up to the whole text.
			head, tail, left := MiddleParts(tt.in, tt.n)
			if left > 0 {
				if shown := len([]rune(head)) + len([]rune(tail)); shown+left != len([]rune(tt.in)) || shown > max(tt.n, MinKeep) {
					t.Errorf("%d shown + %d left out != %d, or over the limit", shown, left, len([]rune(tt.in)))
				}
				if want := head + " … [" + strconv.Itoa(left) + " characters left out] … " + tail; got != want {
					t.Errorf("Middle = %q, want %q", got, want)
				}
			}
		})
	}
}
