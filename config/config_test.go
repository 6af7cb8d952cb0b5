package config

import (
	"strings"
	"testing"

	"github.com/agentv/action/cache"
)

func TestParseShard(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in      string
		i, n    int
		wantErr bool
	}{
		{in: "2/8", i: 2, n: 8},
		{in: " 1 / 1 ", i: 1, n: 1},
		{in: "8/8", i: 8, n: 8},
		{in: "0/8", wantErr: true},
		{in: "9/8", wantErr: true},
		{in: "2", wantErr: true},
		{in: "a/b", wantErr: true},
		{in: "1/0", wantErr: true},
		{in: "-1/4", wantErr: true},
		{in: "1/100000", wantErr: true},
	} {
		sh, err := ParseShard(tc.in)
		if tc.wantErr {
			if err == nil || !strings.Contains(err.Error(), "I/N") {
				t.Errorf("ParseShard(%q) error = %v, want one explaining I/N", tc.in, err)
			}
			continue
		}
		if err != nil || sh.Index != tc.i || sh.Count != tc.n {
			t.Errorf("ParseShard(%q) = %+v, %v", tc.in, sh, err)
		}
	}
}

func TestParseCache(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]cache.Mode{"": cache.ReadWrite, "true": cache.ReadWrite, "read-write": cache.ReadWrite, "Read-Only": cache.ReadOnly, "off": cache.Off, "false": cache.Off} {
		if got, err := ParseCache(in); err != nil || got != want {
			t.Errorf("ParseCache(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseCache("sometimes"); err == nil || !strings.Contains(err.Error(), "read-write, read-only or off") {
		t.Errorf("ParseCache(sometimes) error = %v", err)
	}
}
