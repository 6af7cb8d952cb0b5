package suite

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"slices"
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
	eachValue(n, seen, func(n *yaml.Node) {
		if !v5AnyEnvRef.MatchString(n.Value) || strings.Contains(n.Value, "${{") {
			return
		}
		whole := v5WholeEnv.FindStringSubmatch(n.Value)
		out := v5EnvRef.ReplaceAllStringFunc(n.Value, func(ref string) string {
			name := v5EnvRef.FindStringSubmatch(ref)[1]
			return l.envValue(n, name, "{{ env."+name+" }}")
		})
		if v5AnyEnvRef.MatchString(out) {
			l.errorf(n, KindTemplate, "", "only {{ env.NAME }} is supported in an environment reference, got %q", n.Value)
			return
		}
		n.Value, n.Tag, n.Style = out, "!!str", yaml.DoubleQuotedStyle
		if whole != nil && typedValue(out) {
			n.Tag, n.Style = map[bool]string{true: "!!bool", false: "!!float"}[out == "true" || out == "false"], 0
		}
	})
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
		// Tags are looked for in the text as written: a var's value is put in as text, and
		// Nunjucks does not render it again (a prompt's second pass does, as 5.x's).
		if rest := v5VarRef.ReplaceAllString(n.Value, ""); v5OtherTag.MatchString(rest) {
			loc := v5OtherTag.FindStringIndex(rest)
			r.bad(n, rest[loc[0]:min(len(rest), loc[0]+40)])
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
		return l.v5PromptFile(n, i, n.Value, "", "")
	case n.Kind == yaml.ScalarNode:
		return v5Prompt{id: "prompt-" + v5Hash(n), input: n}, true
	case n.Kind == yaml.SequenceNode:
		if !isChat(n) {
			return bad("a list must be chat messages, each with a %q", "role")
		}
		return v5Prompt{id: "chat-" + v5Hash(n), input: n}, true
	case n.Kind == yaml.MappingNode:
		return l.v5PromptObject(n, i)
	}
	return bad("expected a string, a chat or a mapping, got %s", kindName(n))
}

// v5PromptKeys are the keys of a prompt object 5.x reads (parsePromptDefinition); the
// first of function_file, function, command, file, messages, prompt and raw present wins.
var v5PromptKeys = []string{"id", "label", "function_file", "function", "command", "file", "messages", "prompt", "raw", "role", "content"}

// v5PromptObject reads a prompt mapping: {id, label} with the prompt in `prompt` (a text or
// a chat), `raw` (a text), `messages` (a chat) or `file`, or a single chat message. Without
// an id, one is made from the prompt's kind and hash; a label never stands for the id.
func (l *loader) v5PromptObject(n *yaml.Node, i int) (v5Prompt, bool) {
	bad := func(at *yaml.Node, format string, args ...any) (v5Prompt, bool) {
		l.errorf(at, KindStructure, "", "prompts[%d]: "+format, append([]any{i}, args...)...)
		return v5Prompt{}, false
	}
	f := kvs(entries(n))
	text := func(key string) (string, *yaml.Node) {
		e := f.get(key)
		if e == nil || isNull(e.v) || !isString(e.v) {
			return "", nil
		}
		return strings.TrimSpace(e.v.Value), e.v
	}
	id, _ := text("id")
	label, _ := text("label")
	for _, e := range entries(n) {
		if !slices.Contains(v5PromptKeys, e.key) {
			l.warnf(e.kn, KindIgnored, "", "prompts[%d] %q is not read by AgentV 5.x (ignored)", i, e.key)
		}
	}
	made := func(kind string, v *yaml.Node) (v5Prompt, bool) {
		return v5Prompt{id: cmp.Or(id, kind+"-"+v5Hash(v)), label: label, input: v}, true
	}
	for _, key := range []string{"function_file", "function", "command"} {
		if e := f.get(key); e != nil {
			return bad(e.kn, "a prompt made by a %q is not supported yet", key)
		}
	}
	if e := f.get("file"); e != nil {
		ref, v := text("file")
		if ref == "" {
			return bad(e.v, "%q must name a prompt file, got %s", "file", describe(e.v))
		}
		return l.v5PromptFile(v, i, ref, id, label)
	}
	if e := f.get("messages"); e != nil {
		if v := deref(e.v); v == nil || v.Kind != yaml.SequenceNode || !isChat(v) {
			return bad(e.v, "%q must be a list of chat messages, each with a %q", "messages", "role")
		}
		return made("chat", deref(e.v))
	}
	if e := f.get("prompt"); e != nil {
		switch v := deref(e.v); {
		case v != nil && isString(v):
			return made("string", v)
		case v != nil && v.Kind == yaml.SequenceNode && isChat(v):
			return made("chat", v)
		}
		return bad(e.v, "%q must be a text or a list of chat messages, got %s", "prompt", describe(e.v))
	}
	if e := f.get("raw"); e != nil {
		if v := deref(e.v); v == nil || !isString(v) || v.Value == "" {
			return bad(e.v, "%q must be a non-empty text, got %s", "raw", describe(e.v))
		}
		return made("string", deref(e.v))
	}
	if hasKey(n, "role") && hasKey(n, "content") {
		// One chat message written as the prompt: the chat of that message.
		msg := mapping(n)
		for _, e := range entries(n) {
			if e.key != "id" && e.key != "label" {
				msg.Content = append(msg.Content, e.kn, e.v)
			}
		}
		// 5.x hashes the whole mapping, id and label included.
		return v5Prompt{id: cmp.Or(id, "chat-"+v5Hash(n)), label: label, input: seqNode(n, msg)}, true
	}
	return bad(n, "a prompt mapping needs %q (a text or a chat), %q, %q or %q", "prompt", "raw", "messages", "file")
}

// v5PromptFile reads a prompt file as one text; its id and label are its path unless given.
func (l *loader) v5PromptFile(at *yaml.Node, i int, ref, id, label string) (v5Prompt, bool) {
	rel := strings.TrimPrefix(strings.TrimSpace(ref), "file://")
	r := l.resolve(rel, false)
	if r.abs == "" {
		l.errorf(at, KindStructure, "", "prompts[%d]: prompt file %q not found (tried: %s)", i, rel, l.triedList(r))
		return v5Prompt{}, false
	}
	src, err := safefile.ReadFile(r.abs, safefile.LimitEvalFile)
	if err != nil {
		l.errorf(at, KindStructure, "", "prompts[%d]: could not read prompt file %q: %s", i, rel, errText(err))
		return v5Prompt{}, false
	}
	return v5Prompt{id: cmp.Or(id, rel), label: cmp.Or(label, rel), input: strNode(at, strings.ReplaceAll(string(src), "\r\n", "\n"))}, true
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
