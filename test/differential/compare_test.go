package differential

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCompare(t *testing.T) {
	t.Parallel()
	base := func() map[string]Outcome {
		return map[string]Outcome{"t1": {Score: 0.75, Verdict: "fail", Graders: map[string]Grader{
			"a": {1, "pass"}, "b": {0.5, "fail"}, "combo/#0": {1, "pass"}}}}
	}
	tests := []struct {
		name   string
		change func(ours, theirs map[string]Outcome)
		want   []string
	}{
		{"same", func(_, _ map[string]Outcome) {}, nil},
		{"score within rounding", func(o, _ map[string]Outcome) { o["t1"] = with(o["t1"], func(x *Outcome) { x.Score = 0.7501 }) }, nil},
		{"score", func(o, _ map[string]Outcome) { o["t1"] = with(o["t1"], func(x *Outcome) { x.Score = 0.5 }) },
			[]string{"t1 score: agentv 0.5, 4.42.4 0.75"}},
		{"verdict", func(_, th map[string]Outcome) { th["t1"] = with(th["t1"], func(x *Outcome) { x.Verdict = "pass" }) },
			[]string{"t1 verdict: agentv fail, 4.42.4 pass"}},
		{"grader score and band", func(o, _ map[string]Outcome) { o["t1"].Graders["b"] = Grader{0.6, "borderline"} },
			[]string{"t1 grader[b].score: agentv 0.6, 4.42.4 0.5", "t1 grader[b].verdict: agentv borderline, 4.42.4 fail"}},
		{"grader only one side", func(_, th map[string]Outcome) { delete(th["t1"].Graders, "combo/#0") },
			[]string{"t1 grader[combo/#0]: agentv present, 4.42.4 missing"}},
		{"test only one side", func(o, _ map[string]Outcome) { o["t2"] = Outcome{Verdict: "pass"} },
			[]string{"t2 test: agentv present, 4.42.4 missing"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ours, theirs := base(), base()
			tc.change(ours, theirs)
			var got []string
			for _, d := range Compare(ours, theirs) {
				got = append(got, d.String())
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %q\nwant %q", got, tc.want)
			}
		})
	}
}

func with(o Outcome, f func(*Outcome)) Outcome { f(&o); return o }

func TestComparePayloads(t *testing.T) {
	t.Parallel()
	ours := map[string]map[string]string{"p": {"output": "string", "question": "string", "metadata": "null"}, "only-ours": {}}
	theirs := map[string]map[string]string{"p": {"output": "string", "metadata": "object", "metadata.owner": "string"}}
	var got []string
	for _, d := range ComparePayloads(ours, theirs) {
		got = append(got, d.String())
	}
	want := []string{
		"only-ours payload: agentv recorded, 4.42.4 not recorded (the grader did not run)",
		"p payload.metadata: agentv null, 4.42.4 object",
		"p payload.metadata.owner: agentv absent, 4.42.4 string",
		"p payload.question: agentv string, 4.42.4 absent",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

// An index.jsonl reads into outcomes: nested graders keyed by position, execution_status
// as the verdict, a broken line an error naming it.
func TestReadIndex(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "index.jsonl")
	write(t, path, `{"test_id":"conv","score":0.5,"execution_status":"quality_failure","scores":[{"name":"turn-1","type":"rubrics","score":1,"verdict":"pass","scores":[{"type":"contains","score":1,"verdict":"pass"}]},{"name":"turn-2","score":0,"verdict":"skip"}]}
{"test_id":"criteria-only","score":0.9,"execution_status":"ok"}
{"test_id":"broken","score":0,"execution_status":"execution_error","error":"boom"}
`)
	got, err := ReadIndex(path)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Outcome{
		"conv":          {Score: 0.5, Verdict: "fail", Graders: map[string]Grader{"turn-1": {1, "pass"}, "turn-1/#0": {1, "pass"}, "turn-2": {0, "skip"}}},
		"criteria-only": {Score: 0.9, Verdict: "pass", Graders: map[string]Grader{}},
		"broken":        {Score: 0, Verdict: "error", Error: "boom", Graders: map[string]Grader{}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("outcomes (-want +got):\n%s", diff)
	}
	write(t, path, "{not json\n")
	if _, err := ReadIndex(path); err == nil || !strings.Contains(err.Error(), "index.jsonl:1") {
		t.Errorf("a broken line: %v", err)
	}
}

func write(t *testing.T, path, body string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestClassify(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	anchors := map[string]bool{"deliberate-differences-from-4424": true}
	knownPath := filepath.Join(dir, "known.yaml")
	write(t, knownPath, `- test: defaults-*
  field: verdict
  doc: docs/agentv-4.md#deliberate-differences-from-4424
  source: packages/core/src/evaluation/orchestrator.ts:1
- test: never-seen
  field: score
  doc: docs/agentv-4.md#deliberate-differences-from-4424
  source: x.ts:1
`)
	pendingPath := filepath.Join(dir, "pending.yaml")
	write(t, pendingPath, `- test: p
  field: payload.trace.*
  waits_for: code-grader payload trace
`)
	known, err := LoadList(knownPath, "known", anchors)
	if err != nil {
		t.Fatal(err)
	}
	pending, err := LoadList(pendingPath, "pending", anchors)
	if err != nil {
		t.Fatal(err)
	}
	diffs := []Difference{
		{"defaults-merged", "verdict", "pass", "fail"},
		{"p", "payload.trace.events", "absent", "array"},
		{"p", "payload.trace_summary.x", "absent", "object"}, // not trace.*: the dot is literal
		{"defaults-merged", "grader[x].verdict", "pass", "fail"},
	}
	c := Classify(diffs, known, pending)
	if len(c.Known) != 1 || len(c.Pending) != 1 || len(c.Unexpected) != 2 {
		t.Errorf("known %v\npending %v\nunexpected %v", c.Known, c.Pending, c.Unexpected)
	}
	if got := c.PendingBy["code-grader payload trace"]; len(got) != 1 || got[0].Field != "payload.trace.events" {
		t.Errorf("pending by fix: %v", c.PendingBy)
	}
	if len(c.UnusedKnown) != 1 || c.UnusedKnown[0].Test != "never-seen" || len(c.UnusedPending) != 0 {
		t.Errorf("unused: %v %v", c.UnusedKnown, c.UnusedPending)
	}
	if w := c.UnusedKnown[0].Where("known.yaml"); w != "known.yaml:5 (test never-seen, field score)" {
		t.Errorf("Where = %q", w)
	}
}

func TestLoadListRejects(t *testing.T) {
	t.Parallel()
	anchors := map[string]bool{"trials": true}
	tests := []struct{ kind, body, want string }{
		{"known", "- {test: a, field: score, doc: 'docs/agentv-4.md#nope', source: x.ts:1}", `:1: doc "docs/agentv-4.md#nope" is not an anchor`},
		{"known", "- {test: a, field: score, doc: 'docs/agentv-4.md#trials'}", ":1: source: name the 4.42.4 line"},
		{"pending", "- {test: a, field: score}", ":1: waits_for: name the fix"},
		{"pending", "- {test: a}", ":1: an entry needs test and field"},
		{"pending", "test: a", ":1: want a list of entries"},
	}
	for _, tc := range tests {
		p := filepath.Join(t.TempDir(), "list.yaml")
		write(t, p, tc.body)
		if _, err := LoadList(p, tc.kind, anchors); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %q: error %v, want %q", tc.kind, tc.body, err, tc.want)
		}
	}
}

func TestSlug(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"Deliberate differences from 4.42.4":  "deliberate-differences-from-4424",
		"Custom assertions and `@agentv/sdk`": "custom-assertions-and-agentvsdk",
		"Agent Skills `evals.json`":           "agent-skills-evalsjson",
		"Trials":                              "trials",
	} {
		if got := Slug(in); got != want {
			t.Errorf("Slug(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestVerdict(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, prompt, want string }{
		{"freeform with a grade", "[[ ## criteria ## ]]\nNames Paris grade=0.6\n", `{"assertions":[{"evidence":"fake","passed":true,"text":"fake check"}],"score":0.6}`},
		{"freeform without", "[[ ## criteria ## ]]\nNames Paris\n", `{"assertions":[{"evidence":"fake","passed":true,"text":"fake check"}],"score":1}`},
		{"rubrics", "[[ ## rubrics ## ]]\n- [city] (weight: 3): Names Paris\n- [no-rome] (REQUIRED): Names Rome (no)\n",
			`{"checks":[{"id":"city","reasoning":"fake","satisfied":true},{"id":"no-rome","reasoning":"fake","satisfied":false}],"overall_reasoning":"fake rubric"}`},
		{"score ranges", "[[ ## scoring_criteria ## ]]\n\n### Criterion: accuracy\nDescription: Accurate (s=7)\n\n### Criterion: style (weight: 2)\nDescription: Clear\n",
			`{"checks":[{"id":"accuracy","reasoning":"fake","score":7},{"id":"style","reasoning":"fake","score":10}],"overall_reasoning":"fake score ranges"}`},
	}
	for _, tc := range tests {
		var got, want any
		if err := json.Unmarshal([]byte(Verdict(tc.prompt)), &got); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		_ = json.Unmarshal([]byte(tc.want), &want)
		if g, w := mustJSON(got), mustJSON(want); g != w {
			t.Errorf("%s:\ngot  %s\nwant %s", tc.name, g, w)
		}
	}
	// The unreadable reply must hold no JSON object a grader could take a verdict from.
	if got := Verdict("[[ ## criteria ## ]]\nNames Paris " + UnreadableMark + " grade=1\n"); strings.ContainsAny(got, "{}") {
		t.Errorf("unreadable: got %q, want text without a JSON object", got)
	}
}
