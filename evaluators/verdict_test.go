package evaluators

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentv/action/internal/jsonx"
	"github.com/agentv/action/internal/proc"
	"github.com/google/go-cmp/cmp"
)

// referenceVerdict is the encoding/json reading of a judge reply that parseVerdict's
// in-place member scan must match exactly.
func referenceVerdict(reply string) verdict {
	v := verdict{hits: []string{}, misses: []string{}}
	raw, ok := jsonx.FirstObject(reply)
	if !ok {
		v.reasoning = "judge reply held no JSON verdict: " + proc.Excerpt(reply, 200)
		return v
	}
	var obj struct {
		Score     json.RawMessage `json:"score"`
		Hits      json.RawMessage `json:"hits"`
		Misses    json.RawMessage `json:"misses"`
		Reasoning json.RawMessage `json:"reasoning"`
	}
	if err := json.Unmarshal(raw, &obj); err != nil {
		v.reasoning = "judge reply held no JSON verdict: " + proc.Excerpt(reply, 200)
		return v
	}
	_ = json.Unmarshal(obj.Reasoning, &v.reasoning)
	score, ok := parseScore(obj.Score)
	if !ok {
		if v.reasoning == "" {
			v.reasoning = "judge verdict has no numeric score"
		}
		return v
	}
	v.score = score
	items := func(raw json.RawMessage) []string {
		out := []string{}
		var xs []any
		if json.Unmarshal(raw, &xs) != nil {
			return out
		}
		for _, it := range xs {
			if s, ok := it.(string); ok && strings.TrimSpace(s) != "" && len(out) < maxVerdictItems {
				out = append(out, s)
			}
		}
		return out
	}
	v.hits, v.misses = items(obj.Hits), items(obj.Misses)
	return v
}

var verdictSeeds = []string{
	`{"score":1,"hits":["ok"],"misses":[],"reasoning":"canned"}`,
	`{"score": 0.5, "hits": ["a"]}`,
	"```json\n{\"score\": 2}\n```",
	`{"score": -1e999}`,
	`{"score": "1"}`,
	`x {"hits": [1, " ", "b"]} y`,
	`{"SCORE": 0.3, "Hits": ["x", "y", "z", "w", "v"], "reaſoning": "fold", "misses": null}`,
	`{"score": 0.1, "score": 0.9, "reasoning": 5, "hits": {"a": "b"}}`,
	`{"sc\u006fre": 0.7, "reasoning": "esc \"q\" \u00e9 \ud83d\ude00", "misses": ["a\nb", "\t"]}`,
	"{\"score\": 1, \"reasoning\": \"bad \xff utf8\", \"hits\": [\"\xfe\"]}",
	`{"score": null, "reasoning": null}`,
	`{ "nested": {"score": 0}, "score" : 0.25 , "hits" : [ [ "x" ] , "y" ] }`,
	`no json at all`,
}

func TestParseVerdictMatchesEncodingJSON(t *testing.T) {
	t.Parallel()
	for _, reply := range verdictSeeds {
		t.Run(reply, func(t *testing.T) {
			t.Parallel()
			compareVerdicts(t, reply)
		})
	}
}

func compareVerdicts(t *testing.T, reply string) {
	t.Helper()
	got, want := parseVerdict(reply), referenceVerdict(reply)
	type view struct {
		Score          float64
		Hits, Misses   []string
		Reasoning, Err string
	}
	see := func(v verdict) view { return view{v.score, v.hits, v.misses, v.reasoning, ""} }
	if diff := cmp.Diff(see(want), see(got)); diff != "" {
		t.Errorf("parseVerdict(%q) (-encoding/json +scan):\n%s", reply, diff)
	}
}

func FuzzParseVerdictMatches(f *testing.F) {
	for _, s := range verdictSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, reply string) { compareVerdicts(t, reply) })
}

func BenchmarkParseVerdict(b *testing.B) {
	reply := `{"score":1,"hits":["ok"],"misses":[],"reasoning":"canned"}`
	b.ReportAllocs()
	for b.Loop() {
		if v := parseVerdict(reply); v.score != 1 {
			b.Fatal(v)
		}
	}
}
