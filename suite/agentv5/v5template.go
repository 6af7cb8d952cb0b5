package agentv5

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"github.com/agentv/action/suite"
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
func (l *reader) v5Env(n *yaml.Node, seen map[*yaml.Node]bool) {
	suite.EachValue(n, seen, func(n *yaml.Node) {
		if !v5AnyEnvRef.MatchString(n.Value) || strings.Contains(n.Value, "${{") {
			return
		}
		whole := v5WholeEnv.FindStringSubmatch(n.Value)
		out := v5EnvRef.ReplaceAllStringFunc(n.Value, func(ref string) string {
			name := v5EnvRef.FindStringSubmatch(ref)[1]
			return l.EnvValue(n, name, "{{ env."+name+" }}")
		})
		if v5AnyEnvRef.MatchString(out) {
			l.Errorf(n, suite.KindTemplate, "", "only {{ env.NAME }} is supported in an environment reference, got %q", n.Value)
			return
		}
		n.Value, n.Tag, n.Style = out, "!!str", yaml.DoubleQuotedStyle
		if whole != nil && suite.TypedValue(out) {
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
	// filters are the file's nunjucks_filters (nil: none), filterErr reports one that failed.
	filters   *v5Filters
	filterErr func(at *yaml.Node, msg string)
	inPrompt  bool // rendering a prompt, which 5.x does without the filters
}

// v5RenderBudget bounds the nodes one test's rendering visits.
const v5RenderBudget = 1 << 20

func (r *v5Renderer) render(n *yaml.Node, depth int) *yaml.Node {
	if n = suite.Deref(n); n == nil {
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
		if !suite.IsString(n) || !v5OtherTag.MatchString(n.Value) {
			return n
		}
		if m := v5WholeVar.FindStringSubmatch(n.Value); m != nil {
			if v := v5Lookup(r.vars, m[1]); v != nil {
				return v
			}
		}
		// Tags are looked for in the text as written: a var's value is put in as text, and
		// Nunjucks does not render it again (a prompt's second pass does, as 5.x's).
		ref, rest := v5VarRef, v5VarRef.ReplaceAllString(n.Value, "")
		switch {
		case r.filters != nil && r.inPrompt:
			if name := r.fileFilterIn(n.Value); name != "" {
				r.filterErr(n, fmt.Sprintf("prompt %q uses nunjucks filter %q: AgentV 5.3.1-next.1 renders prompts without nunjucks_filters and fails the file (\"filter not found: %s\"); apply the filter in the test's own fields", strings.TrimSpace(n.Value), name, name))
				return n
			}
		case r.filters != nil:
			// also `{{ name | filter }}` with the file's nunjucks_filters (v5filters.go)
			ref, rest = v5FilterRef, v5FilterRef.ReplaceAllStringFunc(n.Value, r.unknownFilters)
		}
		if v5OtherTag.MatchString(rest) {
			loc := v5OtherTag.FindStringIndex(rest)
			r.bad(n, rest[loc[0]:min(len(rest), loc[0]+40)])
			return n
		}
		c := *n
		failed := false
		c.Value = ref.ReplaceAllStringFunc(n.Value, func(tag string) string {
			m := ref.FindStringSubmatch(tag)
			if len(m) > 2 && m[2] != "" && !failed {
				text, ok := r.renderFiltered(n, m[1], m[2])
				failed = !ok
				return text
			}
			return r.text(v5Lookup(r.vars, m[1]), 0)
		})
		if failed {
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
	switch v = suite.Deref(v); {
	case v == nil || suite.IsNull(v):
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
	if rest, ok := strings.CutPrefix(path, "vars."); ok && suite.LookupVar(vars, "vars") == nil {
		path = rest
	} else if path == "vars" {
		return suite.Deref(vars)
	}
	return suite.LookupVar(vars, path)
}

// v5Prompts reads `prompts`: a string, a chat (a list of messages), or a list of those or
// of {raw, id, label}; a string starting file:// is the text of that file.
func (l *reader) v5Prompts(e *suite.Entry) ([]v5Prompt, bool) {
	if suite.IsNull(e.Value) {
		return nil, true
	}
	items := []*yaml.Node{e.Value}
	if e.Value.Kind == yaml.SequenceNode && !isChat(e.Value) {
		items = e.Value.Content
		if len(items) == 0 {
			l.Errorf(e.Value, suite.KindStructure, "", "%q must not be empty", "prompts")
			return nil, false
		}
	}
	var out []v5Prompt
	ok := true
	for i, it := range items {
		p, good := l.v5Prompt(suite.Deref(it), i)
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
		if it = suite.Deref(it); it == nil || it.Kind != yaml.MappingNode || !suite.HasKey(it, "role") {
			return false
		}
	}
	return true
}

// v5Prompt reads one prompt; its id is 5.x's (parsePromptDefinition): prompt- or chat- and the
// first 12 hex digits of the SHA-256 of its JSON, or the file's path.
func (l *reader) v5Prompt(n *yaml.Node, i int) (v5Prompt, bool) {
	bad := func(format string, args ...any) (v5Prompt, bool) {
		l.Errorf(n, suite.KindStructure, "", "prompts[%d]: "+format, append([]any{i}, args...)...)
		return v5Prompt{}, false
	}
	switch {
	case n == nil || suite.IsNull(n):
		return bad("expected a string, a chat or a mapping, got %s", suite.KindName(n))
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
	return bad("expected a string, a chat or a mapping, got %s", suite.KindName(n))
}

// v5PromptKeys are the keys of a prompt object 5.x reads (parsePromptDefinition); the
// first of function_file, function, command, file, messages, prompt and raw present wins.
var v5PromptKeys = []string{"id", "label", "function_file", "function", "command", "file", "messages", "prompt", "raw", "role", "content"}

// v5PromptObject reads a prompt mapping: {id, label} with the prompt in `prompt` (a text or
// a chat), `raw` (a text), `messages` (a chat) or `file`, or a single chat message. Without
// an id, one is made from the prompt's kind and hash; a label never stands for the id.
func (l *reader) v5PromptObject(n *yaml.Node, i int) (v5Prompt, bool) {
	bad := func(at *yaml.Node, format string, args ...any) (v5Prompt, bool) {
		l.Errorf(at, suite.KindStructure, "", "prompts[%d]: "+format, append([]any{i}, args...)...)
		return v5Prompt{}, false
	}
	f := suite.EntryList(suite.MapEntries(n))
	text := func(key string) (string, *yaml.Node) {
		e := f.Get(key)
		if e == nil || suite.IsNull(e.Value) || !suite.IsString(e.Value) {
			return "", nil
		}
		return strings.TrimSpace(e.Value.Value), e.Value
	}
	id, _ := text("id")
	label, _ := text("label")
	for _, e := range suite.MapEntries(n) {
		if !slices.Contains(v5PromptKeys, e.Key) {
			l.Warnf(e.KeyNode, suite.KindIgnored, "", "prompts[%d] %q is not read by AgentV 5.x (ignored)", i, e.Key)
		}
	}
	made := func(kind string, v *yaml.Node) (v5Prompt, bool) {
		return v5Prompt{id: cmp.Or(id, kind+"-"+v5Hash(v)), label: label, input: v}, true
	}
	for _, key := range []string{"function_file", "function", "command"} {
		if e := f.Get(key); e != nil {
			return bad(e.KeyNode, "a prompt made by a %q is not supported yet", key)
		}
	}
	if e := f.Get("file"); e != nil {
		ref, v := text("file")
		if ref == "" {
			return bad(e.Value, "%q must name a prompt file, got %s", "file", suite.Describe(e.Value))
		}
		return l.v5PromptFile(v, i, ref, id, label)
	}
	if e := f.Get("messages"); e != nil {
		if v := suite.Deref(e.Value); v == nil || v.Kind != yaml.SequenceNode || !isChat(v) {
			return bad(e.Value, "%q must be a list of chat messages, each with a %q", "messages", "role")
		}
		return made("chat", suite.Deref(e.Value))
	}
	if e := f.Get("prompt"); e != nil {
		switch v := suite.Deref(e.Value); {
		case v != nil && suite.IsString(v):
			return made("string", v)
		case v != nil && v.Kind == yaml.SequenceNode && isChat(v):
			return made("chat", v)
		}
		return bad(e.Value, "%q must be a text or a list of chat messages, got %s", "prompt", suite.Describe(e.Value))
	}
	if e := f.Get("raw"); e != nil {
		if v := suite.Deref(e.Value); v == nil || !suite.IsString(v) || v.Value == "" {
			return bad(e.Value, "%q must be a non-empty text, got %s", "raw", suite.Describe(e.Value))
		}
		return made("string", suite.Deref(e.Value))
	}
	if suite.HasKey(n, "role") && suite.HasKey(n, "content") {
		// One chat message written as the prompt: the chat of that message.
		msg := suite.Mapping(n)
		for _, e := range suite.MapEntries(n) {
			if e.Key != "id" && e.Key != "label" {
				msg.Content = append(msg.Content, e.KeyNode, e.Value)
			}
		}
		// 5.x hashes the whole mapping, id and label included.
		return v5Prompt{id: cmp.Or(id, "chat-"+v5Hash(n)), label: label, input: suite.SeqNode(n, msg)}, true
	}
	return bad(n, "a prompt mapping needs %q (a text or a chat), %q, %q or %q", "prompt", "raw", "messages", "file")
}

// v5PromptFile reads a prompt file as one text; its id and label are its path unless given.
func (l *reader) v5PromptFile(at *yaml.Node, i int, ref, id, label string) (v5Prompt, bool) {
	rel := strings.TrimPrefix(strings.TrimSpace(ref), "file://")
	r := l.Resolve(rel, false)
	if r.Abs == "" {
		l.Errorf(at, suite.KindStructure, "", "prompts[%d]: prompt file %q not found (tried: %s)", i, rel, l.TriedList(r))
		return v5Prompt{}, false
	}
	src, err := safefile.ReadFile(r.Abs, safefile.LimitEvalFile)
	if err != nil {
		l.Errorf(at, suite.KindStructure, "", "prompts[%d]: could not read prompt file %q: %s", i, rel, suite.ErrText(err))
		return v5Prompt{}, false
	}
	return v5Prompt{id: cmp.Or(id, rel), label: cmp.Or(label, rel), input: suite.StrNode(at, strings.ReplaceAll(string(src), "\r\n", "\n"))}, true
}

// v5Hash is the first 12 hex digits of the SHA-256 of n's JSON (5.x's stablePromptId).
func v5Hash(n *yaml.Node) string {
	b, _ := suite.ToJSON(n)
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
func (l *reader) v5ReadMapping(at *yaml.Node, rel, what string) *yaml.Node {
	r := l.Resolve(rel, false)
	if r.Abs == "" {
		l.Errorf(at, suite.KindFile, "", "%s file %q not found (tried: %s)", what, rel, l.TriedList(r))
		return nil
	}
	src, err := safefile.ReadFile(r.Abs, safefile.LimitEvalFile)
	if err != nil {
		l.Errorf(at, suite.KindFile, "", "could not read %s file %q: %s", what, rel, suite.ErrText(err))
		return nil
	}
	restore := l.InFile(r.Abs)
	l.Src = src
	doc := l.ParseYAML(src)
	restore()
	if doc == nil {
		return nil
	}
	// Its nodes keep naming the file in later messages, as assertion templates do.
	t := &suite.IncludeFile{Abs: r.Abs, Display: suite.DisplayPath(r.Abs, l.Cwd), Num: len(l.Includes) + 1}
	l.Includes = append(l.Includes, t)
	suite.EncodeLines(doc, t.Num*suite.IncludeLineBase, map[*yaml.Node]bool{})
	l.v5Env(doc, map[*yaml.Node]bool{})
	return l.RootOf(doc, yaml.MappingNode, func(got string) string {
		return what + " file must hold a YAML mapping, got " + got
	})
}
