package evaluators

import (
	"context"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agentv/action/suite"
)

// contains-json (promptfoo; new in the 5.x front-end, which reads it for promptfoo configs
// only) passes when the answer holds a JSON object somewhere in its text, and, with `value`
// (a JSON schema), when one of the objects found conforms to it (promptfoo 0.123.1: json.ts,
// handleContainsJson; util/json.ts, extractJsonObjects).
func init() {
	register("contains-json", nil, []string{"value"}, parseContainsJSON, containsJSON)
}

func parseContainsJSON(spec *suite.EvaluatorSpec) (*jsonSchema, error) {
	s, err := settingsOf(spec)
	if err != nil {
		return nil, err
	}
	v, _ := s.raw("value")
	return compileValueSchema(v)
}

func containsJSON(_ context.Context, r *caseRun, _ *suite.EvaluatorSpec, schema *jsonSchema) verdict {
	objects := extractJSONObjects(r.in.Candidate)
	if len(objects) == 0 {
		return assertion(false, "", "Output does not contain valid JSON")
	}
	if schema == nil {
		return assertion(true, "Output contains valid JSON", "")
	}
	var why error
	for _, o := range objects {
		if why = schema.validate(o); why == nil {
			return assertion(true, "Output contains JSON conforming to the provided schema", "")
		}
	}
	return assertion(false, "", "JSON does not conform to the provided schema: "+why.Error())
}

// maxJSONObject is how far past a `{` promptfoo looks for the end of its object.
const maxJSONObject = 100000

// extractJSONObjects finds the JSON objects in s as promptfoo does: from each `{`, the text up
// to where the braces balance (braces inside strings counted too), or the end of s with the
// missing `}` added, is read as YAML after its // comments are made # ones; the first such
// text that reads as a mapping is an object and the search goes on after it. Only objects are
// found: a top-level array is not.
func extractJSONObjects(s string) []any {
	var out []any
	for i := 0; i < len(s); i++ {
		if s[i] != '{' {
			continue
		}
		opened, closed := 1, 0
		limit := min(i+maxJSONObject, len(s))
		for j := i + 1; j < limit && opened > closed; {
			switch s[j] {
			case '{':
				opened++
			case '}':
				closed++
			}
			j++
			if opened != closed && j != len(s) && j != i+maxJSONObject {
				continue
			}
			text := s[i:j] + strings.Repeat("}", max(0, opened-closed))
			if v, err := yamlValue(slashCommentsToHash(text)); err == nil {
				if _, ok := v.(map[string]any); ok {
					out = append(out, v)
					i = j - 1
					break
				}
			}
			if opened == closed {
				break
			}
		}
	}
	return out
}

// slashCommentsToHash turns // comments into # ones, line by line, outside quotes and not in
// a token holding :// (a URL), as promptfoo's convertSlashCommentsToHash does: 2n slashes
// become n hashes.
func slashCommentsToHash(s string) string {
	if !strings.Contains(s, "//") {
		return s
	}
	lines := strings.Split(s, "\n")
	for n, line := range lines {
		lines[n] = lineSlashComment(line)
	}
	return strings.Join(lines, "\n")
}

func lineSlashComment(line string) string {
	const (
		normal = iota
		single
		double
	)
	state := normal
	isLetter := func(at int) bool {
		if at < 0 || at >= len(line) {
			return at >= len(line) // JavaScript tests the text "undefined" past the end
		}
		c := line[at]
		return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
	}
	var b strings.Builder
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch state {
		case normal:
			switch {
			case c == '\'' && (i <= 0 || !isLetter(i-1)):
				state = single
			case c == '"':
				state = double
			case c == '/' && i+1 < len(line) && line[i+1] == '/':
				start := 0
				for j := i; j > 0; {
					r, size := utf8.DecodeLastRuneInString(line[:j])
					j -= size
					if unicode.IsSpace(r) || r == '\uFEFF' {
						start = j + size
						break
					}
				}
				if strings.Contains(line[start:i+2], "://") {
					break
				}
				n := 2
				for i+n < len(line) && line[i+n] == '/' {
					n++
				}
				return b.String() + strings.Repeat("#", n/2) + line[i+n:]
			}
		case single:
			if c == '\'' && !escapedQuote(line, i) && !isLetter(i+1) {
				state = normal
			}
		case double:
			if c == '"' && !escapedQuote(line, i) {
				state = normal
			}
		}
		b.WriteByte(c)
	}
	return b.String()
}

// escapedQuote reports whether the quote at i follows an odd number of backslashes.
func escapedQuote(line string, i int) bool {
	n := 0
	for j := i - 1; j >= 0 && line[j] == '\\'; j-- {
		n++
	}
	return n%2 == 1
}
