package report

import (
	"fmt"
	"net/url"
	"path"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agentv/action/internal/logtext"
)

// zwj is a zero-width joiner. GitHub links @mentions and #123 references in the rendered
// HTML's text (so entity escapes do not stop it); a joiner after the sigil breaks the pattern
// without changing what a reader sees (elastic/kibana#174124, dependabot-core#427).
const zwj = "\u200d"

// mdInline escapes untrusted text for one line of GitHub Markdown (a table cell, a list item,
// the inside of <summary>): no raw `<` but <br> for newlines, no `|`, backtick, `[`, `]`, `*`,
// `~`, `$` or backslash (numeric character references work in Markdown and raw HTML alike), no
// @mention or #123 reference, no control characters. Quotes stay: it never goes into an
// attribute.
func mdInline(s string) string {
	s = strings.TrimSpace(logtext.Block(s))
	var b strings.Builder
	b.Grow(len(s) + len(s)/8)
	prev := rune(-1)
	for i, r := range s {
		switch r {
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '|', '`', '\\', '*', '[', ']', '~', '$':
			// `|` splits table cells even inside code spans; backticks open code spans that
			// would swallow our own markup; `$` opens GitHub math; the rest are emphasis, links
			// and escapes.
			fmt.Fprintf(&b, "&#%d;", r)
		case '_':
			// Intraword underscores cannot open emphasis (GFM), so snake_case ids stay readable.
			next, _ := utf8.DecodeRuneInString(s[i+1:])
			if isWordRune(prev) && isWordRune(next) {
				b.WriteByte('_')
			} else {
				b.WriteString("&#95;")
			}
		case '@', '#':
			b.WriteRune(r)
			b.WriteString(zwj)
		case '\n':
			b.WriteString("<br>")
		case '\t':
			b.WriteByte(' ')
		default:
			// Escaped text never starts a Markdown line (it always follows our own marks), so
			// list and heading markers such as "- " or "1." stay literal without escaping.
			b.WriteRune(r)
		}
		prev = r
	}
	return b.String()
}

func isWordRune(r rune) bool {
	return r >= 0 && r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r))
}

// mdLink returns a Markdown link with escaped text, or the escaped text alone when href is "".
func mdLink(text, href string) string {
	if href == "" {
		return mdInline(text)
	}
	return "[" + mdInline(text) + "](" + href + ")"
}

// sourceURL links to a line of an eval file at the head SHA, or is "" when a part is missing or
// the file is not workspace-relative (an absolute or ../ path has no page on GitHub).
func (l Links) sourceURL(file string, line int) string {
	server := safeURL(strings.TrimRight(l.ServerURL, "/"))
	if server == "" || !validRepo(l.Repo) || l.SHA == "" || file == "" {
		return ""
	}
	file = strings.ReplaceAll(file, "\\", "/")
	if strings.HasPrefix(file, "/") || strings.Contains(file, ":") {
		return ""
	}
	segs := strings.Split(path.Clean(file), "/")
	for i, seg := range segs {
		if seg == ".." {
			return ""
		}
		segs[i] = escapeSegment(seg)
	}
	u := server + "/" + l.Repo + "/blob/" + escapeSegment(l.SHA) + "/" + strings.Join(segs, "/")
	if line > 0 {
		u += fmt.Sprintf("#L%d", line)
	}
	return u
}

// runURL is the workflow run link, or "" when unset or unsafe.
func (l Links) runURL() string { return safeURL(l.RunURL) }

// escapeSegment percent-encodes one path segment for a Markdown link destination: besides what
// url.PathEscape encodes, `&` (entity start), `(` and `)` are encoded.
func escapeSegment(s string) string { return segmentReplacer.Replace(url.PathEscape(s)) }

var segmentReplacer = strings.NewReplacer("&", "%26", "(", "%28", ")", "%29")

// safeURL returns u when it is an absolute http(s) URL that cannot break out of a Markdown
// link destination, else "".
func safeURL(u string) string {
	p, err := url.Parse(u)
	if err != nil || (p.Scheme != "https" && p.Scheme != "http") || p.Host == "" {
		return ""
	}
	if strings.ContainsAny(u, " \t\n\r()<>\"'`\\|") {
		return ""
	}
	return u
}

// validRepo matches owner/name of ASCII letters, digits, '-', '_' and '.'.
var validRepo = regexp.MustCompile(`^[A-Za-z0-9._-]+/[A-Za-z0-9._-]+$`).MatchString

// mdWrapped escapes multi-line text for one Markdown line that wraps: mdInline, with each
// line's indentation as non-breaking spaces (a tab as four) and a first character that could
// open a block ("-", "+", "1.") as a character reference.
func mdWrapped(s string) string {
	lines := strings.Split(logtext.Block(s), "\n")
	var b strings.Builder
	for i, line := range lines {
		if i > 0 {
			b.WriteString("<br>")
		}
		rest := strings.TrimLeft(line, " \t")
		for _, r := range line[:len(line)-len(rest)] {
			if r == '\t' {
				b.WriteString("&nbsp;&nbsp;&nbsp;&nbsp;")
			} else {
				b.WriteString("&nbsp;")
			}
		}
		esc := mdInline(rest)
		if i == 0 && esc != "" && (esc[0] == '-' || esc[0] == '+' || esc[0] == '=' || (esc[0] >= '0' && esc[0] <= '9')) {
			fmt.Fprintf(&b, "&#%d;", esc[0])
			esc = esc[1:]
		}
		b.WriteString(esc)
	}
	return b.String()
}
