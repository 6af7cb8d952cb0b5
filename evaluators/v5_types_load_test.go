package evaluators

import (
	"strings"
	"testing"

	"github.com/agentv/action/results"
	"github.com/agentv/action/suite"
)

// TestV5TypesLoaded runs the AgentV 5.x types through the real loader (a 5.x file): their
// settings parse at load, assert-set members are the loader's entries with the set's config
// under their own, and a loaded trajectory entry takes `negate` as its inverse.
func TestV5TypesLoaded(t *testing.T) {
	t.Parallel()
	needTool(t, "node")
	dir := t.TempDir()
	s := suite.Load(writeFile(t, dir, "eval.yaml", `prompts: ["{{ input }}"]
tests:
  - id: c
    vars: {input: hi}
    assert:
      - metric: group
        type: assert-set
        threshold: 0.5
        config: {prefix: High, other: 1}
        assert:
          - type: javascript
            value: output.startsWith(context.config.prefix) && context.config.other === 2
            config: {other: 2}
          - type: contains
            value: Low
      - metric: forbidden
        type: trajectory:tool-used
        value: [search, write]
        negate: true
`), suite.LoadOptions{Cwd: dir})
	if len(s.Cases) != 1 {
		t.Fatalf("diagnostics %v", s.Diagnostics)
	}
	in := riskInput(s.Cases[0], "High risk")
	in.Response.OutputMessages = trajectoryOutput
	out := Evaluate(t.Context(), in, &Options{})
	set, traj := out.Results[0], out.Results[1]
	if set.Score != 0.5 || set.Verdict != results.BandPass || len(set.EvaluatorResults) != 2 {
		t.Errorf("assert-set: %+v", set)
	}
	if traj.Score != 0 || !strings.Contains(strings.Join(traj.Misses, "|"), "Forbidden tool(s) were used: search") {
		t.Errorf("trajectory: score %v misses %q", traj.Score, traj.Misses)
	}
}

// TestV5SettingsCheckedAtLoad: a bad setting of a new type, nested ones too, is a load error
// at its position.
func TestV5SettingsCheckedAtLoad(t *testing.T) {
	t.Parallel()
	const head = "prompts: [hi]\ntests:\n  - id: c\n    assert:\n"
	tests := []struct{ name, text, want string }{
		{"nested member", head + "      - type: assert-set\n        assert:\n          - {type: contains, value: a}\n          - {type: python, value: x, threshold: 7}\n",
			"eval.yaml:8:49: python threshold: must be a number from 0 to 1"},
		{"unknown member type", head + "      - type: assert-set\n        assert:\n          - {type: containz, value: a}\n",
			`eval.yaml:7:20: unknown evaluator type "containz" (did you mean "contains"?)`},
		{"webhook url", head + "      - {type: webhook, value: 'not a url'}\n",
			"eval.yaml:5:32: webhook value: must be an absolute http(s) URL"},
		{"tool-args-match mode", head + "      - type: trajectory:tool-args-match\n        value: {name: a, args: {}, mode: loose}\n",
			`eval.yaml:6:42: trajectory:tool-args-match value.mode: must be "partial" or "exact"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			s := suite.Load(writeFile(t, dir, "eval.yaml", tt.text), suite.LoadOptions{Cwd: dir})
			var errs []string
			for _, d := range s.Diagnostics {
				if d.IsError() {
					errs = append(errs, d.Error())
				}
			}
			if len(errs) != 1 || !strings.HasPrefix(errs[0], tt.want) || len(s.Cases) != 0 {
				t.Errorf("errors %q, %d cases; want one starting %q", errs, len(s.Cases), tt.want)
			}
		})
	}
}
