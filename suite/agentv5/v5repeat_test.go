package agentv5

import (
	"github.com/agentv/action/suite"
	"github.com/agentv/action/suite/internal/suitetest"
	"strconv"
	"testing"
)

// TestV5Repeat checks evaluate_options.repeat and a test's run.repeat: counts, strategies,
// early_exit, and the errors a user fixes.
func TestV5Repeat(t *testing.T) {
	t.Parallel()
	const head = "prompts: [\"{{ input }}\"]\n"
	const test = "tests:\n  - id: t\n    vars: {input: hi}\n    assert: [{type: latency, threshold: 100}]\n"
	tests := []struct {
		name  string
		yaml  string
		suite string // the suite's trials, "count strategy early" ("" for none)
		cas   string // the case's own
		err   string // a fragment of the error, "" for none
	}{
		{"bare count", head + "evaluate_options: {repeat: 3}\n" + test, "3 pass_at_k false", "", ""},
		{"object", head + "evaluate_options: {repeat: {count: 4, strategy: pass_all, early_exit: true}}\n" + test, "4 pass_all true", "", ""},
		{"confidence interval", head + "evaluate_options: {repeat: {count: 5, strategy: confidence_interval}}\n" + test, "5 confidence_interval false", "", ""},
		{"run.repeat", head + test + "    run: {repeat: {count: 2, strategy: mean}}\n", "", "2 mean false", ""},
		{"run.repeat count", head + "evaluate_options: {repeat: 3}\n" + test + "    run: {repeat: 1}\n", "3 pass_at_k false", "1 pass_at_k false", ""},
		{"options.repeat over run.repeat", head + test + "    run: {repeat: 2}\n    options: {repeat: {count: 3, strategy: pass_all}}\n", "", "3 pass_all false", ""},
		{"default_test options.repeat", head + "default_test: {options: {repeat: 4}}\n" + test, "", "4 pass_at_k false", ""},
		{"a test's options.repeat over default_test's", head + "default_test: {options: {repeat: 4}}\n" + test + "    options: {repeat: 2}\n", "", "2 pass_at_k false", ""},
		{"bad default_test options.repeat", head + "default_test: {options: {repeat: {count: 2, strategy: most}}}\n" + test, "", "",
			`default_test options.repeat strategy must be one of pass_any, pass_all, mean, confidence_interval, got "most"`},
		{"bad options.repeat", head + test + "    options: {repeat: -1}\n", "", "", `options.repeat count must be a whole number from 1 to 100, got "-1" (case "t" not loaded)`},
		{"bad strategy", head + "evaluate_options: {repeat: {count: 2, strategy: best}}\n" + test, "", "",
			`evaluate_options.repeat strategy must be one of pass_any, pass_all, mean, confidence_interval, got "best"`},
		{"no count", head + "evaluate_options: {repeat: {strategy: mean}}\n" + test, "", "", `evaluate_options.repeat needs "count"`},
		{"zero", head + "evaluate_options: {repeat: 0}\n" + test, "", "", "evaluate_options.repeat count must be a whole number from 1 to 100"},
		{"bad early_exit", head + test + "    run: {repeat: {count: 2, early_exit: yes please}}\n", "", "",
			`run.repeat early_exit must be true or false, got "yes please" (case "t" not loaded)`},
		{"unknown key", head + test + "    run: {repeat: {count: 2, stratgy: mean}}\n", "", "",
			`run.repeat has no key "stratgy": write count, strategy, early_exit or cost_limit_usd (did you mean "strategy"?)`},
		{"list", head + test + "    run: {repeat: [2]}\n", "", "", "run.repeat must be a count or a mapping with count and strategy, got a list"},
	}
	str := func(tr *suite.Trials) string {
		if tr == nil {
			return ""
		}
		early := "unset"
		if tr.EarlyExit != nil {
			early = map[bool]string{true: "true", false: "false"}[*tr.EarlyExit]
		}
		return strconv.Itoa(tr.Count) + " " + tr.Strategy + " " + early
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := suitetest.LoadYAMLString(t, tt.yaml)
			if tt.err != "" {
				_ = suitetest.RequireDiag(t, s.Diagnostics, suite.SeverityError, tt.err)
				return
			}
			c := suitetest.OnlyCase(t, s)
			if got := str(s.Trials); got != tt.suite {
				t.Errorf("suite trials %q, want %q", got, tt.suite)
			}
			if got := str(c.Trials); got != tt.cas {
				t.Errorf("case trials %q, want %q", got, tt.cas)
			}
		})
	}
}
