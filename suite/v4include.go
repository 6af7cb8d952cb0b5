package suite

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v4"

	"github.com/agentv/action/internal/safefile"
)

// Assertion templates (AgentV 4.x): an assertion list item `- include: NAME` stands for the
// assertions of a template file, as 4.42.4 builds them (loaders/grader-parser.ts,
// expandGraderEntries):
//
//   - NAME without a leading "." and without "/" or "\" is .agentv/templates/NAME.yaml (then
//     .yml), looked for from the eval file's folder up to the repository root, then the working
//     folder; anything else is a path looked for in the same places;
//   - the file is a mapping whose `assertions` list replaces the item (`${{ VAR }}` read, a
//     test's vars not: 4.42.4 substitutes vars in no assertion);
//   - a template may include others, looked for first in its own folder, at most 3 deep and
//     without cycles.

// maxIncludeDepth is how deep templates may include templates, as in 4.42.4.
const maxIncludeDepth = 3

// IncludeLineBase encodes the file of a node read from a template in its line: template k
// (1-based, l.includes[k-1]) has lines k*includeLineBase+line, so that the positions copied
// into converted nodes still name the template file in messages (see where).
const IncludeLineBase = 1 << 24

// IncludeFile is a template file read once per load.
type IncludeFile struct {
	Abs, Display string
	list         *yaml.Node // its assertions; nil when the file is not a valid template
	Num          int        // its number in line encoding
}

// Where returns the file and line a node line stands for: a template's for lines encoded by
// includeLineBase, else the file being parsed.
func (l *Reader) Where(line int) (string, int) {
	if k := line / IncludeLineBase; k > 0 && k <= len(l.Includes) {
		return l.Includes[k-1].Display, line % IncludeLineBase
	}
	return l.file, line
}

// isInclude reports whether an assertion item is `{include: "..."}` and nothing else.
func isInclude(n *yaml.Node) (*yaml.Node, bool) {
	if n == nil || n.Kind != yaml.MappingNode || len(n.Content) != 2 || n.Content[0].Value != "include" {
		return nil, false
	}
	v := Deref(n.Content[1])
	return v, v != nil && v.Kind == yaml.ScalarNode && Classify(v) == ScalarString
}

// expandIncludes replaces the include items of an assertion list by their templates'
// assertions, looked for in roots; chain holds the templates being expanded. ok is false
// after an error (reported through fail).
func (l *Reader) expandIncludes(items []*yaml.Node, roots, chain []string, fail func(*yaml.Node, string, ...any)) ([]*yaml.Node, bool) {
	if !slices.ContainsFunc(items, func(n *yaml.Node) bool { _, ok := isInclude(Deref(n)); return ok }) {
		return items, true
	}
	out := make([]*yaml.Node, 0, len(items))
	for _, item := range items {
		name, ok := isInclude(Deref(item))
		if !ok {
			out = append(out, item)
			continue
		}
		shown := func(last string) string { // the chain of includes, for messages
			s := make([]string, 0, len(chain)+1)
			for _, c := range chain {
				s = append(s, DisplayPath(c, l.Cwd))
			}
			return strings.Join(append(s, last), " -> ")
		}
		if len(chain)+1 > maxIncludeDepth {
			fail(name, "assertion templates include each other more than %d deep: %s", maxIncludeDepth, shown(name.Value))
			return nil, false
		}
		t := l.includeTemplate(name, roots, fail)
		if t == nil {
			return nil, false
		}
		if slices.Contains(chain, t.Abs) {
			fail(name, "assertion templates include each other in a cycle: %s", shown(DisplayPath(t.Abs, l.Cwd)))
			return nil, false
		}
		dir := filepath.Dir(t.Abs)
		nested := append([]string{dir}, slices.DeleteFunc(slices.Clone(roots), func(r string) bool { return r == dir })...)
		sub, ok := l.expandIncludes(t.list.Content, nested, append(slices.Clone(chain), t.Abs), fail)
		if !ok {
			return nil, false
		}
		out = append(out, sub...)
	}
	return out, true
}

// includeTemplate finds and reads the template an include names, once per load; nil after an
// error (reported).
func (l *Reader) includeTemplate(name *yaml.Node, roots []string, fail func(*yaml.Node, string, ...any)) *IncludeFile {
	ref := name.Value
	cands := []string{ref}
	if !strings.HasPrefix(ref, ".") && !strings.ContainsAny(ref, `/\`) {
		cands = []string{filepath.Join(".agentv", "templates", ref+".yaml"), filepath.Join(".agentv", "templates", ref+".yml")}
	}
	var tried []string
	for _, c := range cands {
		r := findFile(roots, c, false, l.Cwd)
		tried = append(tried, r.tried...)
		if r.Abs == "" {
			continue
		}
		if i := slices.IndexFunc(l.Includes, func(t *IncludeFile) bool { return t.Abs == r.Abs }); i >= 0 {
			t := l.Includes[i]
			if t.list == nil {
				fail(name, "assertion template %s is not valid (see its error)", t.Display)
				return nil
			}
			return t
		}
		return l.readInclude(name, r.Abs, fail)
	}
	hint := ""
	if len(cands) == 2 && (strings.HasSuffix(ref, ".yaml") || strings.HasSuffix(ref, ".yml")) {
		// As in 4.42.4, a bare name is a template name, even one that looks like a file name.
		hint = fmt.Sprintf("; a name without \"/\" or a leading \".\" names .agentv/templates/NAME.yaml: write \"./%s\" for that file", ref)
	}
	fail(name, "assertion template %q not found (looked for %s)%s", ref, l.TriedList(&FileRef{tried: tried}), hint)
	return nil
}

// readInclude parses a template file: a mapping with an `assertions` list.
func (l *Reader) readInclude(at *yaml.Node, abs string, fail func(*yaml.Node, string, ...any)) *IncludeFile {
	t := &IncludeFile{Abs: abs, Display: DisplayPath(abs, l.Cwd), Num: len(l.Includes) + 1}
	l.Includes = append(l.Includes, t)
	src, err := safefile.ReadFile(abs, safefile.LimitContent)
	if err != nil {
		fail(at, "could not read assertion template %s: %s", t.Display, ErrText(err))
		return nil
	}
	restore := l.InFile(abs)
	l.Src = src
	doc := l.ParseYAML(src)
	restore()
	if doc == nil {
		fail(at, "assertion template %s is not valid YAML (see its error)", t.Display)
		return nil
	}
	EncodeLines(doc, t.Num*IncludeLineBase, map[*yaml.Node]bool{})
	l.interpolateEnv(doc, map[*yaml.Node]bool{})
	root := doc
	if root.Kind == yaml.DocumentNode && len(root.Content) > 0 {
		root = root.Content[0]
	}
	var list *yaml.Node
	if root = Deref(root); root != nil && root.Kind == yaml.MappingNode {
		list = Deref(ValueOf(root, "assertions"))
		for _, e := range MapEntries(root) {
			if e.Key != "assertions" && e.Key != "name" && e.Key != "description" && e.Key != "$schema" {
				l.UnknownKey(e, "in an assertion template", "", []string{"assertions", "name", "description"})
			}
		}
	}
	if list == nil || list.Kind != yaml.SequenceNode {
		fail(at, "assertion template %s must be a mapping with an %q list", t.Display, "assertions")
		return nil
	}
	t.list = list
	return t
}

// EncodeLines adds base to the line of every node below n (see includeLineBase).
func EncodeLines(n *yaml.Node, base int, seen map[*yaml.Node]bool) {
	if n == nil || seen[n] {
		return
	}
	seen[n] = true
	n.Line += base
	for _, c := range n.Content {
		EncodeLines(c, base, seen)
	}
}
