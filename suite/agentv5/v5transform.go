package agentv5

import (
	"github.com/agentv/action/suite"
	"path/filepath"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v4"
)

// v5TransformExts are the module files a file:// transform may name: Node.js runs them as
// they are (5.x also takes TypeScript, which needs a runtime that compiles it).
var v5TransformExts = []string{".js", ".mjs", ".cjs"}

// v5Transform reads a 5.x `transform` (loaders/transform-parser.ts at v5.3.1-next.1): a
// non-empty string, JavaScript code, or file://path.js[:function] found from the eval
// file's folder. where names the setting in messages; ok is false after an error.
func (l *reader) v5Transform(v *yaml.Node, where string, fail func(*yaml.Node, string, ...any)) (*suite.Transform, bool) {
	v = suite.Deref(v)
	if v == nil || !suite.IsString(v) || strings.TrimSpace(v.Value) == "" {
		fail(v, "%s must be JavaScript code or file://path.js, got %s", where, suite.Describe(v))
		return nil, false
	}
	file, line := l.Where(v.Line)
	t := &suite.Transform{Pos: suite.Position{File: file, Line: line, Col: v.Column}}
	code := strings.TrimSpace(v.Value)
	ref, isFile := strings.CutPrefix(code, "file://")
	if !isFile {
		t.Code = code
		return t, true
	}
	// A colon after the first two characters names the function (a drive letter's does not).
	if i := strings.LastIndex(ref, ":"); i > 1 {
		ref, t.Fn = ref[:i], strings.TrimSpace(ref[i+1:])
	}
	ext := strings.ToLower(filepath.Ext(ref))
	switch {
	case strings.TrimSpace(ref) == "":
		fail(v, "%s %q names no file: write file://path/to/transform.js or file://transform.js:functionName", where, code)
		return nil, false
	case ext == ".ts" || ext == ".mts" || ext == ".cts":
		fail(v, "%s %q: TypeScript transforms are not supported yet (write the module as .js, .mjs or .cjs)", where, code)
		return nil, false
	case !slices.Contains(v5TransformExts, ext):
		fail(v, "%s %q must name a JavaScript module (.js, .mjs or .cjs)", where, code)
		return nil, false
	}
	r := l.Resolve(ref, false)
	if r.Abs == "" {
		fail(v, "%s file %q not found (tried: %s)", where, ref, l.TriedList(r))
		return nil, false
	}
	t.File = r.Abs
	return t, true
}

// v5TakeTransforms removes `transform` from converted assertion entries (and the members
// of their assert-sets) and returns the transforms by the entry's position, which is where
// the evaluator parser puts each spec (EvaluatorSpec.Pos). The entries were checked by
// v5Assertion, so reading them again reports nothing new.
func (l *reader) v5TakeTransforms(entries []*yaml.Node, out map[suite.Position]*suite.Transform) map[suite.Position]*suite.Transform {
	for _, n := range entries {
		if n = suite.Deref(n); n == nil || n.Kind != yaml.MappingNode {
			continue
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			switch k, v := n.Content[i].Value, suite.Deref(n.Content[i+1]); {
			case k == "transform":
				if t, ok := l.v5Transform(v, "transform", func(*yaml.Node, string, ...any) {}); ok {
					if out == nil {
						out = map[suite.Position]*suite.Transform{}
					}
					file, line := l.Where(n.Line)
					out[suite.Position{File: file, Line: line, Col: n.Column}] = t
				}
				n.Content = append(n.Content[:i:i], n.Content[i+2:]...)
				i -= 2
			case k == "assert" && v != nil && v.Kind == yaml.SequenceNode:
				out = l.v5TakeTransforms(v.Content, out)
			}
		}
	}
	return out
}

// v5SetTransforms gives each spec (members included) the transform found at its position.
func v5SetTransforms(specs []*suite.EvaluatorSpec, ts map[suite.Position]*suite.Transform) {
	for _, s := range specs {
		if s == nil {
			continue
		}
		if t, ok := ts[s.Pos]; ok {
			s.Transform = t
		}
		v5SetTransforms(s.Members, ts)
	}
}

// v5TestTransform reads a test's `options.transform` over default_test's (5.x merges the
// options key by key, then renders them with the test's vars); nil for none.
func (l *reader) v5TestTransform(sx *v5Suite, own *suite.Entry, render func(*yaml.Node) *yaml.Node, id string, fail func(*yaml.Node, string, ...any)) *suite.Transform {
	var v *yaml.Node
	if sx.options != nil {
		v = suite.ValueOf(sx.options, "transform")
	}
	if own != nil && suite.Deref(own.Value) != nil && suite.Deref(own.Value).Kind == yaml.MappingNode && suite.HasKey(suite.Deref(own.Value), "transform") {
		v = suite.ValueOf(suite.Deref(own.Value), "transform")
	}
	if v == nil {
		return nil
	}
	// An invalid value as written was reported with its options (v5Options: the test is not
	// loaded, or the file has errors); one that only its rendering spoiled is reported here.
	if _, ok := l.v5Transform(v, "", func(*yaml.Node, string, ...any) {}); !ok {
		return nil
	}
	t, _ := l.v5Transform(render(v), "options transform", fail)
	return t
}

// v5CaseContext records what a transform is told about the case: its vars and the prompt
// it was rendered from.
func (l *reader) v5CaseContext(c *suite.Case, vars *yaml.Node, hasVars bool, p v5Prompt, fromPrompts bool) {
	if hasVars && vars != nil && len(vars.Content) > 0 {
		if b, err := suite.ToJSON(vars); err == nil {
			c.Vars = b
		}
	}
	if fromPrompts {
		c.Prompt = &suite.PromptRef{ID: p.id, Label: p.label, Raw: c.Question}
	}
}
