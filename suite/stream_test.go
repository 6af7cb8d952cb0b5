package suite

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Streaming hands over the same cases and finds the same diagnostics as loading whole, and
// each case's own diagnostics are already recorded when it is handed over.
func TestLoadOnCaseStreamsJSONL(t *testing.T) {
	t.Parallel()
	root := writeTree(t, map[string]string{
		"evals/set.jsonl": `{"id":"a","input":"hi","colour":1}` + "\n" +
			`{"id":"b","input":` + "\n" +
			`{"id":"a","input":"again"}` + "\n" +
			`{"id":"c","question":"q"}` + "\n",
		"evals/set.yaml": "execution:\n  evaluators: [{type: llm_judge, name: side, weight: 1, weight: 2}]\n",
	})
	path := filepath.Join(root, "evals", "set.jsonl")
	whole := Load(path, LoadOptions{Cwd: root})

	var got []string
	var seenDiags []int
	var sp *Suite
	streamed := Load(path, LoadOptions{Cwd: root, OnCase: func(c *Case) bool {
		sp = c.Suite
		got = append(got, fmt.Sprintf("%s@%d evals=%d", c.ID, c.Line, len(c.Evaluators)))
		seenDiags = append(seenDiags, len(c.Suite.Diagnostics))
		return true
	}})
	if sp != streamed {
		t.Errorf("cases must point at the returned suite")
	}
	var want []string
	for _, c := range whole.Cases {
		want = append(want, fmt.Sprintf("%s@%d evals=%d", c.ID, c.Line, len(c.Evaluators)))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("streamed cases (-whole +streamed):\n%s", diff)
	}
	if len(streamed.Cases) != 0 {
		t.Errorf("a streamed JSONL suite keeps %d cases", len(streamed.Cases))
	}
	if diff := cmp.Diff(formatDiags(whole.Diagnostics), formatDiags(streamed.Diagnostics)); diff != "" {
		t.Errorf("diagnostics (-whole +streamed):\n%s", diff)
	}
	// Case "a" (first) has its unknown-key warning and the sidecar list's warning, naming it.
	if len(seenDiags) == 0 || seenDiags[0] < 2 {
		t.Errorf("diagnostics recorded when the first case was handed over: %v, want at least 2", seenDiags)
	}
	if !HasErrors(streamed.Diagnostics) {
		t.Errorf("the duplicate id and the bad line must still be errors")
	}
}

func TestLoadOnCaseStops(t *testing.T) {
	t.Parallel()
	n := countStreamed(t, map[string]string{
		"e.jsonl": `{"id":"a","input":"x"}` + "\n" + `{"id":"b","input":"x"}` + "\n" + `{"id":"c","input":"x"}` + "\n",
	}, "e.jsonl")
	if n != 1 {
		t.Errorf("cases handed over after the callback said stop: %d, want 1", n)
	}
}

// countStreamed loads path from files with a callback that stops at once, and counts its calls.
func countStreamed(t *testing.T, files map[string]string, path string) int {
	t.Helper()
	root := writeTree(t, files)
	n := 0
	Load(filepath.Join(root, path), LoadOptions{Cwd: root, OnCase: func(*Case) bool { n++; return false }})
	return n
}

// YAML files are parsed whole: OnCase is not used and the cases stay in Suite.Cases.
func TestLoadOnCaseIgnoresYAML(t *testing.T) {
	t.Parallel()
	root := writeTree(t, map[string]string{"e.yaml": "evalcases:\n  - id: a\n    input: hi\n"})
	calls := 0
	s := Load(filepath.Join(root, "e.yaml"), LoadOptions{Cwd: root, OnCase: func(*Case) bool { calls++; return true }})
	if calls != 0 || len(s.Cases) != 1 {
		t.Errorf("yaml: %d calls, %d cases; want 0 and 1", calls, len(s.Cases))
	}
}
