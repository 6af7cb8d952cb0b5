package suite

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strings"

	yaml "go.yaml.in/yaml/v4"

	"github.com/agentv/action/internal/safefile"
)

// AgentV 5.x templates are Nunjucks (interpolation.ts at v5.3.1-next.1). This front-end
// renders the part eval files use: `{{ name }}`, `{{ a.b }}`, `{{ vars.name }}` and, at load,
// `{{ env.NAME }}`; any other tag is an error rather than text sent as written.
var (
	v5EnvRef     = regexp.MustCompile(`\{\{\s*env\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}`)
	v5AnyEnvRef  = regexp.MustCompile(`\{\{\s*env\.`)
	v5WholeEnv   = regexp.MustCompile(`^\s*\{\{\s*env\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}\s*$`)
	v5VarRef     = regexp.MustCompile(`\{\{\s*([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\s*\}\}`)
	v5WholeVar   = regexp.MustCompile(`^\s*\{\{\s*([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\s*\}\}\s*$`)
	v5OtherTag   = regexp.MustCompile(`\{%|\{#|\{\{`)
	v5PromptSafe = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)
)

// v5Env replaces `{{ env.NAME }}` in every scalar below n, in place, as 5.x does when it
// loads a file (interpolateEnv): a value that is exactly one reference becomes a boolean or
// number when it reads as one; an unset variable renders empty (with a warning). A string
// holding `${{` is left as written, as 5.x leaves it.
func (l *loader) v5Env(n *yaml.Node, seen map[*yaml.Node]bool) {
	if n == nil {
		return
	}
	if n.Anchor != "" {
		if seen[n] {
			return
		}
		seen[n] = true
	}
	switch n.Kind {
	case yaml.DocumentNode, yaml.SequenceNode:
		for _, c := range n.Content {
			l.v5Env(c, seen)
		}
	case yaml.MappingNode:
		for i := 1; i < len(n.Content); i += 2 {
			l.v5Env(n.Content[i], seen)
		}
	case yaml.AliasNode:
		l.v5Env(n.Alias, seen)
	case yaml.ScalarNode:
		if !v5AnyEnvRef.MatchString(n.Value) || strings.Contains(n.Value, "${{") {
			return
		}
		lookup := func(name string) string {
			v, ok := l.env(name)
			if !ok {
				l.warnf(n, KindConfig, "", "environment variable %s is not set; {{ env.%s }} becomes empty", name, name)
				return ""
			}
			if strings.TrimSpace(v) != "" && l.opts.Secret != nil && !typedValue(v) {
				l.opts.Secret(v)
			}
			return v
		}
		whole := v5WholeEnv.FindStringSubmatch(n.Value)
		out := v5EnvRef.ReplaceAllStringFunc(n.Value, func(ref string) string {
			return lookup(v5EnvRef.FindStringSubmatch(ref)[1])
		})
		if v5AnyEnvRef.MatchString(out) {
			l.errorf(n, KindTemplate, "", "only {{ env.NAME }} is supported in an environment reference, got %q", n.Value)
			return
		}
		n.Value, n.Tag, n.Style = out, "!!str", yaml.DoubleQuotedStyle
		if whole != nil && typedValue(out) {
			n.Tag, n.Style = "", 0
			n.Tag = map[bool]string{true: "!!bool", false: "!!float"}[out == "true" || out == "false"]
		}
	}
}

// v5Renderer renders the templates of every string below a node with a test's vars, as
// 5.x's interpolateTemplateVars: the context holds each var by name and all of them as
// `vars`; a string that is exactly one reference to a set var takes its value whatever its
// type; an unknown name renders empty, as Nunjucks does. bad reports a tag it cannot render,
// or a value too large to render (a YAML alias bomb).
type v5Renderer struct {
	vars   *yaml.Node
	bad    func(at *yaml.Node, tag string)
	budget int // nodes still to visit
}

// v5RenderBudget bounds the nodes one test's rendering visits.
const v5RenderBudget = 1 << 20

func (r *v5Renderer) render(n *yaml.Node, depth int) *yaml.Node {
	if n = deref(n); n == nil {
		return n
	}
	if r.budget--; r.budget < 0 || depth > 64 {
		if r.budget == -1 || depth == 65 {
			r.bad(n, "a value too large or too deeply nested to render (check for recursive YAML aliases)")
		}
		return n
	}
	switch n.Kind {
	case yaml.ScalarNode:
		if !isString(n) || !v5OtherTag.MatchString(n.Value) {
			return n
		}
		if m := v5WholeVar.FindStringSubmatch(n.Value); m != nil {
			if v := v5Lookup(r.vars, m[1]); v != nil {
				return v
			}
		}
		c := *n
		c.Value = v5VarRef.ReplaceAllStringFunc(n.Value, func(ref string) string {
			return r.text(v5Lookup(r.vars, v5VarRef.FindStringSubmatch(ref)[1]), 0)
		})
		if loc := v5OtherTag.FindStringIndex(c.Value); loc != nil {
			end := min(len(c.Value), loc[0]+40)
			r.bad(n, c.Value[loc[0]:end])
			return n
		}
		c.Tag, c.Style = "!!str", yaml.DoubleQuotedStyle
		return &c
	case yaml.SequenceNode, yaml.MappingNode:
		c := *n
		c.Content = make([]*yaml.Node, len(n.Content))
		for i, x := range n.Content {
			if n.Kind == yaml.SequenceNode || i%2 == 1 {
				c.Content[i] = r.render(x, depth+1)
			} else {
				c.Content[i] = x
			}
		}
		return &c
	}
	return n
}

// text is a value as Nunjucks prints it inside text: strings and numbers as written, null
// and unknown as nothing, a list as its items joined by commas, a mapping as JavaScript's
// "[object Object]".
func (r *v5Renderer) text(v *yaml.Node, depth int) string {
	if r.budget--; r.budget < 0 || depth > 64 {
		return ""
	}
	switch v = deref(v); {
	case v == nil || isNull(v):
		return ""
	case v.Kind == yaml.ScalarNode:
		return v.Value
	case v.Kind == yaml.SequenceNode:
		parts := make([]string, len(v.Content))
		for i, x := range v.Content {
			parts[i] = r.text(x, depth+1)
		}
		return strings.Join(parts, ",")
	}
	return "[object Object]"
}

// v5Lookup finds a dotted name in a test's vars; `vars.x` is x.
func v5Lookup(vars *yaml.Node, path string) *yaml.Node {
	if rest, ok := strings.CutPrefix(path, "vars."); ok && lookupVar(vars, "vars") == nil {
		path = rest
	} else if path == "vars" {
		return deref(vars)
	}
	return lookupVar(vars, path)
}

// v5Prompts reads `prompts`: a string, a chat (a list of messages), or a list of those or
// of {raw, id, label}; a string starting file:// is the text of that file.
func (l *loader) v5Prompts(e *kv) ([]v5Prompt, bool) {
	if isNull(e.v) {
		return nil, true
	}
	items := []*yaml.Node{e.v}
	if e.v.Kind == yaml.SequenceNode && !isChat(e.v) {
		items = e.v.Content
		if len(items) == 0 {
			l.errorf(e.v, KindStructure, "", "%q must not be empty", "prompts")
			return nil, false
		}
	}
	var out []v5Prompt
	ok := true
	for i, it := range items {
		p, good := l.v5Prompt(deref(it), i)
		ok = ok && good
		out = append(out, p)
	}
	return out, ok
}

// isChat reports whether a list is one chat prompt: every item a message with a role
// (yaml-parser.ts, isChatPromptArray).
func isChat(n *yaml.Node) bool {
	if len(n.Content) == 0 {
		return false
	}
	for _, it := range n.Content {
		if it = deref(it); it == nil || it.Kind != yaml.MappingNode || !hasKey(it, "role") {
			return false
		}
	}
	return true
}

// v5Prompt reads one prompt; its id is 5.x's (parsePromptDefinition): prompt- or chat- and the
// first 12 hex digits of the SHA-256 of its JSON, or the file's path.
func (l *loader) v5Prompt(n *yaml.Node, i int) (v5Prompt, bool) {
	bad := func(format string, args ...any) (v5Prompt, bool) {
		l.errorf(n, KindStructure, "", "prompts[%d]: "+format, append([]any{i}, args...)...)
		return v5Prompt{}, false
	}
	switch {
	case n == nil || isNull(n):
		return bad("expected a string, a chat or a mapping, got %s", kindName(n))
	case n.Kind == yaml.ScalarNode && strings.HasPrefix(n.Value, "file://"):
		rel := strings.TrimPrefix(n.Value, "file://")
		r := l.resolve(rel, false)
		if r.abs == "" {
			return bad("prompt file %q not found (tried: %s)", rel, l.triedList(r))
		}
		src, err := safefile.ReadFile(r.abs, safefile.LimitEvalFile)
		if err != nil {
			return bad("could not read prompt file %q: %s", rel, errText(err))
		}
		return v5Prompt{id: rel, input: strNode(n, strings.ReplaceAll(string(src), "\r\n", "\n"))}, true
	case n.Kind == yaml.ScalarNode:
		return v5Prompt{id: "prompt-" + v5Hash(n), input: n}, true
	case n.Kind == yaml.SequenceNode:
		if !isChat(n) {
			return bad("a list must be chat messages, each with a %q", "role")
		}
		return v5Prompt{id: "chat-" + v5Hash(n), input: n}, true
	case n.Kind == yaml.MappingNode:
		var p v5Prompt
		var label string
		for _, x := range entries(n) {
			switch x.key {
			case "raw":
				p.input = x.v
			case "id":
				p.id = strings.TrimSpace(x.v.Value)
			case "label":
				label = strings.TrimSpace(x.v.Value)
			default:
				return bad("prompt %q is not supported yet", x.key)
			}
		}
		if p.input == nil {
			return bad("a prompt mapping needs %q, the prompt text", "raw")
		}
		if p.id == "" {
			p.id = label
		}
		if p.id == "" {
			p.id = "prompt-" + v5Hash(p.input)
		}
		return p, true
	}
	return bad("expected a string, a chat or a mapping, got %s", kindName(n))
}

// v5Hash is the first 12 hex digits of the SHA-256 of n's JSON (5.x's stablePromptId).
func v5Hash(n *yaml.Node) string {
	b, _ := toJSON(n)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])[:12]
}

// v5PromptID is a prompt's id as 5.x puts it in an expanded test id (safePromptId).
func v5PromptID(id string) string {
	s := strings.Trim(v5PromptSafe.ReplaceAllString(strings.TrimSpace(id), "-"), "-")
	if s == "" {
		sum := sha256.Sum256([]byte(`"` + id + `"`))
		return hex.EncodeToString(sum[:])[:12]
	}
	return s[:min(len(s), 48)]
}

// v5ReadMapping reads a YAML file referenced from the eval file (at node at) whose root
// must be a mapping; nil after an error.
func (l *loader) v5ReadMapping(at *yaml.Node, rel, what string) *yaml.Node {
	r := l.resolve(rel, false)
	if r.abs == "" {
		l.errorf(at, KindFile, "", "%s file %q not found (tried: %s)", what, rel, l.triedList(r))
		return nil
	}
	src, err := safefile.ReadFile(r.abs, safefile.LimitEvalFile)
	if err != nil {
		l.errorf(at, KindFile, "", "could not read %s file %q: %s", what, rel, errText(err))
		return nil
	}
	restore := l.inFile(r.abs)
	l.src = src
	doc := l.parseYAML(src)
	restore()
	if doc == nil {
		return nil
	}
	// Its nodes keep naming the file in later messages, as assertion templates do.
	t := &includeFile{abs: r.abs, display: displayPath(r.abs, l.cwd), k: len(l.includes) + 1}
	l.includes = append(l.includes, t)
	encodeLines(doc, t.k*includeLineBase, map[*yaml.Node]bool{})
	l.v5Env(doc, map[*yaml.Node]bool{})
	return l.rootOf(doc, yaml.MappingNode, func(got string) string {
		return what + " file must hold a YAML mapping, got " + got
	})
}
