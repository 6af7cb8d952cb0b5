package evaluators

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/agentv/action/internal/redact"
	"github.com/agentv/action/suite"
)

// scriptCase is one javascript or python entry scored against an answer.
type scriptCase struct {
	name     string
	settings string // the entry's JSON
	answer   string
	files    map[string]string // written next to the eval file
	score    float64
	verdict  string // pass or fail
	text     string // in the hits or misses
	err      string // the result's error (the run's problem, not the code's)
	timeout  time.Duration
}

func runScriptCases(t *testing.T, typ string, cases []scriptCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			for name, content := range tt.files {
				writeFile(t, dir, name, content)
			}
			spec := &suite.EvaluatorSpec{Name: typ, Type: typ, Weight: 1, Settings: json.RawMessage(tt.settings)}
			in := riskInput(riskCase(dir, spec), tt.answer)
			in.Case.Suite.Grading = suite.GradingRulesOf(suite.Dialect4)
			timeout := 60 * time.Second
			if tt.timeout > 0 {
				timeout = tt.timeout
			}
			res := Evaluate(t.Context(), in, &Options{Timeout: timeout, Redactor: &redact.Redactor{}}).Results[0]
			if tt.err != "" {
				if !strings.Contains(res.Error, tt.err) {
					t.Fatalf("error = %q, want %q", res.Error, tt.err)
				}
				return
			}
			if res.Error != "" {
				t.Fatalf("unexpected error %q", res.Error)
			}
			if res.Score != tt.score || res.Verdict != tt.verdict {
				t.Errorf("score %v verdict %s, want %v %s (hits %q misses %q)", res.Score, res.Verdict, tt.score, tt.verdict, res.Hits, res.Misses)
			}
			if all := strings.Join(append(res.Hits, res.Misses...), "|"); !strings.Contains(all, tt.text) {
				t.Errorf("hits and misses %q lack %q", all, tt.text)
			}
		})
	}
}

func TestJavascriptAssertion(t *testing.T) {
	t.Parallel()
	needTool(t, "node")
	runScriptCases(t, "javascript", []scriptCase{
		{name: "expression true", settings: `{"value": "output.includes('High')"}`, answer: "High risk", score: 1, verdict: "pass", text: "Assertion passed"},
		{name: "expression false", settings: `{"value": "output.includes('Low');"}`, answer: "High risk", score: 0, verdict: "fail",
			text: "Javascript assertion returned a failing result"},
		{name: "declarations then expression", settings: `{"value": "const n = output.length; n > 3"}`, answer: "High risk", score: 1, verdict: "pass"},
		{name: "body with return", settings: `{"value": "if (output.startsWith('High')) { return 0.5 }\nreturn 0"}`, answer: "High risk",
			score: 0.5, verdict: "pass", text: "Assertion passed"},
		{name: "number under threshold", settings: `{"value": "return 0.5", "threshold": 0.7}`, answer: "x", score: 0.5, verdict: "fail"},
		{name: "number zero fails", settings: `{"value": "0"}`, answer: "x", score: 0, verdict: "fail"},
		{name: "number clamped", settings: `{"value": "7"}`, answer: "x", score: 1, verdict: "pass"},
		{name: "infinity scores 0", settings: `{"value": "Infinity"}`, answer: "x", score: 0, verdict: "fail"},
		{name: "result object", settings: `{"value": "({pass: false, score: 0.9, reason: 'too long'})"}`, answer: "x", score: 0.9, verdict: "fail", text: "too long"},
		{name: "result object pass only", settings: `{"value": "return {pass: true}"}`, answer: "x", score: 1, verdict: "pass"},
		{name: "result object with assertions", settings: `{"value": "return {score: 0.25, assertions: [{text: 'a', passed: true}, {text: 'b', passed: false}]}"}`,
			answer: "x", score: 0.25, verdict: "pass", text: "b"},
		{name: "context and config", settings: `{"value": "context.config.want === output && context.criteria.length > 0 && context.expectedOutput !== undefined", "config": {"want": "yes"}}`,
			answer: "yes", score: 1, verdict: "pass"},
		{name: "throw is a failed assertion", settings: `{"value": "if (output) throw new Error('boom')\nreturn true"}`, answer: "x", score: 0, verdict: "fail",
			text: "Javascript assertion failed: boom"},
		{name: "syntax error", settings: `{"value": "output.includes("}`, answer: "x", score: 0, verdict: "fail", text: "Javascript assertion failed:"},
		{name: "undefined", settings: `{"value": "return"}`, answer: "x", score: 0, verdict: "fail", text: "returned null or undefined"},
		{name: "a promise is awaited", settings: `{"value": "Promise.resolve(output === 'x')"}`, answer: "x", score: 1, verdict: "pass"},
		{name: "file default export", settings: `{"value": "file://check.js"}`, answer: "abc",
			files: map[string]string{"check.js": "module.exports = (output, context) => output.length / 6;\n"}, score: 0.5, verdict: "pass"},
		{name: "file named function", settings: `{"value": "file://check.mjs:strict", "threshold": 0.9}`, answer: "abc",
			files: map[string]string{"check.mjs": "export function strict(output) { return {score: 0.8, reason: 'close'} }\n"}, score: 0.8, verdict: "fail", text: "close"},
		{name: "file without the function", settings: `{"value": "file://check.js:nope"}`, answer: "abc",
			files: map[string]string{"check.js": "module.exports = {};\n"}, score: 0, verdict: "fail", text: "exports no function"},
		{name: "a loop times out", settings: `{"value": "for (;;) {}\nreturn true"}`, answer: "x", timeout: time.Second, err: "timed out"},
		{name: "missing file", settings: `{"value": "file://absent.js"}`, answer: "abc", score: 0, verdict: "fail", text: "Javascript assertion failed:"},
	})
}

func TestPythonAssertion(t *testing.T) {
	t.Parallel()
	needTool(t, "python3")
	runScriptCases(t, "python", []scriptCase{
		{name: "expression true", settings: `{"value": "'High' in output"}`, answer: "High risk", score: 1, verdict: "pass", text: "Assertion passed"},
		{name: "expression false", settings: `{"value": "output.startswith('Low')"}`, answer: "High risk", score: 0, verdict: "fail",
			text: "Python assertion returned a failing result"},
		{name: "body", settings: `{"value": "n = len(output)\nreturn n / 10"}`, answer: "abcde", score: 0.5, verdict: "pass"},
		{name: "block scalar without return", settings: `{"value": "'High' in output\n"}`, answer: "High", score: 0, verdict: "fail", text: "returned null"},
		{name: "threshold", settings: `{"value": "0.6", "threshold": 0.6}`, answer: "x", score: 0.6, verdict: "pass"},
		{name: "dict result", settings: `{"value": "{'pass': False, 'score': 1, 'reason': 'nope'}"}`, answer: "x", score: 1, verdict: "fail", text: "nope"},
		{name: "context is snake case", settings: `{"value": "context['config']['k'] == 1 and 'expected_output' in context and 'token_usage' in context", "config": {"k": 1}}`,
			answer: "x", score: 1, verdict: "pass"},
		{name: "raise", settings: `{"value": "1/0"}`, answer: "x", score: 0, verdict: "fail", text: "ZeroDivisionError"},
		{name: "printing spoils the result", settings: `{"value": "print('hi')\nreturn True"}`, answer: "x", score: 0, verdict: "fail", text: "not one JSON value"},
		{name: "file get_assert", settings: `{"value": "file://check.py"}`, answer: "abcd",
			files: map[string]string{"check.py": "def get_assert(output, context):\n    return {'pass': True, 'score': len(output) / 8}\n"}, score: 0.5, verdict: "pass"},
		{name: "file named function may print", settings: `{"value": "file://check.py:grade"}`, answer: "abcd",
			files: map[string]string{"check.py": "def grade(output, context):\n    print('debug')\n    return output == 'abcd'\n"}, score: 1, verdict: "pass"},
		{name: "file lacks the function", settings: `{"value": "file://check.py:grade"}`, answer: "abcd",
			files: map[string]string{"check.py": "x = 1\n"}, score: 0, verdict: "fail", text: "has no function grade"},
	})
}

func TestScriptAssertionSettings(t *testing.T) {
	t.Parallel()
	tests := []struct{ typ, settings, err string }{
		{"javascript", `{}`, "javascript needs `value`"},
		{"python", `{"value": "  "}`, "value: must not be empty"},
		{"python", `{"value": 3}`, "value: must be a string"},
		{"javascript", `{"value": "true", "threshold": 2}`, "threshold: must be a number from 0 to 1"},
		{"javascript", `{"value": "true", "config": [1]}`, "config: must be a mapping"},
		{"javascript", `{"value": "file://"}`, "file:// names no file"},
	}
	for _, tt := range tests {
		t.Run(tt.typ+" "+tt.settings, func(t *testing.T) {
			t.Parallel()
			typ, _ := suite.LookupEvaluator(tt.typ)
			_, err := typ.Parse(&suite.EvaluatorSpec{Type: tt.typ, Settings: json.RawMessage(tt.settings)})
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("error = %v, want %q", err, tt.err)
			}
		})
	}
}

func TestJSFunctionBody(t *testing.T) {
	t.Parallel()
	tests := []struct{ code, want string }{
		{"output.includes('a')", "return output.includes('a')"},
		{"  output === 'a';;  ", "return output === 'a'"},
		{"const a = 1; let b = 2; a + b", "const a = 1; let b = 2; return a + b"},
		{"return output", "return output"},
		{"const x = 1\nx", "const x = 1\nx"},
		{"a; b", "return a; b"}, // not a declaration: 5.x returns the whole line
	}
	for _, tt := range tests {
		if got := jsFunctionBody(tt.code); got != tt.want {
			t.Errorf("jsFunctionBody(%q) = %q, want %q", tt.code, got, tt.want)
		}
	}
}

// TestPFFunctionBody: promptfoo's buildFunctionBody, which puts return before any one line.
func TestPFFunctionBody(t *testing.T) {
	t.Parallel()
	tests := []struct{ code, want string }{
		{"output.includes('a')", "return output.includes('a')"},
		{"  output === 'a';;  \n", "return output === 'a'"},
		{"return true;\n", "return return true"}, // a syntax error there, and so here
		{"const a = 1; let b = 2; a + b", "const a = 1; let b = 2; return a + b"},
		{"const s = 'x;y'; s.length", "const s = 'x;y'; return s.length"},
		{`const s = "a\";b"; s`, `const s = "a\";b"; return s`},   // an escaped quote
		{`const s = "a\\"; b; s`, `const s = "a\\"; b; return s`}, // an escaped backslash
		{"const a = `;`", "const a = `;`"},
		{"const a = 1;", "const a = 1"},
		{"const x = 1\nx\n", "const x = 1\nx"},
		{"\noutput", "\noutput"}, // a line break before the code: a body as written
	}
	for _, tt := range tests {
		if got := pfFunctionBody(tt.code); got != tt.want {
			t.Errorf("pfFunctionBody(%q) = %q, want %q", tt.code, got, tt.want)
		}
	}
}

// TestJavascriptPromptfooRules: under promptfoo's rules one line with return does not run,
// and code that throws is a failing grader error that not- leaves failing.
func TestJavascriptPromptfooRules(t *testing.T) {
	t.Parallel()
	needTool(t, "node")
	pf := suite.GradingRulesOf(suite.Dialect5)
	pf.PromptfooJSBody, pf.GraderErrorFails, pf.NegateScriptVerdict = true, true, true
	for _, tt := range []struct {
		name, settings string
		rules          suite.GradingRules
		score          float64
		verdict, err   string
	}{
		{"one line with return, 5.x", `{"value": "return true;\n"}`, suite.GradingRulesOf(suite.Dialect5), 1, "pass", ""},
		{"one line with return, promptfoo", `{"value": "return true;\n"}`, pf, 0, "fail", "Unexpected token"},
		{"thrown, 5.x: a failed result", `{"value": "(() => { throw new Error('boom') })()"}`, suite.GradingRulesOf(suite.Dialect5), 0, "fail", ""},
		{"thrown, promptfoo", `{"value": "(() => { throw new Error('boom') })()"}`, pf, 0, "fail", "boom"},
		{"thrown, promptfoo, not-", `{"value": "(() => { throw new Error('boom') })()", "negate": true}`, pf, 0, "fail", "boom"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			spec := &suite.EvaluatorSpec{Name: "javascript", Type: "javascript", Weight: 1, Settings: json.RawMessage(tt.settings)}
			in := riskInput(riskCase(t.TempDir(), spec), "x")
			in.Case.Suite.Grading = tt.rules
			res := Evaluate(t.Context(), in, &Options{Timeout: time.Minute, Redactor: &redact.Redactor{}}).Results[0]
			if res.Score != tt.score || res.Verdict != tt.verdict || !strings.Contains(res.Error, tt.err) || (tt.err == "") != (res.Error == "") {
				t.Errorf("score %v verdict %s error %q, want %v %s %q", res.Score, res.Verdict, res.Error, tt.score, tt.verdict, tt.err)
			}
		})
	}
}

func TestScriptResult(t *testing.T) {
	t.Parallel()
	half := 0.5
	tests := []struct {
		raw       string
		threshold *float64
		score     float64
		pass      bool
	}{
		{"true", nil, 1, true},
		{"false", &half, 0, false},
		{"0.4", &half, 0.4, false},
		{"0.0001", nil, 0.0001, true},
		{"-3", nil, 0, false},
		{`"yes"`, nil, 0, false},
		{`[1]`, nil, 0, false},
		{`{"pass": "yes"}`, nil, 0, true}, // any present pass decides, as `??` does
		{`{"pass": null, "score": 0.7}`, &half, 0.7, true},
		{`{"score": "0.9"}`, nil, 0, false}, // a string score is not a number
	}
	for _, tt := range tests {
		v := scriptResult(json.RawMessage(tt.raw), "Test assertion", tt.threshold)
		if v.score != tt.score || v.forcePass != tt.pass || v.forceFail == tt.pass {
			t.Errorf("%s: score %v pass %v, want %v %v", tt.raw, v.score, v.forcePass, tt.score, tt.pass)
		}
	}
	if v := scriptResult(nil, "Test assertion", nil); !v.forceFail || !strings.Contains(v.misses[0], "Test assertion failed") {
		t.Errorf("undefined: %+v", v)
	}
}

// TestPromptfooJavascriptNotCode: in a promptfoo config a javascript value that is not a
// string loads and fails its assertion when it runs, with score 0 (promptfoo's
// handleJavascript); a 5.x file gets a load error for the same entry.
func TestPromptfooJavascriptNotCode(t *testing.T) {
	t.Parallel()
	needTool(t, "node")
	for _, tc := range []struct{ value, got string }{{"2", "the number 2"}, {"true", "the boolean true"}, {"{a: 1}", "a mapping"}} {
		t.Run(tc.value, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			assert := "\n    assert:\n      - type: not-javascript\n        value: " + tc.value + "\n      - type: contains\n        value: hi\n"
			file := writeFile(t, dir, "promptfooconfig.yaml", "providers: [openai:chat:m]\nprompts: ['{{q}}']\ntests:\n  - vars: {q: hi}"+assert)
			s := suite.Load(file, suite.LoadOptions{Cwd: dir})
			if suite.HasErrors(s.Diagnostics) || len(s.Cases) != 1 {
				t.Fatalf("load: %d cases, %v", len(s.Cases), s.Diagnostics)
			}
			in := riskInput(s.Cases[0], "hi")
			out := Evaluate(t.Context(), in, &Options{Timeout: time.Minute, Redactor: &redact.Redactor{}})
			res := out.Results[0]
			if res.Score != 0 || res.Verdict != "fail" || !strings.Contains(res.Error, "must have a string value, got "+tc.got) || out.Score != 0.5 || out.Errored {
				t.Errorf("result %v %s %q, case %v errored %v; want a failed assertion, the case scored 0.5", res.Score, res.Verdict, res.Error, out.Score, out.Errored)
			}
			file5 := writeFile(t, dir, "v5.eval.yaml", "prompts: ['{{q}}']\ntests:\n  - id: a\n    vars: {q: hi}"+assert)
			if s5 := suite.Load(file5, suite.LoadOptions{Cwd: dir}); !suite.HasErrors(s5.Diagnostics) {
				t.Errorf("a 5.x file loaded %s as javascript code", tc.value)
			}
		})
	}
}

// TestContextVars: promptfoo's context.vars (the test's vars as written, {} for none) reaches
// javascript and python code under GradingRules.ContextVars; 5.x's context has none.
func TestContextVars(t *testing.T) {
	t.Parallel()
	needTool(t, "node")
	needTool(t, "python3")
	tests := []struct {
		name, typ, code, vars string
		rule                  bool
	}{
		{"javascript", "javascript", `context.vars.expect === 'High' && context.vars.deep.keyName === 1`, `{"expect": "High", "deep": {"keyName": 1}}`, true},
		{"javascript no vars", "javascript", `JSON.stringify(context.vars) === '{}'`, "", true},
		{"javascript 5.x", "javascript", `context.vars === undefined`, `{"expect": "High"}`, false},
		{"python", "python", `context['vars']['expect'] == 'High' and context['vars']['deep']['keyName'] == 1`, `{"expect": "High", "deep": {"keyName": 1}}`, true},
		{"python 5.x", "python", `'vars' not in context`, `{"expect": "High"}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, _ := json.Marshal(tt.code)
			spec := &suite.EvaluatorSpec{Name: tt.typ, Type: tt.typ, Weight: 1, Settings: json.RawMessage(`{"value": ` + string(code) + `}`)}
			in := riskInput(riskCase(t.TempDir(), spec), "High risk")
			in.Case.Suite.Grading = suite.GradingRulesOf(suite.Dialect5)
			in.Case.Suite.Grading.ContextVars = tt.rule
			if tt.vars != "" {
				in.Case.Vars = json.RawMessage(tt.vars)
			}
			res := Evaluate(t.Context(), in, &Options{Timeout: time.Minute, Redactor: &redact.Redactor{}}).Results[0]
			if res.Score != 1 || res.Error != "" {
				t.Errorf("score %v error %q misses %q, want 1", res.Score, res.Error, res.Misses)
			}
		})
	}
}
