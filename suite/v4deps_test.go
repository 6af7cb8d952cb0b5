package suite

import (
	"slices"
	"strings"
	"testing"
)

// TestV4Dependencies checks how depends_on and on_dependency_failure load: the ids and the
// policy on the case, shapes AgentV 4.42.4 ignores as warnings, and the graph problems 4.42.4
// refuses the file for (an unknown id, a test depending on itself, a cycle) as errors at the
// id, the tests concerned and those depending on them left out, the others loaded.
func TestV4Dependencies(t *testing.T) {
	t.Parallel()
	test := func(id, extra string) string {
		return "  - id: " + id + "\n    input: q\n    criteria: c\n" + extra
	}
	tests := []struct {
		name    string
		body    string
		loaded  []string // ids of the cases loaded, in order
		errors  []string // every error, "line:col: message" prefixes
		warning string   // a warning, "" for none expected
		check   func(t *testing.T, s *Suite)
	}{
		{name: "read", body: test("a", "    depends_on: [b]\n    on_dependency_failure: run\n") + test("b", ""),
			loaded: []string{"a", "b"},
			check: func(t *testing.T, s *Suite) {
				if c := s.Cases[0]; !slices.Equal(c.DependsOn, []string{"b"}) || c.OnDependencyFailure != DependencyRun || !s.Dependencies {
					t.Errorf("depends_on %q policy %q suite flag %v, want [b] run true", c.DependsOn, c.OnDependencyFailure, s.Dependencies)
				}
			}},
		{name: "no dependencies", body: test("a", "") + test("b", ""), loaded: []string{"a", "b"},
			check: func(t *testing.T, s *Suite) {
				if s.Dependencies {
					t.Error("suite marked as having dependencies")
				}
			}},
		{name: "non-string id ignored", body: test("a", "    depends_on: [b, 3]\n") + test("b", ""), loaded: []string{"a", "b"},
			warning: `"depends_on" item must be a test id, got the number 3`},
		{name: "unknown policy is skip", body: test("a", "    depends_on: [b]\n    on_dependency_failure: later\n") + test("b", ""),
			loaded: []string{"a", "b"}, warning: `"on_dependency_failure" must be skip, fail or run, got "later"`},
		{name: "not a list", body: test("a", "    depends_on: b\n") + test("b", ""), loaded: []string{"a", "b"},
			warning: `"depends_on" must be a list of test ids, got a string`},
		{name: "unknown id", body: test("a", "    depends_on: [nope]\n") + test("b", ""), loaded: []string{"b"},
			errors: []string{`5:18: depends_on "nope": no test of this file has that id (case "a" not loaded)`}},
		{name: "itself", body: test("a", "    depends_on: [a]\n") + test("b", ""), loaded: []string{"b"},
			errors: []string{`5:18: test "a" depends on itself (case "a" not loaded)`}},
		{name: "cycle and a dependent", body: test("a", "    depends_on: [b]\n") + test("b", "    depends_on: [a]\n") +
			test("c", "    depends_on: [b]\n") + test("d", ""),
			loaded: []string{"d"},
			errors: []string{`9:18: circular dependency: a → b → a`, `13:18: depends_on "b": that test is not loaded (case "c" not loaded)`}},
		{name: "dependency not loaded for its own error", body: test("a", "    depends_on: [b]\n") +
			"  - id: b\n    criteria: c\n",
			loaded: nil,
			errors: []string{`test has no "input"`, `5:18: depends_on "b": that test is not loaded (case "a" not loaded)`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := loadYAMLString(t, "tests:\n"+tt.body)
			var ids []string
			for _, c := range s.Cases {
				ids = append(ids, c.ID)
			}
			if !slices.Equal(ids, tt.loaded) {
				t.Errorf("loaded %q, want %q\n%s", ids, tt.loaded, formatDiags(s.Diagnostics))
			}
			var errs []string
			for _, d := range s.Diagnostics {
				if d.IsError() {
					errs = append(errs, d.Error())
				}
			}
			if len(errs) != len(tt.errors) {
				t.Errorf("errors %q, want %d", errs, len(tt.errors))
			}
			for _, w := range tt.errors {
				if !slices.ContainsFunc(errs, func(e string) bool { return strings.Contains(e, w) }) {
					t.Errorf("no error containing %q in %q", w, errs)
				}
			}
			if tt.warning != "" {
				_ = requireDiag(t, s.Diagnostics, SeverityWarning, tt.warning)
			}
			if tt.check != nil && len(s.Cases) > 0 {
				tt.check(t, s)
			}
		})
	}
}
