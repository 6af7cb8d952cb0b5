package jsonx

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFirstObject(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want string // "" means not found
	}{
		{"whole reply", `{"score": 0.5}`, `{"score": 0.5}`},
		{"whole reply with spaces", " \n {\"score\": 1}\n\t", `{"score": 1}`},
		{"fenced", "```json\n{\"score\": 1, \"hits\": []}\n```", `{"score": 1, "hits": []}`},
		{"bare fence", "Here:\n```\n{\"a\":1}\n```\nbye", `{"a":1}`},
		{"embedded in prose", `The verdict is {"score": 0.2} as shown.`, `{"score": 0.2}`},
		{"two objects first wins", `{"score": 0.1} and then {"score": 0.9}`, `{"score": 0.1}`},
		{"two objects back to back", `{"score":0.3}{"score":0.4}`, `{"score":0.3}`},
		{"braces inside strings", `note {"reasoning": "use } and { freely", "score": 1} end`, `{"reasoning": "use } and { freely", "score": 1}`},
		{"escaped quote in string", `x {"r": "a \"}\" b", "score": 1}`, `{"r": "a \"}\" b", "score": 1}`},
		{"invalid outer valid inner", `{not json {"score": 0.7} }`, `{"score": 0.7}`},
		{"invalid then valid", `{oops} {"score": 1}`, `{"score": 1}`},
		{"unbalanced prefix brace", `Use { to open. Verdict: {"score": 1}`, `{"score": 1}`},
		{"nested object kept whole", `ok {"score": 1, "details": {"a": {"b": 2}}} ok`, `{"score": 1, "details": {"a": {"b": 2}}}`},
		{"prose quote before", `He said "hi. {"score": 1}`, `{"score": 1}`},
		{"no json", `I think the answer is good.`, ""},
		{"array is not an object", `[1, 2, 3]`, ""},
		{"empty", ``, ""},
		{"only open braces", strings.Repeat("{", 1000), ""},
		{"trailing comma invalid", `{"score": 1,}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := FirstObject(tt.in)
			if ok != (tt.want != "") {
				t.Fatalf("FirstObject(%q) ok = %v, want %v (got %s)", tt.in, ok, tt.want != "", got)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("FirstObject(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

// TestFirstObjectAdversarial makes sure pathological text ends (the scan budget) and still
// finds an object that comes before the trouble.
func TestFirstObjectAdversarial(t *testing.T) {
	t.Parallel()
	in := `{"score": 1} ` + strings.Repeat(`{"a":`, 200_000)
	got, ok := FirstObject(in)
	if !ok || string(got) != `{"score": 1}` {
		t.Fatalf("got %q, %v", got, ok)
	}
	if _, ok := FirstObject(strings.Repeat(`{"a":{`, 200_000)); ok {
		t.Fatal("found an object in unbalanced input")
	}
}

func FuzzFirstObject(f *testing.F) {
	for _, s := range []string{`{"score": 1}`, "```json\n{\"a\":\"}\"}\n```", `x {y} {"z": [1, {"w": null}]}`, `{"a": "\u00e9\\"}`, "{", "}", `"{"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := FirstObject(s)
		if !ok {
			if w := strings.TrimSpace(s); strings.HasPrefix(w, "{") && json.Valid([]byte(w)) {
				t.Fatalf("FirstObject(%q) missed the whole-text object", s)
			}
			return
		}
		if !json.Valid(got) || got[0] != '{' || got[len(got)-1] != '}' {
			t.Fatalf("FirstObject(%q) = %q: not a JSON object", s, got)
		}
		if !strings.Contains(s, string(got)) {
			t.Fatalf("FirstObject(%q) = %q: not a substring", s, got)
		}
		// An object preceded by prose without braces is found exactly.
		prefix := strings.ReplaceAll(s, "{", "(")
		wrapped := prefix + " " + string(got) + " tail"
		again, ok := FirstObject(wrapped)
		if !ok || string(again) != string(got) {
			t.Fatalf("FirstObject(%q) = %q, %v; want %q", wrapped, again, ok, got)
		}
	})
}

func TestMarshalIndentCompact(t *testing.T) {
	t.Parallel()
	got, err := Marshal(map[string]any{"a": "<x>&"})
	if err != nil || string(got) != `{"a":"<x>&"}` {
		t.Fatalf("Marshal = %s, %v", got, err)
	}
	if got := string(Indent([]byte(`{"b":[1,{"c":"<"}],"a":{}}`))); got != "{\n  \"b\": [\n    1,\n    {\n      \"c\": \"<\"\n    }\n  ],\n  \"a\": {}\n}" {
		t.Errorf("Indent = %q", got)
	}
	if got := string(Indent([]byte(`{bad`))); got != `{bad` {
		t.Errorf("Indent(invalid) = %q", got)
	}
	c, err := AppendCompact([]byte("x"), []byte("{ \"k\" : [ 1 , \"\\u003c\" ] }"))
	if err != nil || string(c) != `x{"k":[1,"\u003c"]}` {
		t.Errorf("AppendCompact = %s, %v", c, err)
	}
	if _, err := AppendCompact(nil, []byte("{")); err == nil {
		t.Error("AppendCompact accepted invalid JSON")
	}
}
