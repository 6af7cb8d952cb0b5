package idglob

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// cases are patterns and ids with what micromatch 4.0.8's isMatch (AgentV 4.42.4's
// --test-id) answers; TestMicromatchAgrees asks micromatch itself when it is at hand.
var cases = []struct {
	pattern, id string
	want        bool
}{
	{"!a1", "a1", false},
	{"!a1", "a2", true},
	{"!!a1", "a1", true},
	{"!!a1", "a2", false},
	{"!a*", "a1", false},
	{"!a*", "b1", true},
	{"!*-2", "a-1", true},
	{"!*-2", "a-2", false},
	{"@(a|b)-1", "a-1", true},
	{"@(a|b)-1", "c-1", false},
	{"!(a|b)-1", "c-1", true},
	{"!(a|b)-1", "a-1", false},
	{"!(a)*", "abc", false},
	{"!(a)*", "bcd", true},
	{"a!(b)c", "abc", false},
	{"a!(b)c", "axc", true},
	{"a!(b)c", "ac", true},
	{"+(ab)", "abab", true},
	{"+(ab)", "ab", true},
	{"+(ab)", "a", false},
	{"*(ab)c", "c", true},
	{"*(ab)c", "ababc", true},
	{"?(a)b", "b", true},
	{"?(a)b", "ab", true},
	{"?(a)b", "aab", false},
	{"!(x)", "x", false},
	{"!(x)", "y", true},
	{"!(x)", "xy", true},
	{"!(*-2)", "a-1", true},
	{"!(*-2)", "a-2", false},
	{"!(greet-*)", "greet-1", false},
	{"!(greet-*)", "other", true},
	{"*(a|b)", "abba", true},
	{"*(a|b)c", "abac", true},
	{"@(a|b)*@(c|d)", "acd", true},
	{"+(a|b)-1", "abba-1", true},
	{"+(a|b)-1", "-1", false},
	{"{a,b}-*", "a-1", true},
	{"{a,b}-*", "c-1", false},
	{"{a,{b,c}}d", "cd", true},
	{"{,a}b", "b", true},
	{"{,a}b", "ab", true},
	{"a{,b}", "a", true},
	{"{a,b}{1,2}", "b2", true},
	{"case-{1..3}", "case-2", true},
	{"case-{1..3}", "case-4", false},
	{"case-{01..10}", "case-05", false},
	{"case-{01..10}", "case-1", true},
	{"case-{1..12}", "case-12", false},
	{"case-{1..12}", "case-2", true},
	{"{a..c}x", "bx", true},
	{"{a..c}x", "dx", false},
	{"x{1..3..2}", "x2", true},
	{"*", "a/b", false},
	{"**", "a/b", true},
	{"**", "a/.b", false},
	{"a/**", "a/b/c", true},
	{"a/**", "a", true},
	{"a/**", "a/", true},
	{"**/x", "x", true},
	{"**/x", "a/x", true},
	{"**/x", "a/b/x", true},
	{"**/x", ".a/x", false},
	{"a/*/c", "a/b/c", true},
	{"a*", "a/b", false},
	{"a**", "ab", true},
	{"a**", "a/b", false},
	{"*", ".hidden", false},
	{"*", "x", true},
	{".*", ".hidden", true},
	{"*.test", "x.test", true},
	{"*.test", ".test", false},
	{"?", "a", true},
	{"?", "ab", false},
	{"?", ".", false},
	{"a?", "a.", true},
	{"a/?", "a/.", false},
	{"a/*", "a/.b", false},
	{"[abc]-1", "b-1", true},
	{"[!abc]-1", "b-1", true},
	{"[!abc]-1", "!-1", true},
	{"[!abc]-1", "d-1", false},
	{"[^abc]-1", "d-1", true},
	{"[^abc]-1", "a-1", false},
	{"[[:digit:]]x", "5x", true},
	{"[[:alpha:]]x", "5x", false},
	{"[a-c]x", "bx", true},
	{"[a-c]x", "dx", false},
	{"[]]x", "]x", true},
	{"a[.]b", "a.b", true},
	{"[a-", "[a-", true},
	{"[a-", "a", false},
	{"(a|b)-1", "a-1", true},
	{"(a|b)-1", "c-1", false},
	{"x(y", "x(y", true},
	{"x(y", "xy", false},
	{"a|b", "a|b", true},
	{"a|b", "a", false},
	{"@(a|b", "@(a|b", true},
	{"@(a|b", "a", false},
	{"a\\*b", "a*b", true},
	{"a\\*b", "axb", false},
	{"greet-*", "greet-hello", true},
	{"foo", "FOO", false},
	{"a+b", "a+b", true},
	{"a+b", "aab", false},
	{"a.b", "a.b", true},
	{"a.b", "axb", false},
	{"a$b", "a$b", true},
	{"a^b", "a^b", true},
	{"!", "!", true},
	{"!", "a", true},
	{"*!*", "a!b", true},
	{"*-2", "a-2", true},
	{"a*b*c", "aXbYc", true},
	{"a*b*c", "aXbY", false},
	{"hello world", "hello world", true},
	{"hello *", "hello there", true},
	{"@(a|b)?-1", "-1", true},
	{"@(a|b)?-1", "a-1", true},
	{"(a|b)?c", "c", true},
	{"+(a)?", "a", true},
	{"[^a]+(a)?", "x", false},
	{"?(a)?", "-", false},
	{"!(a|b)?", "b-", false},
	{"**(ab)", "!caa", true},
	{"**(ab)", "abab", true},
	{"***", "a/b", false},
	{"***", "ab", true},
	{"*", "b./", true},
	{"*", "b/", true},
	{"!(greet|farewell)-*", "greet-1", false},
	{"!(greet|farewell)-*", "hello-1", true},
	{"@(smoke|fast)-*", "fast-2", true},
	{"+([0-9])", "123", true},
	{"case-+([0-9])", "case-12", true},
	{"case-+([0-9])", "case-", false},
	{"*-@(1|2)", "x-2", true},
	{"*-@(1|2)", "x-3", false},
	{"!*-@(1|2)", "x-3", true},
}

func TestMatch(t *testing.T) {
	t.Parallel()
	for _, tc := range cases {
		if got := Compile(tc.pattern).Match(tc.id); got != tc.want {
			t.Errorf("%q matching %q = %v, want %v (micromatch)", tc.pattern, tc.id, got, tc.want)
		}
	}
}

// TestMicromatchAgrees runs the table through micromatch from AgentV 4.42.4's install
// (AGENTV_TEST_AGENTV442 is its dist/cli.js), so the table's answers are micromatch's own.
func TestMicromatchAgrees(t *testing.T) {
	t.Parallel()
	cli := os.Getenv("AGENTV_TEST_AGENTV442")
	if cli == "" {
		t.Skip("AGENTV_TEST_AGENTV442 (the path of AgentV 4.42.4's dist/cli.js) is not set")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed")
	}
	mm := filepath.Join(filepath.Dir(cli), "..", "..", "micromatch")
	script := `const mm = require(process.argv[1]); const rl = require('readline').createInterface({input: process.stdin});
rl.on('line', l => { const [p, id] = JSON.parse(l); console.log(JSON.stringify(mm.isMatch(id, p))); });`
	var in strings.Builder
	for _, tc := range cases {
		b, _ := json.Marshal([]string{tc.pattern, tc.id})
		in.Write(append(b, '\n'))
	}
	cmd := exec.Command("node", "-e", script, mm)
	cmd.Stdin = strings.NewReader(in.String())
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node micromatch: %v", err)
	}
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for i := 0; sc.Scan(); i++ {
		if i >= len(cases) {
			t.Fatalf("more answers than cases")
		}
		if want := sc.Text() == "true"; want != cases[i].want {
			t.Errorf("micromatch says %q matching %q is %v; the table says %v", cases[i].pattern, cases[i].id, want, cases[i].want)
		}
	}
}
