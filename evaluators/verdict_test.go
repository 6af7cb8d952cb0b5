package evaluators

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// parseVerdict reads keys as encoding/json matches struct fields (case-insensitively, the last
// occurrence winning), drops what is not a number, string or list of strings, and keeps at
// most four non-blank hits and misses.
func TestParseVerdictReplies(t *testing.T) {
	t.Parallel()
	tests := []struct {
		reply        string
		score        float64
		hits, misses []string
		reasoning    string
	}{
		{"{\"score\":1,\"hits\":[\"ok\"],\"misses\":[],\"reasoning\":\"canned\"}", 1, []string{"ok"}, []string{}, "canned"},
		{"{\"score\": 0.5, \"hits\": [\"a\"]}", 0.5, []string{"a"}, []string{}, ""},
		{"```json\n{\"score\": 2}\n```", 1, []string{}, []string{}, ""},
		{"{\"score\": -1e999}", 0, []string{}, []string{}, ""},
		{"{\"score\": \"1\"}", 0, []string{}, []string{}, "judge verdict has no numeric score"},
		{"x {\"hits\": [1, \" \", \"b\"]} y", 0, []string{}, []string{}, "judge verdict has no numeric score"},
		{"{\"SCORE\": 0.3, \"Hits\": [\"x\", \"y\", \"z\", \"w\", \"v\"], \"reaſoning\": \"fold\", \"misses\": null}", 0.3, []string{"x", "y", "z", "w"}, []string{}, "fold"},
		{"{\"score\": 0.1, \"score\": 0.9, \"reasoning\": 5, \"hits\": {\"a\": \"b\"}}", 0.9, []string{}, []string{}, ""},
		{"{\"sc\\u006fre\": 0.7, \"reasoning\": \"esc \\\"q\\\" \\u00e9 \\ud83d\\ude00\", \"misses\": [\"a\\nb\", \"\\t\"]}", 0.7, []string{}, []string{"a\nb"}, "esc \"q\" é 😀"},
		{"{\"score\": 1, \"reasoning\": \"bad \xff utf8\", \"hits\": [\"\xfe\"]}", 1, []string{"\ufffd"}, []string{}, "bad \ufffd utf8"},
		{"{\"score\": null, \"reasoning\": null}", 0, []string{}, []string{}, "judge verdict has no numeric score"},
		{"{ \"nested\": {\"score\": 0}, \"score\" : 0.25 , \"hits\" : [ [ \"x\" ] , \"y\" ] }", 0.25, []string{"y"}, []string{}, ""},
		{"no json at all", 0, []string{}, []string{}, "judge reply held no JSON verdict: no json at all"},
	}
	for _, tt := range tests {
		t.Run(tt.reply, func(t *testing.T) {
			t.Parallel()
			v, _ := readVerdict(tt.reply)
			type view struct {
				Score        float64
				Hits, Misses []string
				Reasoning    string
			}
			want := view{tt.score, tt.hits, tt.misses, tt.reasoning}
			if diff := cmp.Diff(want, view{v.score, v.hits, v.misses, v.reasoning}); diff != "" {
				t.Errorf("readVerdict(%q) (-want +got):\n%s", tt.reply, diff)
			}
		})
	}
}

func BenchmarkParseVerdict(b *testing.B) {
	reply := `{"score":1,"hits":["ok"],"misses":[],"reasoning":"canned"}`
	b.ReportAllocs()
	for b.Loop() {
		if v, _ := readVerdict(reply); v.score != 1 {
			b.Fatal(v)
		}
	}
}
