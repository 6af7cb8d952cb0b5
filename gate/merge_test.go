package gate

import (
	"strings"
	"testing"

	"github.com/agentv/action/results"
)

// A merge of files, each valid alone, is refused exactly when a replay of their records
// written as one file finds a repeat.
func TestMergeCheckAgreesWithReplay(t *testing.T) {
	t.Parallel()
	c := func(id, target string) *results.Record {
		return &results.Record{EvalID: id, File: "s.yaml", Dataset: "s", Target: target}
	}
	tests := []struct {
		name  string
		files [][]*results.Record
		want  string // substring of the merge's problem; "" for none
	}{
		{"disjoint", [][]*results.Record{{c("a", "t")}, {c("b", "t")}}, ""},
		{"one case, two targets", [][]*results.Record{{c("a", "t")}, {c("a", "u")}}, ""},
		{"same id, other eval file", [][]*results.Record{{c("a", "t")}, {{EvalID: "a", File: "o.yaml", Dataset: "s", Target: "t"}}}, ""},
		{"repeated across files", [][]*results.Record{{c("a", "t"), c("b", "t")}, {c("c", "t"), c("b", "t")}},
			`1 case record is in more than one of the merged files`},
		{"named by file and line", [][]*results.Record{{c("a", "t")}, {c("x", "t")}, {c("y", "t"), c(" a ", "t")}},
			`f3.jsonl line 2 repeats "a" of f1.jsonl line 1`},
		{"many", [][]*results.Record{{c("a", "t"), c("b", "t"), c("c", "t"), c("d", "t"), c("e", "t"), c("f", "t")},
			{c("a", "t"), c("b", "t"), c("c", "t"), c("d", "t"), c("e", "t"), c("f", "t")}}, `6 case records are in more than one`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var m MergeCheck
			var whole Replay
			n := 0
			for i, f := range tt.files {
				m.File("f" + string(rune('1'+i)) + ".jsonl")
				for j, r := range f {
					m.Case(r, j+1)
					n++
					whole.Case(r, n)
				}
			}
			got := m.Problems()
			replayed := whole.Result().Problems
			if (len(got) > 0) != (len(replayed) > 0) {
				t.Errorf("merge problems %q, but a replay of the merged records finds %q", got, replayed)
			}
			if tt.want == "" {
				if got != nil {
					t.Errorf("problems %q, want none", got)
				}
				return
			}
			if len(got) != 1 || !strings.Contains(got[0], tt.want) {
				t.Errorf("problems %q, want one containing %q", got, tt.want)
			}
		})
	}
}
