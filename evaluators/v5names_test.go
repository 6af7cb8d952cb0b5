package evaluators

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentv/action/suite"
)

// TestV5GeneratedNames loads a 5.x file and checks the types and names 5.3.1-next.1 records
// for not-trajectory and skill assertions without metric (duplicates kept, as 5.x keeps
// them), and that a not-trajectory assertion read as its plain type still scores inverted.
func TestV5GeneratedNames(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	file := writeFile(t, dir, "names.eval.yaml", `prompts: ["{{ input }}"]
tests:
  - id: t
    vars: {input: hi}
    assert:
      - {type: not-trajectory:tool-used, value: delete}
      - {type: not-trajectory:tool-used, value: search, negate: true}
      - {type: not-trajectory:tool-used, value: search, metric: forbidden}
      - {type: trajectory:tool-used, value: search}
      - {type: skill-used, value: "  csv-analyzer "}
      - {type: not-skill-used, value: [a, b]}
      - {type: skill-used, value: {name: x}}
`)
	s := suite.Load(file, suite.LoadOptions{Cwd: dir})
	if suite.HasErrors(s.Diagnostics) || len(s.Cases) != 1 {
		t.Fatalf("load: %d cases, diagnostics %v", len(s.Cases), s.Diagnostics)
	}
	want := []struct {
		typ, name string
		negate    any  // the negate setting the grader gets, nil for none
		pass      bool // on trajectoryOutput (search used, delete not); skill graders not run
	}{
		{"trajectory:tool-used", "trajectory:tool-used", true, true},
		{"trajectory:tool-used", "trajectory:tool-used", false, true},
		{"trajectory:tool-used", "forbidden", true, false},
		{"trajectory:tool-used", "trajectory:tool-used", nil, true},
		{"skill-used", "skill-used-csv-analyzer", nil, false},
		{"not-skill-used", "not-skill-used-2", nil, false},
		{"skill-used", "skill-used", nil, false},
	}
	c := s.Cases[0]
	if len(c.Evaluators) != len(want) {
		t.Fatalf("got %d assertions, want %d", len(c.Evaluators), len(want))
	}
	for i, w := range want {
		e := c.Evaluators[i]
		var settings map[string]any
		if err := json.Unmarshal(e.Settings, &settings); err != nil {
			t.Fatal(err)
		}
		if e.Type != w.typ || e.Name != w.name || settings["negate"] != w.negate {
			t.Errorf("assertion %d: type %q name %q negate %v, want %q %q %v", i+1, e.Type, e.Name, settings["negate"], w.typ, w.name, w.negate)
		}
		if e.Type != "trajectory:tool-used" {
			continue
		}
		in := riskInput(riskCase(dir, e), "done")
		in.Response.OutputMessages = trajectoryOutput
		res := Evaluate(t.Context(), in, &Options{}).Results[0]
		if got := res.Score == 1; got != w.pass {
			t.Errorf("assertion %d scored %v, want pass %v (%q %q)", i+1, res.Score, w.pass, res.Hits, res.Misses)
		}
	}
}
