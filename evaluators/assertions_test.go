package evaluators

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/agentv/action/suite"
)

func aSpec(typ, settings string) *suite.EvaluatorSpec {
	return &suite.EvaluatorSpec{Name: typ, Type: typ, Weight: 1, Settings: json.RawMessage(settings)}
}

// hello is the answer most rows are checked against, with the spaces and newline the mock
// target of the AgentV 4.42.4 runs returned.
const hello = "  Hello World, the answer is 42.\n"

// ws separates a and b by NBSP, CR, LF and U+2028.
const ws = "a\u00a0b a\rb a\nb a\u2028b"

// TestAssertions: every score marked "run" was taken from AgentV 4.42.4 (npm agentv@4.42.4,
// mock targets answering the same text, the entry's score in index.jsonl); rows marked
// "source" follow its graders/assertions.ts without a run.
func TestAssertions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, typ, settings, answer string
		want                        float64
		line                        string // the hit or miss
	}{
		{"contains (run)", "contains", `{"value": "World"}`, hello, 1, `Output contains "World"`},
		{"contains is case-sensitive (run)", "contains", `{"value": "world"}`, hello, 0, `Output does not contain "world"`},
		{"contains-any one matches (run)", "contains-any", `{"value": ["xyz", "World"]}`, hello, 1, `Output contains "World"`},
		{"contains-any none (run)", "contains-any", `{"value": ["xyz", "abc"]}`, hello, 0, `Output does not contain any of: "xyz", "abc"`},
		{"contains-any empty item matches anything (run)", "contains-any", `{"value": ["", "zzz"]}`, hello, 1, `Output contains ""`},
		{"contains-any empty item on empty answer (run)", "contains-any", `{"value": [""]}`, "", 1, `Output contains ""`},
		{"contains-all (run)", "contains-all", `{"value": ["Hello", "42"]}`, hello, 1, "Output contains all 2 expected strings"},
		{"contains-all one missing (run)", "contains-all", `{"value": ["Hello", "43"]}`, hello, 0, `Output missing: "43"`},
		{"icontains (run)", "icontains", `{"value": "WORLD"}`, hello, 1, `Output contains "WORLD" (case-insensitive)`},
		{"icontains-any (run)", "icontains-any", `{"value": ["zz", "HELLO"]}`, hello, 1, `Output contains "HELLO" (case-insensitive)`},
		{"icontains-all (run)", "icontains-all", `{"value": ["hello", "WORLD", "THE ANSWER"]}`, hello, 1, "Output contains all 3 expected strings (case-insensitive)"},
		{"icontains-all missing (run)", "icontains-all", `{"value": ["hello", "nope"]}`, hello, 0, `Output missing (case-insensitive): "nope"`},
		{"icontains final sigma (run)", "icontains", `{"value": "σας"}`, "ΣΑΣ İSTANBUL", 1, ""},
		{"icontains dotted capital I (run)", "icontains", `{"value": "i̇stanbul"}`, "ΣΑΣ İSTANBUL", 1, ""},
		{"icontains dotted capital I is not plain i (run)", "icontains", `{"value": "istanbul"}`, "ΣΑΣ İSTANBUL", 0, ""},
		{"starts-with trims the answer (run)", "starts-with", `{"value": "Hello"}`, hello, 1, `Output starts with "Hello"`},
		{"starts-with trims the value (run)", "starts-with", `{"value": "  Hello  "}`, hello, 1, ""},
		{"starts-with json after blank lines (run)", "starts-with", `{"value": "{"}`, "\n  {\"a\": [1, 2], \"b\": \"x\"}  \n", 1, ""},
		{"ends-with (run)", "ends-with", `{"value": "42."}`, hello, 1, `Output ends with "42."`},
		{"ends-with partial (run)", "ends-with", `{"value": "42"}`, hello, 0, `Output does not end with "42"`},
		{"ends-with trims U+FEFF (run)", "ends-with", `{"value": "end"}`, "ΣΑΣ İSTANBUL \uFEFFend\uFEFF", 1, ""},
		{"ends-with keeps U+0085 (run)", "ends-with", `{"value": "end"}`, "end\u0085", 0, ""},
		{"equals trims (run)", "equals", `{"value": "Hello World, the answer is 42."}`, hello, 1, `Output equals "Hello World, the answer is 42."`},
		{"equals is case-sensitive (run)", "equals", `{"value": "hello world, the answer is 42."}`, hello, 0, `Output does not equal "hello world, the answer is 42."`},
		{"equals trims the value (run)", "equals", `{"value": "  Hello World, the answer is 42.\n\n"}`, hello, 1, ""},
		{"equals blank on empty answer (run)", "equals", `{"value": " "}`, "", 1, ""},
		{"regex (run)", "regex", `{"value": "answer is \\d+"}`, hello, 1, `Output matches pattern /answer is \d+/`},
		{"regex i flag, not trimmed (run)", "regex", `{"value": "^hello", "flags": "i"}`, hello, 0, `Output does not match pattern /^hello/i (flags: i)`},
		{"regex i flag (run)", "regex", `{"value": "^\\s*hello", "flags": "i"}`, hello, 1, ""},
		{"regex anchors not trimmed (run)", "regex", `{"value": "^Hello"}`, hello, 0, ""},
		{"regex sticky (run)", "regex", `{"value": "Hello", "flags": "y"}`, hello, 0, ""},
		{"regex sticky at start (run)", "regex", `{"value": "\\s+Hello", "flags": "gy"}`, hello, 1, ""},
		{"regex $ is end of input (run)", "regex", `{"value": "42\\.$"}`, hello, 0, ""},
		{"regex m flag (run)", "regex", `{"value": "42\\.$", "flags": "m"}`, hello, 1, ""},
		{"regex im not at a line end (run)", "regex", `{"value": "world$", "flags": "im"}`, hello, 0, ""},
		{"regex s flag (run)", "regex", `{"value": "a.b", "flags": "s"}`, "a\nb", 1, ""},
		{"regex dot stops at newline (run)", "regex", `{"value": "a.b"}`, "a\nb", 0, ""},
		{"regex u flag (run)", "regex", `{"value": "end.$", "flags": "u"}`, "ΣΑΣ İSTANBUL \uFEFFend\uFEFF", 1, ""},
		{"regex \\u escapes in unicode mode (run)", "regex", `{"value": "\\u00e9t\\u{e9}", "flags": "u"}`, "été a/b", 1, ""},
		{"regex \\u{} is not an escape without u (run)", "regex", `{"value": "\\u00e9t\\u{e9}"}`, "été a/b", 0, ""},
		{"regex \\u{} without u is the letter u (source)", "regex", `{"value": "\\u{2}"}`, "uu", 1, ""},
		{"regex \\s is Unicode space (run)", "regex", `{"value": "^a\\sb"}`, ws, 1, ""},
		{"regex \\S is not (run)", "regex", `{"value": "^a\\Sb"}`, ws, 0, ""},
		{"regex \\s in a class (run)", "regex", `{"value": "^a[\\s]b"}`, ws, 1, ""},
		{"regex dot stops at U+2028 (run)", "regex", `{"value": "a.b$"}`, ws, 0, ""},
		{"regex dot with s flag (run)", "regex", `{"value": "a.b$", "flags": "s"}`, ws, 1, ""},
		{"regex dot stops at CR (source)", "regex", `{"value": "^a.b"}`, "a\rb", 0, ""},
		{"regex [^] is any character (run)", "regex", `{"value": "b a[^]b a"}`, ws, 1, ""},
		{"regex [] is none (run)", "regex", `{"value": "a[]b"}`, ws, 0, ""},
		{"regex empty answer (run)", "regex", `{"value": "^$"}`, "", 1, ""},
		{"regex escaped slash (run)", "regex", `{"value": "a\\/b"}`, "a/b", 1, ""},
		{"is-json with whitespace (run)", "is-json", `{}`, "\n  {\"a\": [1, 2], \"b\": \"x\"}  \n", 1, "Output is valid JSON"},
		{"is-json prose (run)", "is-json", `{}`, hello, 0, "Output is not valid JSON"},
		{"is-json empty (run)", "is-json", `{}`, "", 0, ""},
		{"is-json a scalar (run)", "is-json", `{}`, " 42 ", 1, ""},
		{"is-json trailing text (run)", "is-json", `{}`, `{"a":1} ok`, 0, ""},
		{"snake_case alias (source)", "starts_with", `{"value": "Hello"}`, hello, 1, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := riskCase(t.TempDir(), aSpec(tt.typ, tt.settings))
			out := Evaluate(t.Context(), riskInput(c, tt.answer), &Options{})
			res := out.Results[0]
			if res.Error != "" || res.Score != tt.want || out.Score != tt.want {
				t.Fatalf("score %v (case %v) error %q; want %v", res.Score, out.Score, res.Error, tt.want)
			}
			lines := append(append([]string{}, res.Hits...), res.Misses...)
			if len(lines) != 1 || tt.line != "" && lines[0] != tt.line {
				t.Errorf("hits %q misses %q; want one line %q", res.Hits, res.Misses, tt.line)
			}
		})
	}
}

// TestCommonKeys checks negate, required, min_score and weight on a case's list. The case
// scores were taken from AgentV 4.42.4 runs on the same entries and answer (hello); for the
// partial scores those runs used a code-grader printing 0.3, 0.6 and 0.75, here a composite
// scores 0.3, 0.6 and 0.7 (0.7 is below the default threshold 0.8 just as 0.75 is).
func TestCommonKeys(t *testing.T) {
	t.Parallel()
	needTool(t, "sh")
	judge := func(score float64, extra string) string {
		return fmt.Sprintf(`{"type": "code_judge", "script": ["sh", "-c", "cat >/dev/null; echo '{\"score\": %v}'"]%s}`, score, extra)
	}
	// partial is a composite of a passing and a failing contains weighted to score tenths.
	partial := func(tenths int, extra string) string {
		return fmt.Sprintf(`{"type": "composite", "aggregator": {"type": "weighted_average", "weights": {"w": %d, "x": %d}}, `+
			`"evaluators": [{"name": "w", "type": "contains", "value": "World"}, {"name": "x", "type": "contains", "value": "xyz"}]%s}`, tenths, 10-tenths, extra)
	}
	tests := []struct {
		name      string
		entries   []string
		threshold float64
		want      float64   // case score
		scores    []float64 // each entry's score
	}{
		{"negate pass and fail", []string{`{"type": "contains", "value": "World", "negate": true}`, `{"type": "contains", "value": "xyz", "negate": true}`}, 0, 0.5, []float64{0, 1}},
		{"weights", []string{`{"type": "contains", "value": "World", "weight": 3}`, `{"type": "contains", "value": "xyz"}`}, 0, 0.75, []float64{1, 0}},
		{"all weight zero", []string{`{"type": "contains", "value": "xyz", "weight": 0}`}, 0, 0, []float64{0}},
		{"required fails the case", []string{`{"type": "contains", "value": "xyz", "required": true}`, `{"type": "contains", "value": "World", "weight": 9}`}, 0, 0, []float64{0, 1}},
		{"required met", []string{`{"type": "contains", "value": "World", "required": true}`, `{"type": "contains", "value": "xyz"}`}, 0, 0.5, []float64{1, 0}},
		{"required as a minimum", []string{`{"type": "contains", "value": "xyz", "required": 0.5}`, `{"type": "contains", "value": "World", "weight": 9}`}, 0, 0, []float64{0, 1}},
		{"required false", []string{`{"type": "contains", "value": "xyz", "required": false}`, `{"type": "contains", "value": "World"}`}, 0, 0.5, []float64{0, 1}},
		{"min_score alone gates nothing", []string{`{"type": "contains", "value": "xyz", "min_score": 0.5}`, `{"type": "contains", "value": "World", "weight": 9}`}, 0, 0.9, []float64{0, 1}},
		{"negate then required", []string{`{"type": "contains", "value": "World", "negate": true, "required": true}`, `{"type": "contains", "value": "World"}`}, 0, 0, []float64{0, 1}},
		{"negate a partial score", []string{partial(3, `, "negate": true`)}, 0, 0.7, []float64{0.7}},
		{"negated partial below its min_score", []string{partial(3, `, "negate": true, "required": true, "min_score": 0.75`), `{"type": "contains", "value": "World"}`}, 0, 0, []float64{0.7, 1}},
		{"partial above its min_score", []string{partial(6, `, "required": true, "min_score": 0.5`)}, 0, 0.6, []float64{0.6}},
		// A 2.x code judge's other keys are its config: `required` is data for the judge.
		{"code judge config named required", []string{judge(0.3, `, "required": true, "negate": true`)}, 0, 0.3, []float64{0.3}},
		{"code judge config required not a score", []string{judge(0.3, `, "required": ["13.00", "EUR"]`)}, 0, 0.3, []float64{0.3}},
		{"partial below the default threshold", []string{partial(7, `, "required": true`), `{"type": "contains", "value": "World"}`}, 0, 0, []float64{0.7, 1}},
		// Not run on 4.42.4: its threshold comes from execution.threshold or --threshold.
		{"partial above a lower case threshold", []string{partial(7, `, "required": true`), `{"type": "contains", "value": "World"}`}, 0.7, 0.85, []float64{0.7, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			text := "evalcases:\n  - id: c\n    input: q\n    evaluators:\n"
			for _, e := range tt.entries {
				text += "      - " + e + "\n"
			}
			s := suite.Load(writeFile(t, dir, "eval.yaml", text), suite.LoadOptions{Cwd: dir})
			if len(s.Cases) != 1 {
				t.Fatalf("diagnostics %v", s.Diagnostics)
			}
			out := Evaluate(t.Context(), riskInput(s.Cases[0], hello), &Options{Threshold: tt.threshold})
			var got []float64
			for _, r := range out.Results {
				if r.Error != "" {
					t.Errorf("%s: %s", r.Name, r.Error)
				}
				got = append(got, r.Score)
			}
			if out.Score != tt.want || fmt.Sprint(got) != fmt.Sprint(tt.scores) {
				t.Errorf("case %v, entries %v; want %v, %v", out.Score, got, tt.want, tt.scores)
			}
			gated := tt.want == 0 && strings.Contains(tt.name, "required") || strings.Contains(tt.name, "below")
			if hasGateMiss := strings.Contains(strings.Join(out.Misses, "\n"), "the case scores 0"); hasGateMiss != gated {
				t.Errorf("misses %q: gate line present %v, want %v", out.Misses, hasGateMiss, gated)
			}
		})
	}
}

// TestNegatedErrorStaysError: an evaluator that cannot score is not turned into a pass by
// negate (AgentV 4.42.4 negates its fallback 0 into 1).
func TestNegatedErrorStaysError(t *testing.T) {
	t.Parallel()
	spec := aSpec("regex", `{"value": "(?>is )42", "negate": true}`) // built in code: read at run time
	out := Evaluate(t.Context(), riskInput(riskCase(t.TempDir(), spec), hello), &Options{})
	if r := out.Results[0]; r.Error == "" || r.Score != 0 || !out.Errored {
		t.Errorf("result %+v: want an error scoring 0", r)
	}
}

// TestAssertionSettingErrors: bad settings are reported at load time at the setting.
func TestAssertionSettingErrors(t *testing.T) {
	t.Parallel()
	head := "evalcases:\n  - id: c\n    input: hi\n    evaluators:\n"
	tests := []struct{ name, entry, want string }{
		{"missing value", "      - type: contains\n", "eval.yaml:5:9: contains needs `value`"},
		{"empty value", "      - {type: equals, value: ''}\n", "eval.yaml:5:31: equals value: must not be empty"},
		{"number value", "      - {type: contains, value: 42}\n", `eval.yaml:5:33: contains value: must be a string, got the number 42 (quote it to compare the text: "42")`},
		{"list for contains", "      - {type: contains, value: [a, b]}\n", "eval.yaml:5:33: contains value: must be a string, got a list"},
		{"string for contains-any", "      - {type: contains-any, value: World}\n", "eval.yaml:5:37: contains-any value: must be a list of strings, got a string"},
		{"empty list", "      - {type: icontains-all, value: []}\n", "eval.yaml:5:38: icontains-all value: must not be an empty list"},
		{"number in a list", "      - type: contains-all\n        value: [a, 43]\n", `eval.yaml:6:20: contains-all value[1]: must be a string, got the number 43`},
		{"bad regex", "      - {type: regex, value: '['}\n", "eval.yaml:5:30: regex value: invalid regular expression /[/: unterminated [] set"},
		{"dotnet atomic group", "      - {type: regex, value: '(?>is )42'}\n", "eval.yaml:5:30: regex value: invalid regular expression /(?>is )42/: (?>is ) is not JavaScript syntax"},
		{"unknown flag", "      - {type: regex, value: a, flags: q}\n", `eval.yaml:5:40: regex flags: unknown flag 'q' in "q"`},
		{"repeated flag", "      - {type: regex, value: a, flags: ii}\n", `eval.yaml:5:40: regex flags: flag 'i' is repeated in "ii"`},
		{"required too big", "      - {type: is-json, required: 2}\n", "eval.yaml:5:35: is-json required: must be true, false or a minimum score above 0 and at most 1, got 2"},
		{"min_score zero", "      - {type: is-json, min_score: 0}\n", "eval.yaml:5:36: is-json min_score: must be a score above 0 and at most 1, got 0"},
		{"negate not a bool", "      - {type: ends-with, value: x, negate: 'yes'}\n", `eval.yaml:5:45: ends-with negate: must be true or false, got "yes"`},
		{"common key on a 2.x type", "      - {type: latency, threshold: 10, required: maybe}\n", "eval.yaml:5:50: latency required: must be true"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			s := suite.Load(writeFile(t, dir, "eval.yaml", head+tt.entry), suite.LoadOptions{Cwd: dir})
			var errs []string
			for _, d := range s.Diagnostics {
				if d.IsError() {
					errs = append(errs, d.Error())
				}
			}
			if len(errs) != 1 || !strings.HasPrefix(errs[0], tt.want) || len(s.Cases) != 0 {
				t.Errorf("errors %q, %d cases; want one starting %q and no case", errs, len(s.Cases), tt.want)
			}
		})
	}
}
