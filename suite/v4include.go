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

// includeLineBase encodes the file of a node read from a template in its line: template k
// (1-based, l.includes[k-1]) has lines k*includeLineBase+line, so that the positions copied
// into converted nodes still name the template file in messages (see where).
const includeLineBase = 1 << 24

// includeFile is a template file read once per load.
type includeFile struct {
	abs, display string
	list         *yaml.Node // its assertions; nil when the file is not a valid template
	k            int        // its number in line encoding
}

// where returns the file and line a node line stands for: a template's for lines encoded by
// includeLineBase, else the file being parsed.
func (l *loader) where(line int) (string, int) {
	if k := line / includeLineBase; k > 0 && k <= len(l.includes) {
		return l.includes[k-1].display, line % includeLineBase
	}
	return l.file, line
}

// isInclude reports whether an assertion item is `{include: "..."}` and nothing else.
func isInclude(n *yaml.Node) (*yaml.Node, bool) {
	if n == nil || n.Kind != yaml.MappingNode || len(n.Content) != 2 || n.Content[0].Value != "include" {
		return nil, false
	}
	v := deref(n.Content[1])
	return v, v != nil && v.Kind == yaml.ScalarNode && classify(v) == scalarString
}

// expandIncludes replaces the include items of an assertion list by their templates'
// assertions, looked for in roots; chain holds the templates being expanded. ok is false
// after an error (reported through fail).
func (l *loader) expandIncludes(items []*yaml.Node, roots, chain []string, fail func(*yaml.Node, string, ...any)) ([]*yaml.Node, bool) {
	if !slices.ContainsFunc(items, func(n *yaml.Node) bool { _, ok := isInclude(deref(n)); return ok }) {
		return items, true
	}
	out := make([]*yaml.Node, 0, len(items))
	for _, item := range items {
		name, ok := isInclude(deref(item))
		if !ok {
			out = append(out, item)
			continue
		}
		shown := func(last string) string { // the chain of includes, for messages
			s := make([]string, 0, len(chain)+1)
			for _, c := range chain {
				s = append(s, displayPath(c, l.cwd))
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
		if slices.Contains(chain, t.abs) {
			fail(name, "assertion templates include each other in a cycle: %s", shown(displayPath(t.abs, l.cwd)))
			return nil, false
		}
		dir := filepath.Dir(t.abs)
		nested := append([]string{dir}, slices.DeleteFunc(slices.Clone(roots), func(r string) bool { return r == dir })...)
		sub, ok := l.expandIncludes(t.list.Content, nested, append(slices.Clone(chain), t.abs), fail)
		if !ok {
			return nil, false
		}
		out = append(out, sub...)
	}
	return out, true
}

// includeTemplate finds and reads the template an include names, once per load; nil after an
// error (reported).
func (l *loader) includeTemplate(name *yaml.Node, roots []string, fail func(*yaml.Node, string, ...any)) *includeFile {
	ref := name.Value
	cands := []string{ref}
	if !strings.HasPrefix(ref, ".") && !strings.ContainsAny(ref, `/\`) {
		cands = []string{filepath.Join(".agentv", "templates", ref+".yaml"), filepath.Join(".agentv", "templates", ref+".yml")}
	}
	var tried []string
	for _, c := range cands {
		r := findFile(roots, c, false, l.cwd)
		tried = append(tried, r.tried...)
		if r.abs == "" {
			continue
		}
		if i := slices.IndexFunc(l.includes, func(t *includeFile) bool { return t.abs == r.abs }); i >= 0 {
			t := l.includes[i]
			if t.list == nil {
				fail(name, "assertion template %s is not valid (see its error)", t.display)
				return nil
			}
			return t
		}
		return l.readInclude(name, r.abs, fail)
	}
	hint := ""
	if len(cands) == 2 && (strings.HasSuffix(ref, ".yaml") || strings.HasSuffix(ref, ".yml")) {
		// As in 4.42.4, a bare name is a template name, even one that looks like a file name.
		hint = fmt.Sprintf("; a name without \"/\" or a leading \".\" names .agentv/templates/NAME.yaml: write \"./%s\" for that file", ref)
	}
	fail(name, "assertion template %q not found (looked for %s)%s", ref, l.triedList(&fileRef{tried: tried}), hint)
	return nil
}

// readInclude parses a template file: a mapping with an `assertions` list.
func (l *loader) readInclude(at *yaml.Node, abs string, fail func(*yaml.Node, string, ...any)) *includeFile {
	t := &includeFile{abs: abs, display: displayPath(abs, l.cwd), k: len(l.includes) + 1}
	l.includes = append(l.includes, t)
	src, err := safefile.ReadFile(abs, safefile.LimitContent)
	if err != nil {
		fail(at, "could not read assertion template %s: %s", t.display, errText(err))
		return nil
	}
	restore := l.inFile(abs)
	l.src = src
	doc := l.parseYAML(src)
	restore()
	if doc == nil {
		fail(at, "assertion template %s is not valid YAML (see its error)", t.display)
		return nil
	}
	encodeLines(doc, t.k*includeLineBase, map[*yaml.Node]bool{})
	l.interpolateEnv(doc, map[*yaml.Node]bool{})
	root := doc
	if root.Kind == yaml.DocumentNode && len(root.Content) > 0 {
		root = root.Content[0]
	}
	var list *yaml.Node
	if root = deref(root); root != nil && root.Kind == yaml.MappingNode {
		list = deref(valueOf(root, "assertions"))
		for _, e := range entries(root) {
			if e.key != "assertions" && e.key != "name" && e.key != "description" && e.key != "$schema" {
				l.unknownKey(e, "in an assertion template", "", []string{"assertions", "name", "description"})
			}
		}
	}
	if list == nil || list.Kind != yaml.SequenceNode {
		fail(at, "assertion template %s must be a mapping with an %q list", t.display, "assertions")
		return nil
	}
	t.list = list
	return t
}

// encodeLines adds base to the line of every node below n (see includeLineBase).
func encodeLines(n *yaml.Node, base int, seen map[*yaml.Node]bool) {
	if n == nil || seen[n] {
		return
	}
	seen[n] = true
	n.Line += base
	for _, c := range n.Content {
		encodeLines(c, base, seen)
	}
}
