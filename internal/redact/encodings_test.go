package redact

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"strings"
	"testing"
)

// secret is long enough for its encodings to be masked; it has characters that every
// encoding treats differently (/, +, &, space, quote, non-ASCII).
const secret = `sk-live/AB+c&d e"f-é-0123456789`

func TestRedactorEncodings(t *testing.T) {
	t.Parallel()
	var r Redactor
	r.Add(secret)
	b := []byte(secret)
	jsonq, _ := json.Marshal(secret)
	jsonDouble, _ := json.Marshal(string(jsonq))
	hx := hex.EncodeToString(b)
	tests := []struct{ name, in string }{
		{"plain", "x " + secret + " y"},
		{"json", string(jsonq)},
		{"json twice", string(jsonDouble)},
		{"json ascii", strings.ReplaceAll(string(jsonq), "é", `\u00e9`)},
		{"base64 std", base64.StdEncoding.EncodeToString(b)},
		{"base64 std raw", base64.RawStdEncoding.EncodeToString(b)},
		{"base64 url", base64.URLEncoding.EncodeToString(b)},
		{"base64 url raw", base64.RawURLEncoding.EncodeToString(b)},
		{"query escape", url.QueryEscape(secret)},
		{"path escape", url.PathEscape(secret)},
		{"percent lower", strings.ToLower(url.QueryEscape(secret))},
		{"hex", hx},
		{"HEX", strings.ToUpper(hx)},
		{"split LF", secret[:10] + "\n" + secret[10:]},
		{"split CRLF indented", secret[:5] + "\r\n    " + secret[5:20] + "\n" + secret[20:]},
		{"split JSON escape", secret[:12] + `\n` + secret[12:]},
		{"split hex", hx[:16] + "\n" + hx[16:]},
		{"split base64 76", wrap(base64.StdEncoding.EncodeToString([]byte(strings.Repeat(secret, 4))), 20)},
	}
	for _, tt := range tests {
		got := r.String(tt.in)
		if leaks(got) {
			t.Errorf("%s: %q leaks the secret: %q", tt.name, tt.in, got)
		}
		if !strings.Contains(got, Mask) {
			t.Errorf("%s: %q was not masked: %q", tt.name, tt.in, got)
		}
	}
}

// TestRedactorBase64Embedded puts the secret at every offset inside longer data: the
// base64 of the whole must not hold the secret's bytes.
func TestRedactorBase64Embedded(t *testing.T) {
	t.Parallel()
	var r Redactor
	r.Add(secret)
	for off := 0; off < 6; off++ {
		data := strings.Repeat("z", off) + "prefix:" + secret + ":suffix and more"
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding} {
			in := enc.EncodeToString([]byte(data))
			got := r.String(in)
			if !strings.Contains(got, Mask) {
				t.Errorf("offset %d: base64 %q not masked", off, in)
				continue
			}
			// What is left decodes to at most a byte of the secret at each end.
			for _, part := range strings.Split(got, Mask) {
				if dec, err := enc.DecodeString(part[:len(part)/4*4]); err == nil && strings.Contains(string(dec), secret[2:len(secret)-2]) {
					t.Errorf("offset %d: %q still decodes to the secret", off, part)
				}
			}
		}
	}
}

func TestRedactorShortValuesNotEncoded(t *testing.T) {
	t.Parallel()
	var r Redactor
	r.Add("abcd12") // too short for encodings: their fragments would match ordinary text
	if got := r.String(hex.EncodeToString([]byte("abcd12")) + " ab\ncd12"); got != "616263643132 ab\ncd12" {
		t.Errorf("short secret encodings masked: %q", got)
	}
	if got := r.String("key abcd12"); got != "key ***" {
		t.Errorf("short secret not masked: %q", got)
	}
}

func TestRedactorSplitKeepsText(t *testing.T) {
	t.Parallel()
	var r Redactor
	r.Add("0123456789abcdef")
	tests := []struct{ in, want string }{
		{"line one\n  01234567\n  89abcdef end", "line one\n  *** end"},
		{`{"a":"01234\n56789abcdef","b":"keep\nme"}`, `{"a":"***","b":"keep\nme"}`},
		{"no break 0123456789abcdef here", "no break *** here"},
		{"spaces    \t  only 0123 4567", "spaces    \t  only 0123 4567"},
		{"two\n\n01234567\n89abcdef and 0123456789abcdef", "two\n\n*** and ***"},
	}
	for _, tt := range tests {
		if got := r.String(tt.in); got != tt.want {
			t.Errorf("String(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func leaks(s string) bool {
	return strings.Contains(s, secret) || strings.Contains(strings.NewReplacer("\n", "", "\r", "", " ", "", `\n`, "").Replace(s), "0123456789")
}

func wrap(s string, width int) string {
	var b strings.Builder
	for len(s) > width {
		b.WriteString(s[:width] + "\n")
		s = s[width:]
	}
	b.WriteString(s)
	return b.String()
}

func BenchmarkRedactorString(b *testing.B) {
	var r Redactor
	r.Add(secret, "another-secret-value-123", "sk-proj-abcdefghijklmnop")
	text := strings.Repeat("The model answered with a paragraph of text.\n", 200)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		r.String(text)
	}
}

// FuzzRedactorSplit: masking never panics, and no plain copy of the secret survives,
// whatever breaks and escapes surround it.
func FuzzRedactorSplit(f *testing.F) {
	f.Add("x 0123456789abcdef y", 3)
	f.Add("\\n\\r\n \t0123\n4567\\n89abcdef\\", 0)
	f.Add("", 5)
	var r Redactor
	r.Add("0123456789abcdef")
	f.Fuzz(func(t *testing.T, s string, at int) {
		if at < 0 {
			at = -at
		}
		at %= len(s) + 1
		in := s[:at] + "01234567\n  89abcdef" + s[at:]
		got := r.String(in)
		if strings.Contains(got, "0123456789abcdef") {
			t.Errorf("String(%q) = %q keeps the secret", in, got)
		}
	})
}
