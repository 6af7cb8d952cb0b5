package suite

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v4"

	"github.com/agentv/action/internal/textfmt"
)

// The Agent Skills evals format (a `.json` eval file, usually named evals.json), as AgentV 4.x
// reads it: {skill_name, evals: [{id, prompt, expected_output, files, assertions}]}. Each eval
// becomes a 4.x test: the prompt its input, expected_output its expected answer and criteria,
// files its input files (paths from the file's folder), and each assertion string a freeform
// llm-grader named assertion-N that judges with that string as the criteria.

var (
	skillsTopKeys  = []string{"skill_name", "evals"}
	skillsEvalKeys = []string{"id", "prompt", "expected_output", "files", "assertions", "should_trigger"}
)

// loadSkills reads an Agent Skills evals file.
func (l *loader) loadSkills() {
	// Valid JSON is valid YAML: the YAML parser gives every value its line and column.
	root := l.evalRoot(l.jsonSyntax, func(got string) string {
		return fmt.Sprintf("an Agent Skills evals file must be a JSON object with an %q list, got %s", "evals", got)
	})
	if root == nil {
		return
	}
	es := entries(root)
	l.dupes(es, "")
	f := kvs(es)
	l.unknownKeys(es, "at the top level", "", skillsTopKeys)
	if e := f.get("skill_name"); e != nil && !isNull(e.v) {
		if !isString(e.v) {
			l.errorf(e.v, KindStructure, "", "%q must be a string, got %s", "skill_name", describe(e.v))
		} else if v := strings.TrimSpace(e.v.Value); v != "" {
			l.s.Name, l.s.Dataset = v, v
		}
	}
	evals := f.get("evals")
	switch {
	case evals == nil || isNull(evals.v):
		at := root
		if evals != nil {
			at = evals.kn
		}
		l.errorf(at, KindStructure, "", "an Agent Skills evals file needs an %q list", "evals")
		return
	case evals.v.Kind != yaml.SequenceNode:
		l.errorf(evals.v, KindStructure, "", "%q must be a list of evals, got %s", "evals", kindName(evals.v))
		return
	case len(evals.v.Content) == 0:
		l.errorf(evals.v, KindStructure, "", "the %q list is empty", "evals")
		return
	}
	for _, item := range evals.v.Content {
		l.skillsEval(item)
	}
}

// skillsEval converts one eval into a 4.x test and loads it.
func (l *loader) skillsEval(item *yaml.Node) {
	n := deref(item)
	if n == nil || n.Kind != yaml.MappingNode {
		l.errorf(item, KindCase, "", "an eval must be an object with id and prompt, got %s (case not loaded)", kindName(n))
		return
	}
	es := entries(n)
	l.dupes(es, "")
	f := kvs(es)
	id := ""
	idKV := f.get("id")
	if idKV != nil && idKV.v.Kind == yaml.ScalarNode && !isNull(idKV.v) {
		id = idKV.v.Value
		if f, ok := number(idKV.v); ok {
			id = textfmt.JSNumber(f) // as JavaScript's String(id): 1.0 is "1"
		}
	}
	for _, e := range es {
		switch {
		case e.key == "should_trigger":
			l.warnf(e.kn, KindIgnored, id, "%q is not used when running evals (ignored, as AgentV 4.x does)", e.key)
		case !slices.Contains(skillsEvalKeys, e.key):
			l.unknownKey(e, "in eval", id, skillsEvalKeys)
		}
	}
	failed := false
	fail := func(at *yaml.Node, format string, args ...any) {
		failed = true
		l.errorf(at, KindCase, id, "%s", fmt.Sprintf(format, args...)+notLoaded(id))
	}
	if id == "" {
		at := n
		if idKV != nil {
			at = idKV.v
		}
		fail(at, "eval needs an %q (a number)", "id")
	}
	prompt := f.get("prompt")
	if prompt == nil || prompt.v.Kind != yaml.ScalarNode || isNull(prompt.v) || strings.TrimSpace(prompt.v.Value) == "" {
		at := n
		if prompt != nil {
			at = prompt.v
		}
		fail(at, "eval needs a %q: the task given to the agent, a non-empty string", "prompt")
	}
	expected := f.get("expected_output")
	if expected != nil && !isNull(expected.v) && !isString(expected.v) {
		fail(expected.v, "%q must be a string, got %s", "expected_output", describe(expected.v))
	}
	var files []string
	if e := f.get("files"); e != nil && !isNull(e.v) {
		if e.v.Kind != yaml.SequenceNode {
			fail(e.v, "%q must be a list of file paths, got %s", "files", kindName(e.v))
		}
		for _, p := range e.v.Content {
			if p = deref(p); !isString(p) || strings.TrimSpace(p.Value) == "" {
				fail(p, "%q items must be file paths, got %s", "files", describe(p))
				continue
			}
			abs := absPath(l.s.Dir, p.Value)
			if fi, err := os.Stat(abs); err != nil || !fi.Mode().IsRegular() {
				l.warnf(p, KindMissingFile, id, "file %q not found (looked for %s)", p.Value, displayPath(abs, l.cwd))
			}
			files = append(files, abs)
		}
	}
	// Each assertion string is its own llm-grader, numbered by its place in the list.
	var graders []*yaml.Node
	criteria := map[string]string{}
	asserts := f.get("assertions")
	if asserts != nil && !isNull(asserts.v) {
		if asserts.v.Kind != yaml.SequenceNode {
			fail(asserts.v, "%q must be a list of strings, got %s", "assertions", kindName(asserts.v))
		}
		for i, a := range asserts.v.Content {
			if a = deref(a); !isString(a) {
				fail(a, "%q items must be strings, got %s", "assertions", describe(a))
				continue
			}
			if strings.TrimSpace(a.Value) == "" {
				l.warnf(a, KindEvaluator, id, "empty assertion string skipped")
				continue
			}
			name := fmt.Sprintf("assertion-%d", i+1)
			criteria[name] = strings.TrimSpace(a.Value)
			graders = append(graders, mapping(a, "type", strNode(a, "llm-grader"), "name", strNode(a, name)))
		}
	}
	if failed {
		return
	}

	// The eval as a 4.x test. Without expected_output its criteria is empty, as in 4.x.
	test := mapping(n)
	put := func(key string, at, v *yaml.Node) {
		test.Content = append(test.Content, strNode(at, key), v)
	}
	put("id", idKV.kn, strNode(idKV.v, id))
	put("input", prompt.kn, prompt.v)
	if expected != nil && !isNull(expected.v) {
		put("criteria", expected.kn, expected.v)
		put("expected_output", expected.kn, expected.v)
	} else {
		put("criteria", n, strNode(n, ""))
	}
	if asserts != nil && !isNull(asserts.v) {
		put("assertions", asserts.kn, seqNode(asserts.v, graders...))
	}
	c := l.v4Test(&v4Suite{}, test)
	if c == nil {
		return
	}
	for _, p := range files {
		c.InputFiles = appendUnique(c.InputFiles, p)
	}
	for _, e := range c.Evaluators {
		if text, ok := criteria[e.Name]; ok && e.Type == TypeLLMJudge {
			// The string is the grader's criteria; it is also its inline prompt, as 4.x writes
			// it (an inline prompt without template variables is criteria there too).
			e.Criteria = text
			e.Prompt = &PromptSpec{Kind: PromptInline, Text: text, Display: text}
		}
	}
	l.addCase(c)
}

// jsonSyntax checks that src is one JSON value; when not, a diagnostic says where.
func (l *loader) jsonSyntax(src []byte) bool {
	var v any
	err := json.Unmarshal(src, &v)
	if err == nil {
		return true
	}
	d := Diagnostic{File: l.s.Path, Severity: SeverityError, Kind: KindSyntax, Message: "invalid JSON: " + err.Error()}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		line, col := textPos(string(src), int(min(se.Offset, int64(len(src)))))
		d.Line, d.Col = line, max(col-1, 1) // the offset is past the byte in error
	}
	l.add(d)
	return false
}
