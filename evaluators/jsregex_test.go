package evaluators

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/agentv/action/suite"
)

// jsAnswer has what JavaScript's regexes treat differently from RE2 and from code points: $
// amounts, a repeated number, non-ASCII letters and digits, an emoji, U+2028.
const jsAnswer = "  Price: $42, total 42 42. Na\u00efve caf\u00e9 \u0663 \U0001F600\nSecond line\u2028third\n"

// TestRegexJavaScript: the regex assertion has JavaScript's semantics. Rows marked "run" are
// AgentV 4.42.4's scores on the same patterns and answer (a mock target answering jsAnswer,
// one test a row, `node dist/cli.js eval eval.yaml -o run`, index.jsonl); rows marked "node"
// are `new RegExp(value, flags).test(answer)` in Node 20, which is all 4.42.4's assertion does
// (packages/core/src/evaluation/graders/assertions.ts:159).
func TestRegexJavaScript(t *testing.T) {
	t.Parallel()
	const emoji = "\U0001F600"
	tests := []struct {
		name, value, flags, answer string
		want                       float64
	}{
		{"lookahead (run)", `42(?=\.)`, "", jsAnswer, 1},
		{"lookahead, no match (run)", `\d+(?=%)`, "", jsAnswer, 0},
		{"negative lookahead (run)", `^(?![\s\S]*error)`, "", jsAnswer, 1},
		{"lookbehind (run)", `(?<=\$)\d+`, "", jsAnswer, 1},
		{"lookbehind, no match (run)", `(?<=€)\d+`, "", jsAnswer, 0},
		{"negative lookbehind (run)", `(?<!\$)\b42\b`, "", jsAnswer, 1},
		{"backreference (run)", `(\d+) \1`, "", jsAnswer, 1},
		{"backreference, no match (run)", `(\w)\1{3}`, "", jsAnswer, 0},
		{"named group and \\k (run)", `(?<n>\d+) \k<n>\.`, "", jsAnswer, 1},
		{"named group, no match (run)", `(?<n>\d)\k<n>`, "", jsAnswer, 0},
		{"\\d is ASCII: not U+0663 (run)", `\d \uD83D`, "", jsAnswer, 0},
		{"\\d is ASCII with u too (run)", `\d \u{1F600}`, "u", jsAnswer, 0},
		{"any character before the emoji (run)", `. \uD83D`, "", jsAnswer, 1},
		{"\\w is ASCII (run)", `caf\w`, "", jsAnswer, 0},
		{"\\w is ASCII with iu (run)", `caf\w`, "iu", jsAnswer, 0},
		{"\\p{L} with u (run)", `Na\p{L}ve`, "u", jsAnswer, 1},
		{"\\p without u is the letter p (run)", `Na\p{L}ve`, "", jsAnswer, 0},
		{"an emoji is two units without u (run)", `\u0663 .$`, "m", jsAnswer, 0},
		{"an emoji is one character with u (run)", `\u0663 .$`, "mu", jsAnswer, 1},
		{"two dots for an emoji (run)", `\u0663 ..$`, "m", jsAnswer, 1},
		{"m: $ before U+2028 (run)", `line$`, "m", jsAnswer, 1},
		{"$ is the end of input (run)", `line$`, "", jsAnswer, 0},
		{"s: . matches U+2028 (run)", `line.third`, "s", jsAnswer, 1},
		{". stops at U+2028 (run)", `line.third`, "", jsAnswer, 0},
		{"sticky (run)", `\s+Price`, "y", jsAnswer, 1},
		{"sticky, not at the start (run)", `Price`, "y", jsAnswer, 0},
		{"i on non-ASCII (run)", "NA\u00cfVE", "i", jsAnswer, 1},
		{"\\u{} with u (run)", `\u{1F600}`, "u", jsAnswer, 1},
		{"an emoji in the pattern (run)", emoji + `\n`, "", jsAnswer, 1},
		{"an emoji in a class with u (run)", "[" + emoji + `]\n`, "u", jsAnswer, 1},
		{"an emoji in a class is two units (run)", "^[^" + emoji + `]*\n`, "", jsAnswer, 0},
		{"$ not before a final newline (run)", `third$`, "", jsAnswer, 0},
		{"surrogate pair escapes (node)", `^\uD83D\uDE00$`, "", emoji, 1},
		{"surrogate ranges (node)", `^[\uD800-\uDBFF][\uDC00-\uDFFF]$`, "", emoji, 1},
		{"a BMP range covers both halves (node)", `^[\u0000-\uFFFF]{2}$`, "", emoji, 1},
		{"a range below the surrogates (node)", `^[\u0000-\uD7FF]`, "", emoji, 0},
		{"a range above the surrogates (node)", `^[\uE000-\uFFFF]`, "", emoji, 0},
		{"a range through the surrogates (node)", `^[ -\uFFFF]+$`, "", "ab" + emoji, 1},
		{"an escaped emoji (node)", `^\` + emoji + `$`, "", emoji, 1},
		{"a high surrogate alone (node)", `^[\uD83D]`, "", emoji, 1},
		{"a negated class on each half (node)", `^[^a]{2}$`, "", emoji, 1},
		{"counting with u (node)", `^.{2}$`, "u", "a" + emoji, 1},
		{"a group name outside the BMP (node)", `(?<𝒜>a)\k<𝒜>`, "", "aa", 1},
		{"backreference to a group not yet matched (node)", `(?:(a)|b)\1c`, "", "bc", 1},
		{"groups numbered in order, named or not (node)", `^(?<c>a)(b)\2$`, "", "abb", 1},
		{"forward reference (node)", `\1(a)`, "", "a", 1},
		{"lookahead password rule (node)", `^(?=.*\d)(?=.*[a-z]).{8,}$`, "", "abcdefg1", 1},
		{"lookahead password rule, no digit (node)", `^(?=.*\d)(?=.*[a-z]).{8,}$`, "", "abcdefgh", 0},
		{"i is not Unicode folding without u (node)", `[a-z]`, "i", "\u212a", 0},
		{"iu folds the Kelvin sign (node)", `[a-z]`, "iu", "\u212a", 1},
		{"\\s is Unicode space (node)", `^\s$`, "", "\ufeff", 1},
		{"U+0085 is not \\s (node)", `^\s$`, "", "\u0085", 0},
		{"lone braces without u (node)", `a{,2}}`, "", "a{,2}}", 1},
		{"\\A is the letter A (node)", `\A`, "", "A", 1},
		{"\\cJ (node)", `\cJ`, "", "\n", 1},
		{"[^] (node)", `^[^]$`, "", "\n", 1},
		{"v without set syntax is u (node)", `^\p{Lu}[a-z\-]+$`, "v", "Na-ive", 1},
		{"ES2025 modifiers (source)", `(?i:price)`, "", jsAnswer, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			settings, _ := json.Marshal(map[string]string{"value": tt.value, "flags": tt.flags})
			c := riskCase(t.TempDir(), aSpec("regex", string(settings)))
			out := Evaluate(t.Context(), riskInput(c, tt.answer), &Options{})
			if res := out.Results[0]; res.Error != "" || res.Score != tt.want {
				t.Fatalf("/%s/%s: score %v error %q; want %v", tt.value, tt.flags, res.Score, res.Error, tt.want)
			}
		})
	}
}

// TestRegexLoadErrors: a pattern JavaScript rejects is a load error naming the field, also where
// the regular expression engine would accept it (.NET syntax, Unicode mode's strict escapes).
// Node 20's RegExp throws on every one of them.
func TestRegexLoadErrors(t *testing.T) {
	t.Parallel()
	tests := []struct{ value, flags, want string }{
		{"(abc", "", "invalid regular expression /(abc/: missing closing )"},
		{"a{2,1}", "", "invalid regular expression /a{2,1}/: invalid repeat count"},
		{"[z-a]", "", "range in reverse order"},
		{`\p{Foo}`, "u", "unknown unicode category, script, or property 'Foo'"},
		{"(?i)price", "", "(?i) is not JavaScript syntax"},
		{"(?#note)a", "", "(?#note) is not JavaScript syntax"},
		{"(?>a)", "", "(?>a) is not JavaScript syntax"},
		{"(?'n'a)", "", "(?'n'a) is not JavaScript syntax"},
		{"(?P<n>a)", "", "(?P<n>a) is not JavaScript syntax"},
		{"(?x: a)", "", "(?x: is not JavaScript syntax"},
		{"(?ii:a)", "", "(?ii: is not JavaScript syntax"},
		{"(?-:a)", "", "(?-: is not JavaScript syntax"},
		{"a{", "u", "a lone { must be escaped"},
		{"a}", "u", "a lone } must be escaped"},
		{"a]", "u", "a lone ] must be escaped"},
		{`\-`, "u", `\- is not a valid escape with the u flag`},
		{`[\_]`, "u", `\_ is not a valid escape with the u flag`},
		{`\a`, "u", `\a is not a valid escape with the u flag`},
		{"(?<n>a)(?<n>b)", "", "duplicate capture group name"},
		{`[\p{L}--[a-z]]`, "v", "flag v's class set syntax"},
		{`[\w&&\d]`, "v", "flag v's class set syntax"},
		{`[\q{abc}]`, "v", "flag v's class set syntax"},
		{`[a-z-]`, "v", `a - in a class must be escaped as \- with the v flag`},
		{`[^-a]`, "v", `a - in a class must be escaped`},
		{`[(]`, "v", `a ( in a class must be escaped`},
		{`[a|b]`, "v", `a | in a class must be escaped`},
	}
	for _, tt := range tests {
		t.Run(tt.value+"/"+tt.flags, func(t *testing.T) {
			t.Parallel()
			settings, _ := json.Marshal(map[string]string{"value": tt.value, "flags": tt.flags})
			_, err := parseRegex(aSpec("regex", string(settings)))
			var se *suite.SettingError
			if !errors.As(err, &se) || se.Path != "value" || !strings.Contains(se.Msg, tt.want) {
				t.Fatalf("error %v; want a `value` error containing %q", err, tt.want)
			}
		})
	}
	// and what JavaScript accepts without u stays accepted
	for _, ok := range []string{`a{`, `a}`, `]`, `\-`, `\_`, `(?<name>a)`, `(?:a)`, `(?=a)`, `(?!a)`, `(?<=a)`, `(?<!a)`, `(?i-m:a)`, `\8`} {
		settings, _ := json.Marshal(map[string]string{"value": ok})
		if _, err := parseRegex(aSpec("regex", string(settings))); err != nil {
			t.Errorf("/%s/: %v; JavaScript accepts it", ok, err)
		}
	}
}

// TestRegexTimeout: a pattern that backtracks exponentially on the answer is an error of that
// assertion once the match time runs out, not a hung run. Not parallel: it shortens the
// package's match timeout, and parallel tests start only after it returns.
func TestRegexTimeout(t *testing.T) { //nolint:paralleltest // it shortens the package's match timeout (see above)
	defer func(d time.Duration) { regexMatchTimeout = d }(regexMatchTimeout)
	regexMatchTimeout = 10 * time.Millisecond
	// A pattern no other test compiles: compiled patterns keep the timeout they were compiled with.
	c := riskCase(t.TempDir(), aSpec("regex", `{"value": "^(a+)+$", "flags": "d"}`))
	out := Evaluate(t.Context(), riskInput(c, strings.Repeat("a", 40)+"!"), &Options{})
	res := out.Results[0]
	if res.Score != 0 || !strings.Contains(res.Error, "regex /^(a+)+$/d (flags: d): the match did not finish within 10ms on this answer") {
		t.Fatalf("score %v error %q; want a timeout error of the assertion", res.Score, res.Error)
	}
	if strings.Contains(res.Error, "aaaa") {
		t.Errorf("error %q quotes the answer", res.Error)
	}
}

// FuzzCompileJS: any pattern and flags give a compiled pattern or an error, never a panic, and
// a compiled pattern matches any text without one.
func FuzzCompileJS(f *testing.F) {
	for _, s := range []string{`42(?=\.)`, `(?<=\$)\d+`, `(\w)\1`, `(?<n>a)\k<n>`, `[\uD800-\uDBFF][\uDC00-\uDFFF]`,
		`^[ -\uFFFF]+$`, "\\\U0001F600", `(?i:a)`, `\u{1F600}`, `[\d-z]`, `(?<𝒜>a)`, `a{2,}`, `[^]`, `\cJ`} {
		f.Add(s, "", "a 42 $7 \U0001F600")
		f.Add(s, "u", "x")
		f.Add(s, "imsy", "")
	}
	f.Fuzz(func(t *testing.T, pattern, flags, text string) {
		clean := ""
		for _, c := range flags {
			if strings.ContainsRune("gimsuy", c) && !strings.ContainsRune(clean, c) {
				clean += string(c)
			}
		}
		p, err := compileJS(pattern, clean)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("an empty error")
			}
			return
		}
		_, _ = p.test(text)
	})
}

// BenchmarkRegexTest: one regex assertion's match on a 2 KB answer (the text is converted to
// code units on every call).
func BenchmarkRegexTest(b *testing.B) {
	p, err := compileJS(`"answer"\s*:\s*"4[0-9]"(?=\s*[,}])`, "i")
	if err != nil {
		b.Fatal(err)
	}
	answer := strings.Repeat("Some prose about the question, with an emoji 😀. ", 40) + `{"answer": "42"}`
	b.ReportAllocs()
	for b.Loop() {
		if ok, err := p.test(answer); !ok || err != nil {
			b.Fatal(ok, err)
		}
	}
}
