package evaluators

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/agentv/action/suite"
)

// v4ToolKeyFields are the input fields that best describe a call of these tools, first match
// first; other tools show their first short string input.
var v4ToolKeyFields = map[string][]string{
	"Skill": {"skill"}, "Read": {"file_path"}, "Write": {"file_path"}, "Edit": {"file_path"},
	"Bash": {"command"}, "Grep": {"pattern"}, "Glob": {"pattern"},
}

// v4ToolDetailMax is the longest detail shown for a call, in characters.
const v4ToolDetailMax = 120

// v4ToolCalls summarises the tool calls of the target's output for 4.x grader prompts, one
// "- tool: detail" line per call; "" when there are none.
func v4ToolCalls(msgs []suite.Message) string {
	var lines []string
	for i := range msgs {
		if len(msgs[i].ToolCalls) == 0 {
			continue
		}
		var calls []struct {
			Tool  *string         `json:"tool"`
			Input json.RawMessage `json:"input"`
		}
		if json.Unmarshal(msgs[i].ToolCalls, &calls) != nil {
			continue
		}
		for _, c := range calls {
			name := "unknown"
			if c.Tool != nil {
				name = *c.Tool
			}
			line := "- " + name
			if d := v4ToolDetail(name, c.Input); d != "" {
				line += ": " + d
			}
			lines = append(lines, line)
		}
	}
	return strings.Join(lines, "\n")
}

// v4ToolDetail picks the call's key input field, else its first string field of at most
// v4ToolDetailMax characters, in the order the input lists them.
func v4ToolDetail(tool string, input json.RawMessage) string {
	fields := orderedStrings(input)
	for _, k := range v4ToolKeyFields[tool] {
		for _, f := range fields {
			if f.key != k || f.val == "" {
				continue
			}
			if r := []rune(f.val); len(r) > v4ToolDetailMax {
				return string(r[:v4ToolDetailMax]) + "…"
			}
			return f.val
		}
	}
	for _, f := range fields {
		if n := len([]rune(f.val)); n > 0 && n <= v4ToolDetailMax {
			return f.val
		}
	}
	return ""
}

type stringField struct{ key, val string }

// orderedStrings returns the string-valued fields of a JSON object in source order (the last
// of a repeated key wins its first place); nil for anything else.
func orderedStrings(raw json.RawMessage) []stringField {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var out []stringField
	at := map[string]int{}
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return out
		}
		key, _ := kt.(string)
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			return out
		}
		var s string
		if json.Unmarshal(v, &s) != nil || !bytes.HasPrefix(bytes.TrimSpace(v), []byte(`"`)) {
			s = "" // not a string
		}
		if i, seen := at[key]; seen {
			out[i].val = s
			continue
		}
		at[key] = len(out)
		out = append(out, stringField{key, s})
	}
	return out
}
