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
func (l *Reader) loadSkills() {
	// Valid JSON is valid YAML: the YAML parser gives every value its line and column.
	root := l.evalRoot(l.jsonSyntax, func(got string) string {
		return fmt.Sprintf("an Agent Skills evals file must be a JSON object with an %q list, got %s", "evals", got)
	})
	if root == nil {
		return
	}
	es := MapEntries(root)
	l.Dupes(es, "")
	f := EntryList(es)
	l.UnknownKeys(es, "at the top level", "", skillsTopKeys)
	if e := f.Get("skill_name"); e != nil && !IsNull(e.Value) {
		if !IsString(e.Value) {
			l.Errorf(e.Value, KindStructure, "", "%q must be a string, got %s", "skill_name", Describe(e.Value))
		} else if v := strings.TrimSpace(e.Value.Value); v != "" {
			l.Suite.Name, l.Suite.Dataset = v, v
		}
	}
	evals := f.Get("evals")
	switch {
	case evals == nil || IsNull(evals.Value):
		at := root
		if evals != nil {
			at = evals.KeyNode
		}
		l.Errorf(at, KindStructure, "", "an Agent Skills evals file needs an %q list", "evals")
		return
	case evals.Value.Kind != yaml.SequenceNode:
		l.Errorf(evals.Value, KindStructure, "", "%q must be a list of evals, got %s", "evals", KindName(evals.Value))
		return
	case len(evals.Value.Content) == 0:
		l.Errorf(evals.Value, KindStructure, "", "the %q list is empty", "evals")
		return
	}
	for _, item := range evals.Value.Content {
		l.skillsEval(item)
	}
}

// skillsEval converts one eval into a 4.x test and loads it.
func (l *Reader) skillsEval(item *yaml.Node) {
	n := Deref(item)
	if n == nil || n.Kind != yaml.MappingNode {
		l.Errorf(item, KindCase, "", "an eval must be an object with id and prompt, got %s (case not loaded)", KindName(n))
		return
	}
	es := MapEntries(n)
	l.Dupes(es, "")
	f := EntryList(es)
	id := ""
	idKV := f.Get("id")
	if idKV != nil && idKV.Value.Kind == yaml.ScalarNode && !IsNull(idKV.Value) {
		id = idKV.Value.Value
		if f, ok := Number(idKV.Value); ok {
			id = textfmt.JSNumber(f) // as JavaScript's String(id): 1.0 is "1"
		}
	}
	for _, e := range es {
		switch {
		case e.Key == "should_trigger":
			l.Warnf(e.KeyNode, KindIgnored, id, "%q is not used when running evals (ignored, as AgentV 4.x does)", e.Key)
		case !slices.Contains(skillsEvalKeys, e.Key):
			l.UnknownKey(e, "in eval", id, skillsEvalKeys)
		}
	}
	failed := false
	fail := func(at *yaml.Node, format string, args ...any) {
		failed = true
		l.Errorf(at, KindCase, id, "%s", fmt.Sprintf(format, args...)+NotLoaded(id))
	}
	if id == "" {
		at := n
		if idKV != nil {
			at = idKV.Value
		}
		fail(at, "eval needs an %q (a number)", "id")
	}
	prompt := f.Get("prompt")
	if prompt == nil || prompt.Value.Kind != yaml.ScalarNode || IsNull(prompt.Value) || strings.TrimSpace(prompt.Value.Value) == "" {
		at := n
		if prompt != nil {
			at = prompt.Value
		}
		fail(at, "eval needs a %q: the task given to the agent, a non-empty string", "prompt")
	}
	expected := f.Get("expected_output")
	if expected != nil && !IsNull(expected.Value) && !IsString(expected.Value) {
		fail(expected.Value, "%q must be a string, got %s", "expected_output", Describe(expected.Value))
	}
	var files []string
	if e := f.Get("files"); e != nil && !IsNull(e.Value) {
		if e.Value.Kind != yaml.SequenceNode {
			fail(e.Value, "%q must be a list of file paths, got %s", "files", KindName(e.Value))
		}
		for _, p := range e.Value.Content {
			if p = Deref(p); !IsString(p) || strings.TrimSpace(p.Value) == "" {
				fail(p, "%q items must be file paths, got %s", "files", Describe(p))
				continue
			}
			abs := AbsPath(l.Suite.Dir, p.Value)
			if fi, err := os.Stat(abs); err != nil || !fi.Mode().IsRegular() {
				l.Warnf(p, KindMissingFile, id, "file %q not found (looked for %s)", p.Value, DisplayPath(abs, l.Cwd))
			}
			files = append(files, abs)
		}
	}
	// Each assertion string is its own llm-grader, numbered by its place in the list.
	var graders []*yaml.Node
	criteria := map[string]string{}
	asserts := f.Get("assertions")
	if asserts != nil && !IsNull(asserts.Value) {
		if asserts.Value.Kind != yaml.SequenceNode {
			fail(asserts.Value, "%q must be a list of strings, got %s", "assertions", KindName(asserts.Value))
		}
		for i, a := range asserts.Value.Content {
			if a = Deref(a); !IsString(a) {
				fail(a, "%q items must be strings, got %s", "assertions", Describe(a))
				continue
			}
			if strings.TrimSpace(a.Value) == "" {
				l.Warnf(a, KindEvaluator, id, "empty assertion string skipped")
				continue
			}
			name := fmt.Sprintf("assertion-%d", i+1)
			criteria[name] = strings.TrimSpace(a.Value)
			graders = append(graders, Mapping(a, "type", StrNode(a, "llm-grader"), "name", StrNode(a, name)))
		}
	}
	if failed {
		return
	}

	// The eval as a 4.x test. Without expected_output its criteria is empty, as in 4.x.
	test := Mapping(n)
	put := func(key string, at, v *yaml.Node) {
		test.Content = append(test.Content, StrNode(at, key), v)
	}
	put("id", idKV.KeyNode, StrNode(idKV.Value, id))
	put("input", prompt.KeyNode, prompt.Value)
	if expected != nil && !IsNull(expected.Value) {
		put("criteria", expected.KeyNode, expected.Value)
		put("expected_output", expected.KeyNode, expected.Value)
	} else {
		put("criteria", n, StrNode(n, ""))
	}
	if asserts != nil && !IsNull(asserts.Value) {
		put("assertions", asserts.KeyNode, SeqNode(asserts.Value, graders...))
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
	l.AddCase(c)
}

// jsonSyntax checks that src is one JSON value; when not, a diagnostic says where.
func (l *Reader) jsonSyntax(src []byte) bool {
	var v any
	err := json.Unmarshal(src, &v)
	if err == nil {
		return true
	}
	d := Diagnostic{File: l.Suite.Path, Severity: SeverityError, Kind: KindSyntax, Message: "invalid JSON: " + err.Error()}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		line, col := textPos(string(src), int(min(se.Offset, int64(len(src)))))
		d.Line, d.Col = line, max(col-1, 1) // the offset is past the byte in error
	}
	l.add(d)
	return false
}
