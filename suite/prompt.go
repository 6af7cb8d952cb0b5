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
func (l *loader) parseLLMJudge(spec *EvaluatorSpec, get func(string) *kv, el *evalList) {
	if t := get("target"); t != nil && !isNull(t.v) {
		if t.v.Kind != yaml.ScalarNode {
			l.evError(el, t.v, "llm_judge %q must be a target name, got %s", "target", kindName(t.v))
		} else {
			spec.Target = l.str(t.v.Value)
		}
	}
	chosen := firstSet([]*kv{get("prompt"), get("promptPath"), get("prompt_path")}, func(e, chosen *kv) {
		l.evWarn(el, e.kn, KindIgnored, "%q ignored: %q is also set", e.key, chosen.key)
	})
	if chosen != nil {
		spec.Prompt = l.parsePrompt(chosen, chosen.key != "prompt", spec, el)
	}
}

// parsePrompt resolves a prompt value: an existing file is a text template or,
// by extension, an executable one; a path-like value that exists nowhere is an error; anything
// else is inline text. `{script: [...], config: {...}}` is an explicit executable template.
func (l *loader) parsePrompt(e *kv, pathOnly bool, spec *EvaluatorSpec, el *evalList) *PromptSpec {
	n := e.v
	switch n.Kind {
	case yaml.MappingNode:
		if pathOnly {
			l.evError(el, n, "%q must be a file path, got %s", e.key, kindName(n))
			return nil
		}
		return l.parseScriptPrompt(n, el)
	case yaml.ScalarNode:
		if l.graders4() && !pathOnly {
			return l.parseV4Prompt(n, el)
		}
	default:
		l.evError(el, n, "%q must be a file path, inline template text or {script: [...]}, got %s", e.key, kindName(n))
		return nil
	}
	v := n.Value
	t := strings.TrimSpace(v)
	if t != "" && !strings.ContainsAny(t, "\n\r") {
		r := l.resolve(t, false)
		if r.abs != "" {
			if scriptExts[strings.ToLower(filepath.Ext(r.abs))] {
				return &PromptSpec{Kind: PromptScript, Path: r.abs, Display: t}
			}
			return l.promptFile(n, r.abs, t, el, templates25)
		}
		if pathOnly || looksLikePath(t) {
			l.evError(el, n, "prompt file %q not found (tried: %s)", t, l.triedList(r))
			return nil
		}
	} else if pathOnly {
		l.evError(el, n, "%q must be a one-line file path", e.key)
		return nil
	}
	l.validateInlineTemplate(v, n, e.kn, spec, el)
	return &PromptSpec{Kind: PromptInline, Text: v, Display: v}
}

// parseScriptPrompt reads `prompt: {script: [argv...], config: {...}}`.
func (l *loader) parseScriptPrompt(n *yaml.Node, el *evalList) *PromptSpec {
	p := &PromptSpec{Kind: PromptScript}
	var script *kv
	for _, e := range entries(n) {
		switch e.key {
		case "script":
			script = &e
		case "config":
			if isNull(e.v) {
				continue
			}
			if e.v.Kind != yaml.MappingNode {
				l.evError(el, e.v, "prompt %q must be a mapping, got %s", "config", kindName(e.v))
				continue
			}
			p.Config, _ = toJSON(e.v) // part of the entry, which rendered whole
		default:
			l.evWarn(el, e.kn, KindUnknownKey, "%s", unknownKeyMsg(e.key, "in prompt", promptKeys))
		}
	}
	if script == nil || isNull(script.v) {
		l.evError(el, n, "prompt mapping needs a %q argv list, e.g. {script: [bun, run, prompt.ts]}", "script")
		return nil
	}
	p.Script = l.argv(script, el)
	if p.Script == nil {
		return nil
	}
	if script.v.Kind == yaml.SequenceNode {
		last := p.Script[len(p.Script)-1]
		if r := l.resolve(last, false); r.abs != "" {
			p.Script[len(p.Script)-1] = r.abs
			p.Path = r.abs
		}
		p.Display = strings.Join(p.Script, " ")
		if p.Path != "" {
			p.Display = last
		}
	} else {
		p.Display = script.v.Value
	}
	return p
}
