package textcap

import (
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
