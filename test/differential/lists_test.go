package differential

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v4"
)

// Entry lists one expected difference. Test and Field are patterns where only * is special (it
// matches any text); a difference is expected when an entry matches both.
type Entry struct {
	Test  string `yaml:"test"`
	Field string `yaml:"field"`
	// Known differences: the docs/agentv-4.md anchor that explains it to users, and the
	// 4.42.4 source line (path:line at tag v4.42.4) that behaves otherwise.
	Doc    string `yaml:"doc"`
	Source string `yaml:"source"`
	// Pending differences: the fix they wait for (the entry goes once it is merged).
	WaitsFor string `yaml:"waits_for"`
	Why      string `yaml:"why"`

	line int
	re   *regexp.Regexp
}

// Where names the entry in messages.
func (e *Entry) Where(file string) string {
	return fmt.Sprintf("%s:%d (test %s, field %s)", file, e.line, e.Test, e.Field)
}

func (e *Entry) matches(d Difference) bool { return e.re.MatchString(d.Test + "\x00" + d.Field) }

// LoadList reads a list of entries. kind "known" requires doc and source on every entry;
// "pending" requires waits_for. anchors are the valid docs/agentv-4.md anchors.
func LoadList(path, kind string, anchors map[string]bool) ([]*Entry, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(doc.Content) == 0 {
		return nil, nil // an empty list
	}
	root := doc.Content[0]
	if root.Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("%s:%d: want a list of entries", path, root.Line)
	}
	var entries []*Entry
	var problems []error
	for _, n := range root.Content {
		var e Entry
		if err := n.Decode(&e); err != nil {
			problems = append(problems, fmt.Errorf("%s:%d: %w", path, n.Line, err))
			continue
		}
		e.line = n.Line
		bad := func(format string, args ...any) {
			problems = append(problems, fmt.Errorf("%s:%d: "+format, append([]any{path, n.Line}, args...)...))
		}
		if e.Test == "" || e.Field == "" {
			bad("an entry needs test and field")
			continue
		}
		switch kind {
		case "known":
			anchor, ok := strings.CutPrefix(e.Doc, "docs/agentv-4.md#")
			if !ok || !anchors[anchor] {
				bad("doc %q is not an anchor of docs/agentv-4.md (docs/agentv-4.md#...)", e.Doc)
			}
			if e.Source == "" {
				bad("source: name the 4.42.4 line (packages/...:N) that behaves otherwise")
			}
		case "pending":
			if e.WaitsFor == "" {
				bad("waits_for: name the fix this difference waits for")
			}
		}
		e.re = regexp.MustCompile("^" + glob(e.Test) + "\x00" + glob(e.Field) + "$")
		entries = append(entries, &e)
	}
	return entries, errors.Join(problems...)
}

func glob(p string) string {
	parts := strings.Split(p, "*")
	for i := range parts {
		parts[i] = regexp.QuoteMeta(parts[i])
	}
	return strings.Join(parts, ".*")
}

// Classified is the differences sorted into the lists that expect them.
type Classified struct {
	Known, Pending, Unexpected []Difference
	// PendingBy groups Pending by the fix each waits for.
	PendingBy map[string][]Difference
	// Unused are entries that matched no difference: fixed or stale, to be removed.
	UnusedKnown, UnusedPending []*Entry
}

// Classify sorts diffs: a difference the known list expects is known, else one the pending
// list expects is pending, else it is unexpected.
func Classify(diffs []Difference, known, pending []*Entry) Classified {
	c := Classified{PendingBy: map[string][]Difference{}}
	used := map[*Entry]bool{}
	first := func(list []*Entry, d Difference) *Entry {
		for _, e := range list {
			if e.matches(d) {
				return e
			}
		}
		return nil
	}
	for _, d := range diffs {
		if e := first(known, d); e != nil {
			used[e] = true
			c.Known = append(c.Known, d)
		} else if e := first(pending, d); e != nil {
			used[e] = true
			c.Pending = append(c.Pending, d)
			c.PendingBy[e.WaitsFor] = append(c.PendingBy[e.WaitsFor], d)
		} else {
			c.Unexpected = append(c.Unexpected, d)
		}
	}
	for _, e := range known {
		if !used[e] {
			c.UnusedKnown = append(c.UnusedKnown, e)
		}
	}
	for _, e := range pending {
		if !used[e] {
			c.UnusedPending = append(c.UnusedPending, e)
		}
	}
	return c
}

var headingRE = regexp.MustCompile(`(?m)^#{1,6} (.+)$`)

// Anchors returns the anchors GitHub gives the headings of a Markdown file.
func Anchors(path string) (map[string]bool, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, m := range headingRE.FindAllStringSubmatch(string(b), -1) {
		out[Slug(m[1])] = true
	}
	return out, nil
}

// Slug is GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens.
func Slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ' || r == '-':
			b.WriteRune('-')
		case r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127:
			b.WriteRune(r)
		}
	}
	return b.String()
}
