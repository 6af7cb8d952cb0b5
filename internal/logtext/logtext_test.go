package logtext

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestLine(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, want string }{
		{"plain", "smoke/case-3", "smoke/case-3"},
		{"empty", "", ""},
		{"newline command", "x\n::add-mask::e", "x ::add-mask::e"},
		{"leading command", "::add-mask::e", `\::add-mask::e`},
		{"indented command", "  \t::error file=a::b", `\::error file=a::b`},
		{"CR", "id\r::stop-commands::t", "id ::stop-commands::t"},
		{"CRLF", "a\r\nb", "a b"},
		{"unicode separators", "a\u2028::set-output name=x::1\u2029b\u0085c", "a ::set-output name=x::1 b c"},
		{"vertical tab and form feed", "a\v\fb", "a b"},
		{"legacy command", "look ##[add-mask]e", `look ##\[add-mask]e`},
		{"legacy command repeated", "###[x]##[y]", `###\[x]##\[y]`},
		{"one hash is fine", "#[derive]", "#[derive]"},
		{"ANSI", "\x1b[31mred\x1b[0m", "red"},
		{"OSC hyperlink", "\x1b]8;;https://evil\x07click\x1b]8;;\x07", "click"},
		{"C1 CSI", "a\u009b31mb", "ab"},
		{"controls", "a\x00b\x07c\x7fd", "abcd"},
		{"bidi override", "abc\u202edcba\u2066x\u2069", "abcdcbax"},
		{"invalid UTF-8", "a\xffb", "a\ufffdb"},
		{"spaces collapse", "  a  \t b  ", "a b"},
		{"non-ASCII kept", "été 🚀", "été 🚀"},
		{"inner colons kept", "std::vector", "std::vector"},
		{"escape then command", "\x1b[0m::add-mask::e", `\::add-mask::e`},
		{"nbsp then command", "\u00a0::add-mask::e", `\::add-mask::e`},
		{"ideographic space", "a\u3000b", "a b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := Line(tt.in); got != tt.want {
				t.Errorf("Line(%q) = %q, want %q", tt.in, got, tt.want)
			}
			checkLine(t, tt.in, Line(tt.in))
		})
	}
}

func TestBlock(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, want string }{
		{"plain", "a\nb", "a\nb"},
		{"line breaks", "a\r\nb\rc\u2028d\u2029e\u0085f\vg\fh", "a\nb\nc\nd\nef\ng\nh"}, // NEL is a C1 control
		{"tab kept", "a\tb", "a\tb"},
		{"ANSI and controls", "\x1b[1mbold\x1b[0m\x00\x07", "bold"},
		{"bidi", "x\u202ey", "xy"},
		{"invalid UTF-8", "\xff", "\ufffd"},
		{"commands stay text", "::add-mask::e\n##[error]x", "::add-mask::e\n##[error]x"},
		{"nul and C0", "a\x00b\x01c\x7fd", "abcd"},
		{"csi with intermediates", "a\x1b[?25hb\x1b[2 qc", "abc"},
		{"osc with bel", "\x1b]0;title\x07text", "text"},
		{"osc with st", "\x1b]8;;https://x\x1b\\link\x1b]8;;\x1b\\", "link"},
		{"unterminated osc keeps text", "\x1b]no end", "no end"},
		{"charset designation", "\x1b(Bok", "ok"},
		{"two-byte escape", "\x1bMup", "up"},
		{"trailing esc", "end\x1b", "end"},
		{"c1 csi", "a\u009b31mb", "ab"},
		{"c1 controls", "a\u0085b\u0080c", "abc"},
		{"noncharacters", "a\ufffeb\uffffc", "abc"},
		{"lone surrogate", "a\xed\xa0\x80b", "a\ufffd\ufffd\ufffdb"},
		{"kept unicode", "café ✅ 𝔸\u200d", "café ✅ 𝔸\u200d"},
		{"plain with tab and trailing newline", "hello\tworld\n", "hello\tworld\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := Block(tt.in); got != tt.want {
				t.Errorf("Block(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// checkLine asserts what the runner and a log viewer need of a line: no line break of any
// kind, no escape or control character, no "##[", and no "::" after leading whitespace.
func checkLine(t *testing.T, in, got string) {
	t.Helper()
	if !utf8.ValidString(got) {
		t.Errorf("Line(%q) = %q: invalid UTF-8", in, got)
	}
	for _, r := range got {
		if isBreak(r) || dropped(r) || (unicode.IsSpace(r) && r != ' ') {
			t.Errorf("Line(%q) = %q keeps %U", in, got, r)
		}
	}
	if strings.Contains(got, "##[") {
		t.Errorf("Line(%q) = %q keeps a legacy workflow command", in, got)
	}
	if strings.HasPrefix(strings.TrimLeftFunc(got, unicode.IsSpace), "::") {
		t.Errorf("Line(%q) = %q starts with a workflow command", in, got)
	}
	// Whatever our own prefix, the result cannot start a command.
	if strings.Contains("x "+got, "##[") {
		t.Errorf("Line(%q) = %q forms ##[ after a prefix", in, got)
	}
}

func FuzzLine(f *testing.F) {
	for _, s := range []string{"a\n::add-mask::e", "##[x]", "\x1b[31m::", "\u2028::", "#\x00#[", "##\u202e["} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Line(s)
		checkLine(t, s, got)
		if Line(got) != got {
			t.Errorf("Line is not idempotent on %q: %q then %q", s, got, Line(got))
		}
	})
}

func BenchmarkLineSafe(b *testing.B) {
	s := "smoke/case-1234"
	for b.Loop() {
		_ = Line(s)
	}
}
