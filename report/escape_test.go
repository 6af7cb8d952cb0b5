package report

import (
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestMarkdownEscape(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, inline string }{
		{"plain", "all good", "all good"},
		{"html", "</details><!-- x -->", "&lt;/details&gt;&lt;!-- x --&gt;"},
		{"pipe", "a | b", "a &#124; b"},
		{"newlines", "a\nb\r\nc", "a<br>b<br>c"},
		{"mention", "@org/team hi", "@" + zwj + "org/team hi"},
		{"issue", "see #123", "see #" + zwj + "123"},
		{"backticks", "`code`", "&#96;code&#96;"},
		{"link", "[x](http://e)", "&#91;x&#93;(http://e)"},
		{"emphasis and math", "*a* ~b~ $c$", "&#42;a&#42; &#126;b&#126; &#36;c&#36;"},
		{"backslash", `a\|b`, "a&#92;&#124;b"},
		{"entities stay literal", "&amp; &#124;", "&amp;amp; &amp;#" + zwj + "124;"},
		{"snake case readable", "refund_policy _x_", "refund_policy &#95;x&#95;"},
		{"controls and ansi", "\x00\x1b[31mred\x1b[0m", "red"},
		{"inline trims", "  padded \n", "padded"},
		{"tabs", "a\tb", "a b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := mdInline(tt.in); got != tt.inline {
				t.Errorf("mdInline(%q) = %q, want %q", tt.in, got, tt.inline)
			}
		})
	}
}

var (
	mentionRe = regexp.MustCompile(`(?i)@[a-z0-9]`)
	issueRe   = regexp.MustCompile(`#[0-9]`)
	entityRe  = regexp.MustCompile(`&#[0-9]+;`)
)

// checkEscaped fails when escaped text could close or open markup, forge the marker, ping
// someone, link an issue or split a table cell.
func checkEscaped(t *testing.T, in, out string) {
	t.Helper()
	rest := strings.ReplaceAll(out, "<br>", "")
	if strings.ContainsAny(out, "\n\r") {
		t.Fatalf("inline output holds a newline: %q -> %q", in, out)
	}
	switch {
	case strings.Contains(rest, "<"), strings.Contains(out, "</details"), strings.Contains(out, "<!--"):
		t.Fatalf("raw markup in %q -> %q", in, out)
	case strings.ContainsAny(rest, "|`>\\[]*~$\x00\x1b"):
		t.Fatalf("unescaped Markdown character in %q -> %q", in, out)
	case mentionRe.MatchString(out):
		t.Fatalf("live @mention in %q -> %q", in, out)
	case issueRe.MatchString(entityRe.ReplaceAllString(out, "")):
		t.Fatalf("live #reference in %q -> %q", in, out)
	case !utf8.ValidString(out):
		t.Fatalf("invalid UTF-8 in %q -> %q", in, out)
	}
}

func FuzzMarkdownEscape(f *testing.F) {
	for _, s := range []string{
		"</details>", "<!-- agentv-action:v1 -->", "a|b", "@org/team", "#123", "\x00\x1b[31m",
		"<<!---->", "&lt;/details&gt;", "`x`", "@@x ##1", "\xed\xa0\x80\xff", "\r\n|\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkEscaped(t, s, mdInline(s))
		// Escaping must be stable under concatenation with our own table syntax: one cell stays one cell.
		row := "| " + mdInline(s) + " | x |"
		if strings.Count(row, "|") != 3 {
			t.Fatalf("cell split: %q", row)
		}
	})
}

func TestSourceURL(t *testing.T) {
	t.Parallel()
	l := Links{ServerURL: "https://github.example.com/", Repo: "acme/evals", SHA: "abc123"}
	tests := []struct {
		name  string
		links Links
		file  string
		line  int
		want  string
	}{
		{"plain", l, "evals/smoke.yaml", 12, "https://github.example.com/acme/evals/blob/abc123/evals/smoke.yaml#L12"},
		{"no line", l, "evals/smoke.yaml", 0, "https://github.example.com/acme/evals/blob/abc123/evals/smoke.yaml"},
		{"escaped segments", l, "evals/my suite (v2)/a&b#.yaml", 1, "https://github.example.com/acme/evals/blob/abc123/evals/my%20suite%20%28v2%29/a%26b%23.yaml#L1"},
		{"windows separators", l, `evals\a.yaml`, 2, "https://github.example.com/acme/evals/blob/abc123/evals/a.yaml#L2"},
		{"absolute", l, "/home/u/evals/a.yaml", 2, ""},
		{"outside workspace", l, "../other/a.yaml", 2, ""},
		{"drive letter", l, "C:/evals/a.yaml", 2, ""},
		{"no sha", Links{ServerURL: l.ServerURL, Repo: l.Repo}, "a.yaml", 1, ""},
		{"bad repo", Links{ServerURL: l.ServerURL, Repo: "acme/ev)ils", SHA: "abc"}, "a.yaml", 1, ""},
		{"javascript server", Links{ServerURL: "javascript:alert(1)", Repo: "a/b", SHA: "abc"}, "a.yaml", 1, ""},
		{"empty", Links{}, "a.yaml", 1, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := tt.links.sourceURL(tt.file, tt.line); got != tt.want {
				t.Errorf("sourceURL(%q, %d) = %q, want %q", tt.file, tt.line, got, tt.want)
			}
		})
	}
}

func TestTruncate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in    string
		limit int
		want  string
	}{
		{"short", 10, "short"},
		{"exactly", 7, "exactly"},
		{"ééééé", 2, "éé… [3 more characters]"},
		{"abcdef", 5, "abcde… [1 more character]"},
	}
	for _, tt := range tests {
		if got := truncate(tt.in, tt.limit); got != tt.want {
			t.Errorf("truncate(%q, %d) = %q, want %q", tt.in, tt.limit, got, tt.want)
		}
	}
}
