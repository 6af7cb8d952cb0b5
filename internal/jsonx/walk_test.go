package jsonx

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestMembersAndElements(t *testing.T) {
	t.Parallel()
	raw := []byte(` { "a" : [1, {"x": "}"}, "]"] , "b\"c":{"d":[]},"e":null, "f" : -1.5e3 } `)
	var got []string
	if !Members(raw, func(k, v []byte) { got = append(got, string(k)+"="+string(v)) }) {
		t.Fatal("not an object")
	}
	want := []string{`"a"=[1, {"x": "}"}, "]"]`, `"b\"c"={"d":[]}`, `"e"=null`, `"f"=-1.5e3`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("members (-want +got):\n%s", diff)
	}
	got = nil
	if !Elements([]byte(`[1, {"x": "}"}, "]" ,[ ]]`), func(v []byte) { got = append(got, string(v)) }) {
		t.Fatal("not an array")
	}
	if diff := cmp.Diff([]string{`1`, `{"x": "}"}`, `"]"`, `[ ]`}, got); diff != "" {
		t.Errorf("elements (-want +got):\n%s", diff)
	}
	if Members([]byte(`[1]`), func(k, v []byte) {}) || Elements([]byte(`{}`), func(v []byte) {}) {
		t.Error("wrong kind accepted")
	}
}

func TestString(t *testing.T) {
	t.Parallel()
	for _, raw := range []string{`"plain"`, `"é"`, `"a\"b\\c\n\u00e9\ud83d\ude00"`, "\"bad \xff\"", `"\ud800"`, `""`} {
		t.Run(raw, func(t *testing.T) {
			t.Parallel()
			var want string
			if err := json.Unmarshal([]byte(raw), &want); err != nil {
				t.Fatal(err)
			}
			got, ok := String([]byte(raw))
			if !ok || got != want {
				t.Errorf("String(%q) = %q, %v; want %q", raw, got, ok, want)
			}
		})
	}
	for _, raw := range []string{`null`, `1`, `[]`, ``} {
		if _, ok := String([]byte(raw)); ok {
			t.Errorf("String(%q) accepted a non-string", raw)
		}
	}
}
