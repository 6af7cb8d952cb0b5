package config

import (
	"strings"
	"testing"
	"time"

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

func TestSeconds(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"90", 90 * time.Second, true},
		{" 1.5 ", 1500 * time.Millisecond, true},
		{"2m", 2 * time.Minute, true},
		{"1m30s", 90 * time.Second, true},
		{"0", 0, true},
		{"-1", 0, false},
		{"-2m", 0, false},
		{"NaN", 0, false},
		{"+Inf", 0, false},
		{"1e300", 0, false}, // would overflow time.Duration
		{"2 minutes", 0, false},
	} {
		got, ok := Seconds(tc.in)
		if ok != tc.ok || (ok && got != tc.want) {
			t.Errorf("Seconds(%q) = %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestScore(t *testing.T) {
	t.Parallel()
	for in, ok := range map[string]bool{"0": true, "1": true, " 0.75 ": true, "1.5": false, "-0.1": false, "NaN": false, "Inf": false, "80%": false} {
		if _, got := Score(in); got != ok {
			t.Errorf("Score(%q) ok = %v, want %v", in, got, ok)
		}
	}
}

// TestTableRows keeps the settings table well formed: every row is a flag or an input (names
// once each), a flag has its help, and an input's whole number has its bounds said.
func TestTableRows(t *testing.T) {
	t.Parallel()
	s := Defaults()
	flags, inputs := map[string]bool{}, map[string]bool{}
	for _, r := range s.Table() {
		if r.Flag == "" && r.Input == "" || flags[r.Flag] || inputs[r.Input] {
			t.Errorf("row %+v: no name, or a name twice", r)
		}
		if r.Flag != "" {
			flags[r.Flag] = true
			if r.Help == "" {
				t.Errorf("flag --%s has no help", r.Flag)
			}
		}
		if r.Input != "" {
			inputs[r.Input] = true
			switch r.Ptr.(type) {
			case *int, **int:
				if r.Want == "" || r.Max <= r.Min {
					t.Errorf("input %s has no bounds", r.Input)
				}
			}
		}
	}
}
