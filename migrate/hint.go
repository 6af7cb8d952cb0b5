package migrate

import (
	"fmt"
	"strings"
)

// Hint is the line `agentv validate` prints for a file written for an older AgentV (dialect
// "2.5" or "4", as package suite names them); "" for any other dialect.
func Hint(path, dialect string) string {
	var name string
	switch dialect {
	case "2.5":
		name = "AgentV 2.5"
	case "4":
		name = "AgentV 4.x"
	default:
		return ""
	}
	return fmt.Sprintf("%s: written for %s, which this action still runs; to move it to AgentV 5.x, migrate with: agentv migrate %s", path, name, shellQuote(path))
}

// shellQuote quotes a path for a shell when it needs it.
func shellQuote(s string) string {
	safe := s != ""
	for _, r := range s {
		if (r < 'a' || r > 'z') && (r < 'A' || r > 'Z') && (r < '0' || r > '9') && !strings.ContainsRune("/.-_+:@,=", r) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	out := "'"
	for _, r := range s {
		if r == '\'' {
			out += `'\''`
		} else {
			out += string(r)
		}
	}
	return out + "'"
}
