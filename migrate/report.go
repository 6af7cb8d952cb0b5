package migrate

import (
	"fmt"
	"slices"
	"strings"
)

// Report is what `agentv migrate` prints on stderr for a migrated file: one line per kind
// of note, at its first line (the others listed), then a summary line.
func (r *Result) Report(path string) string {
	type group struct {
		first Note
		also  []int
	}
	var groups []*group
	byText := map[string]*group{}
	notes := slices.Clone(r.Notes)
	slices.SortStableFunc(notes, func(a, b Note) int { return a.Line - b.Line })
	for _, n := range notes {
		key := fmt.Sprint(n.Manual, n.Text)
		if g := byText[key]; g != nil {
			if g.first.Line != n.Line && !slices.Contains(g.also, n.Line) {
				g.also = append(g.also, n.Line)
			}
			continue
		}
		g := &group{first: n}
		byText[key] = g
		groups = append(groups, g)
	}
	var b strings.Builder
	changes, manual := 0, 0
	for _, g := range groups {
		prefix := ""
		if g.first.Manual {
			prefix = "needs a human: "
			manual++
		} else {
			changes++
		}
		also := ""
		if len(g.also) > 0 {
			lines := make([]string, len(g.also))
			for i, l := range g.also {
				lines[i] = fmt.Sprint(l)
			}
			also = " (also line" + plural(len(lines)) + " " + strings.Join(lines, ", ") + ")"
		}
		fmt.Fprintf(&b, "%s:%d: %s%s%s\n", path, g.first.Line, prefix, g.first.Text, also)
	}
	from := map[string]string{"2.5": "AgentV 2.5", "4": "AgentV 4.x", "5": "AgentV 5.x"}[r.Dialect]
	what := "eval file"
	switch r.Kind {
	case KindTargets:
		what, from = "targets file", "targets file"
	case KindCases:
		what, from = "case file", "AgentV 4.x case file"
	}
	switch {
	case !r.Changed && manual == 0:
		fmt.Fprintf(&b, "%s: already written for AgentV 5.x: nothing to change\n", path)
	case !r.Changed:
		fmt.Fprintf(&b, "%s: nothing rewritten; %d thing%s need%s a human (above)\n", path, manual, plural(manual), verbS(manual))
	default:
		fmt.Fprintf(&b, "%s: %s → AgentV 5.x %s: %d kind%s of change", path, from, what, changes, plural(changes))
		if manual > 0 {
			fmt.Fprintf(&b, ", %d thing%s need%s a human (marked above)", manual, plural(manual), verbS(manual))
		}
		b.WriteString("\n")
	}
	return b.String()
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func verbS(n int) string {
	if n == 1 {
		return "s"
	}
	return ""
}
