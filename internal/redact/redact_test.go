package redact

import "testing"

func TestRedactor(t *testing.T) {
	t.Parallel()
	var r Redactor
	r.Add("sk-live-123456", "", "ab", "sk-live-123456-longer", `pa"ss\word`)
	tests := []struct{ in, want string }{
		{"key=sk-live-123456 end", "key=*** end"},
		{"key=sk-live-123456-longer", "key=***"},
		{"short ab stays", "short ab stays"},
		{`{"k":"pa\"ss\\word"}`, `{"k":"***"}`},
		{"nothing", "nothing"},
	}
	for _, tt := range tests {
		if got := r.String(tt.in); got != tt.want {
			t.Errorf("String(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	var nilR *Redactor
	if got := nilR.String("x sk-live-123456"); got != "x sk-live-123456" {
		t.Errorf("nil redactor changed text: %q", got)
	}
	var seen []string
	r.OnAdd(func(s string) { seen = append(seen, s) })
	r.Add("new-secret-value")
	if len(seen) == 0 || seen[len(seen)-1] != "new-secret-value" {
		t.Errorf("OnAdd hook saw %q", seen)
	}
}
