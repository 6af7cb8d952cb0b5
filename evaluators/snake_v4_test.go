package evaluators

import (
	"strings"
	"testing"
)

// The key spellings of 4.42.4's toSnakeCaseDeep (case-conversion.ts): every ASCII capital of a
// key that does not start with one becomes _ and its lowercase; nothing else changes.
func TestSnake4(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"riskLevel", "risk_level"},
		{"userID", "user_i_d"},
		{"siteURL", "site_u_r_l"},
		{"a1B2", "a1_b2"},
		{"v2Mode", "v2_mode"},
		{"already_snake", "already_snake"},
		{"max-depth", "max-depth"},
		{"kebab-Case", "kebab-_case"},
		{"HTTPMode", "HTTPMode"}, // a capital first: a proper name such as a tool, kept
		{"Read", "Read"},
		{"_privateKey", "_private_key"},
		{"camel_Mixed", "camel__mixed"},
		{"émeLevel", "éme_level"}, // only ASCII capitals count
		{"ÉTAT", "É_t_a_t"},       // a non-ASCII capital first is no proper name to 4.42.4
		{"", ""},
	}
	for _, tt := range tests {
		if got := snake4(tt.in); got != tt.want {
			t.Errorf("snake4(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestSnakeKeys4(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, want string }{
		{"nested objects and arrays", `{"config":{"riskLevel":1,"listOf":[{"deepKey":[{"aB":null}]},2,"xY"]}}`,
			`{"config":{"risk_level":1,"list_of":[{"deep_key":[{"a_b":null}]},2,"xY"]}}`},
		{"values and numbers as written", ` { "fooBar" : "camelCase value" , "n": 1.50e3, "t": true, "s": "a\"B\\u0041" } `,
			`{"foo_bar":"camel Case value","n":1.50e3,"t":true,"s":"a\"B\\u0041"}`},
		{"escaped key", `{"user\u0049d":1}`, `{"user_id":1}`},
		{"colliding keys: first place, last value", `{"riskLevel":1,"x":2,"risk_level":3}`, `{"risk_level":3,"x":2}`},
		{"empty", `{"a":{},"b":[]}`, `{"a":{},"b":[]}`},
		{"tool names", `{"tool_calls":{"webSearch":2,"Read":1}}`, `{"tool_calls":{"web_search":2,"Read":1}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			want := strings.Replace(tt.want, "camel Case", "camelCase", 1)
			got, err := snakeKeys4([]byte(tt.in))
			if err != nil || string(got) != want {
				t.Errorf("snakeKeys4(%s) = %s, %v; want %s", tt.in, got, err, want)
			}
		})
	}
	// Many keys (the map path) collide the same way.
	var b strings.Builder
	b.WriteString("{")
	for i := range 40 {
		b.WriteString(`"k` + string(rune('a'+i%26)) + strings.Repeat("x", i/26) + `":1,`)
	}
	b.WriteString(`"kA":2,"k_a":3}`)
	got, err := snakeKeys4([]byte(b.String()))
	if err != nil || !strings.Contains(string(got), `"k_a":3`) || strings.Count(string(got), `"k_a"`) != 1 {
		t.Errorf("large object: %s, %v", got, err)
	}
	for _, bad := range []string{`{"a":`, `{"a" 1}`, `[1,`, `{"a":1}x`, `"open`, `{1:2}`} {
		if _, err := snakeKeys4([]byte(bad)); err == nil {
			t.Errorf("snakeKeys4(%s): no error", bad)
		}
	}
}

// BenchmarkSnakeKeys4 converts a payload the size of a large transcript: 500 messages with
// tool calls and text.
func BenchmarkSnakeKeys4(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`{"criteria":"c","messages":[`)
	for i := range 500 {
		if i > 0 {
			sb.WriteString(",")
		}
		sb.WriteString(`{"role":"assistant","content":"` + strings.Repeat("some answer text ", 20) + `","tool_calls":[{"tool":"webSearch","input":{"maxResults":5,"queryText":"paris"},"output":"results"}]}`)
	}
	sb.WriteString(`],"config":{"riskLevel":"high"}}`)
	src := []byte(sb.String())
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, err := snakeKeys4(src); err != nil {
			b.Fatal(err)
		}
	}
}
