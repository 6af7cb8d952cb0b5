package suite

import (
	"path/filepath"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v4"
)

// scriptExts are prompt files run as executable templates (payload on stdin, prompt on stdout).
var scriptExts = map[string]bool{".ts": true, ".mts": true, ".js": true, ".mjs": true, ".cjs": true, ".py": true}

// pathExts make a one-line prompt value look like a path: missing, it is an error, not inline text.
var pathExts = []string{".md", ".txt", ".ts", ".mts", ".js", ".mjs", ".cjs", ".py"}

// looksLikePath reports whether a prompt value is meant as a file: one word ending in a
// template or script extension. Prose that happens to end in ".md" has spaces.
func looksLikePath(v string) bool {
	if v == "" || strings.ContainsAny(v, " \t\n\r") {
		return false
	}
	lv := strings.ToLower(v)
	return slices.ContainsFunc(pathExts, func(e string) bool { return strings.HasSuffix(lv, e) })
}

// parseLLMJudge reads the custom prompt and the judge target override.
func (l *Reader) parseLLMJudge(spec *EvaluatorSpec, get func(string) *Entry, el *EvalList) {
	if t := get("target"); t != nil && !IsNull(t.Value) {
		if t.Value.Kind != yaml.ScalarNode {
			l.evError(el, t.Value, "llm_judge %q must be a target name, got %s", "target", KindName(t.Value))
		} else {
			spec.Target = l.str(t.Value.Value)
		}
	}
	chosen := firstSet([]*Entry{get("prompt"), get("promptPath"), get("prompt_path")}, func(e, chosen *Entry) {
		l.evWarn(el, e.KeyNode, KindIgnored, "%q ignored: %q is also set", e.Key, chosen.Key)
	})
	if chosen != nil {
		spec.Prompt = l.parsePrompt(chosen, chosen.Key != "prompt", spec, el)
	}
}

// parsePrompt resolves a prompt value: an existing file is a text template or,
// by extension, an executable one; a path-like value that exists nowhere is an error; anything
// else is inline text. `{script: [...], config: {...}}` is an explicit executable template.
func (l *Reader) parsePrompt(e *Entry, pathOnly bool, spec *EvaluatorSpec, el *EvalList) *PromptSpec {
	n := e.Value
	switch n.Kind {
	case yaml.MappingNode:
		if pathOnly {
			l.evError(el, n, "%q must be a file path, got %s", e.Key, KindName(n))
			return nil
		}
		return l.parseScriptPrompt(n, el)
	case yaml.ScalarNode:
		if l.graders4() && !pathOnly {
			return l.parseV4Prompt(n, el)
		}
	default:
		l.evError(el, n, "%q must be a file path, inline template text or {script: [...]}, got %s", e.Key, KindName(n))
		return nil
	}
	v := n.Value
	t := strings.TrimSpace(v)
	if t != "" && !strings.ContainsAny(t, "\n\r") {
		r := l.Resolve(t, false)
		if r.Abs != "" {
			if scriptExts[strings.ToLower(filepath.Ext(r.Abs))] {
				return &PromptSpec{Kind: PromptScript, Path: r.Abs, Display: t}
			}
			return l.promptFile(n, r.Abs, t, el, templates25)
		}
		if pathOnly || looksLikePath(t) {
			l.evError(el, n, "prompt file %q not found (tried: %s)", t, l.TriedList(r))
			return nil
		}
	} else if pathOnly {
		l.evError(el, n, "%q must be a one-line file path", e.Key)
		return nil
	}
	l.validateInlineTemplate(v, n, e.KeyNode, spec, el)
	return &PromptSpec{Kind: PromptInline, Text: v, Display: v}
}

// parseScriptPrompt reads `prompt: {script: [argv...], config: {...}}`.
func (l *Reader) parseScriptPrompt(n *yaml.Node, el *EvalList) *PromptSpec {
	p := &PromptSpec{Kind: PromptScript}
	var script *Entry
	for _, e := range MapEntries(n) {
		switch e.Key {
		case "script":
			script = &e
		case "config":
			if IsNull(e.Value) {
				continue
			}
			if e.Value.Kind != yaml.MappingNode {
				l.evError(el, e.Value, "prompt %q must be a mapping, got %s", "config", KindName(e.Value))
				continue
			}
			p.Config, _ = ToJSON(e.Value) // part of the entry, which rendered whole
		default:
			l.evWarn(el, e.KeyNode, KindUnknownKey, "%s", UnknownKeyMsg(e.Key, "in prompt", promptKeys))
		}
	}
	if script == nil || IsNull(script.Value) {
		l.evError(el, n, "prompt mapping needs a %q argv list, e.g. {script: [bun, run, prompt.ts]}", "script")
		return nil
	}
	p.Script = l.argv(script, el)
	if p.Script == nil {
		return nil
	}
	if script.Value.Kind == yaml.SequenceNode {
		last := p.Script[len(p.Script)-1]
		if r := l.Resolve(last, false); r.Abs != "" {
			p.Script[len(p.Script)-1] = r.Abs
			p.Path = r.Abs
		}
		p.Display = strings.Join(p.Script, " ")
		if p.Path != "" {
			p.Display = last
		}
	} else {
		p.Display = script.Value.Value
	}
	return p
}
