package report

import (
	"bufio"
	"unicode/utf8"
)

// writeTestcase writes a file suite's testcase exactly as encoding/xml would with the
// junitTestcase model (indent "  ", depth 2), without its reflection: a large run writes one
// per case. TestJUnitTestcaseWriterMatchesEncoder checks the bytes against the encoder.
func writeTestcase(w *bufio.Writer, tc *junitTestcase) {
	w.WriteString("\n    <testcase name=\"")
	xmlEscape(w, tc.Name, true)
	w.WriteString("\" classname=\"")
	xmlEscape(w, tc.Classname, true)
	w.WriteString("\" time=\"")
	xmlEscape(w, tc.Time, true)
	w.WriteString("\">")
	children := false
	for _, c := range [...]struct {
		name string
		r    *junitResult
	}{{"failure", tc.Failure}, {"error", tc.Error}, {"skipped", tc.Skipped}} {
		if c.r == nil {
			continue
		}
		children = true
		w.WriteString("\n      <")
		w.WriteString(c.name)
		w.WriteString(" message=\"")
		xmlEscape(w, c.r.Message, true)
		if c.r.Type != "" {
			w.WriteString("\" type=\"")
			xmlEscape(w, c.r.Type, true)
		}
		w.WriteString("\">")
		xmlEscape(w, string(c.r.Text), false)
		w.WriteString("</")
		w.WriteString(c.name)
		w.WriteByte('>')
	}
	if tc.SystemOut != "" {
		children = true
		w.WriteString("\n      <system-out>")
		xmlEscape(w, string(tc.SystemOut), false)
		w.WriteString("</system-out>")
	}
	if children {
		w.WriteString("\n    </testcase>")
	} else {
		w.WriteString("</testcase>")
	}
}

// xmlEscape is encoding/xml's escaping: attribute values (attr) also escape newlines;
// characters XML cannot hold become U+FFFD.
func xmlEscape(w *bufio.Writer, s string, attr bool) {
	last := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < utf8.RuneSelf && c != '"' && c != '\'' && c != '&' && c != '<' && c != '>' {
			i++
			continue
		}
		r, width := utf8.DecodeRuneInString(s[i:])
		i += width
		var esc string
		switch r {
		case '"':
			esc = "&#34;"
		case '\'':
			esc = "&#39;"
		case '&':
			esc = "&amp;"
		case '<':
			esc = "&lt;"
		case '>':
			esc = "&gt;"
		case '\t':
			esc = "&#x9;"
		case '\n':
			if !attr {
				continue
			}
			esc = "&#xA;"
		case '\r':
			esc = "&#xD;"
		default:
			if !inXMLRange(r) || (r == utf8.RuneError && width == 1) {
				esc = "\uFFFD"
				break
			}
			continue
		}
		w.WriteString(s[last : i-width])
		w.WriteString(esc)
		last = i
	}
	w.WriteString(s[last:])
}

func inXMLRange(r rune) bool {
	return r == 0x09 || r == 0x0A || r == 0x0D || r >= 0x20 && r <= 0xD7FF ||
		r >= 0xE000 && r <= 0xFFFD || r >= 0x10000 && r <= 0x10FFFF
}
