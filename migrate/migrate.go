// Package migrate rewrites an AgentV 2.5 or 4.x eval file, or a targets file, as AgentV 5.x
// writes it, following the checklist of AgentV's migration guide. It edits the parsed YAML
// node tree in place and encodes it again, so comments, key order and quoting survive
// wherever the YAML library keeps them. What cannot be rewritten mechanically is left as it
// is, with a note naming its line for a human to finish.
package migrate

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v4"
)

// Kinds of file migrate reads.
const (
	KindEval    = "eval"
	KindTargets = "targets"
	KindCases   = "cases" // a list of raw cases, which an eval file's tests names
)

// Note is one thing the migration did, or one it left for a human.
type Note struct {
	Line   int
	Text   string
	Manual bool // needs a human: left as it was, or removed with no 5.x home
}

// Result is a migrated file.
type Result struct {
	Out     []byte // the 5.x file; the input itself when nothing changed
	Kind    string // KindEval, KindTargets or KindCases
	Dialect string // what the file was read as: "2.5", "4" or "5" (eval and case files)
	Notes   []Note
	Changed bool
}

// Error is a file migrate cannot read, with its position when it has one.
type Error struct {
	File string
	Line int
	Msg  string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return e.File + ": " + e.Msg
}

// caseLists are the keys of a file's case list: 4.x and 5.x, then 2.5's spellings.
var legacyCaseLists = []string{"evalcases", "cases", "eval_cases"}

// File migrates src, read from path (named in notes and errors). A file already written for
// 5.x comes back byte for byte, with Changed false.
func File(path string, src []byte) (*Result, error) {
	fail := func(line int, format string, args ...any) error {
		return &Error{File: path, Line: line, Msg: fmt.Sprintf(format, args...)}
	}
	if ext := strings.ToLower(filepath.Ext(path)); ext == ".jsonl" || ext == ".json" {
		return nil, fail(0, "migrate rewrites YAML eval and targets files; a %s file has no comments to keep and its cases are read as they are by 5.x (tests: file://%s)", ext, filepath.Base(path))
	}
	doc, err := parse(src)
	if err != nil {
		return nil, yamlError(path, err)
	}
	root := doc.Content[0]
	m := &migration{file: path, root: root}
	blanks := spacing(root, src) // before any key moves
	res := &Result{Kind: KindEval}
	var legacy, tests *yaml.Node
	if root.Kind == yaml.MappingNode {
		for _, k := range legacyCaseLists {
			if kn := keyNode(root, k); kn != nil && legacy == nil {
				legacy = kn
			}
		}
		tests = keyNode(root, "tests")
	}
	switch {
	case isCaseList(root):
		res.Kind, res.Dialect = KindCases, "4"
		m.caseFile(root)
	case root.Kind != yaml.MappingNode:
		return nil, fail(root.Line, "not an AgentV eval, case or targets file: the top level must be a mapping with %q (or AgentV 2.5's %q), or a list of cases, got %s", "tests", "evalcases", kindName(root))
	case tests != nil && legacy != nil:
		return nil, fail(legacy.Line, "the file mixes two dialects: %q (AgentV 4.x/5.x) at line %d and %q (AgentV 2.5) at line %d; keep one list of cases", "tests", tests.Line, legacy.Value, legacy.Line)
	case legacy != nil:
		res.Dialect = "2.5"
		m.v2 = true
		m.from25()
		m.to5()
	case tests != nil || has(root, "scenarios"):
		res.Dialect = "4"
		m.to5()
	case has(root, "targets"):
		res.Kind = KindTargets
		m.targetsFile()
	default:
		return nil, fail(root.Line, "not an AgentV eval or targets file: no %q list of cases (AgentV 4.x/5.x), no %q (AgentV 2.5) and no %q (a targets file)", "tests", "evalcases", "targets")
	}
	if m.edited {
		m.notes = append(m.notes, m.later...)
	}
	if res.Dialect == "4" && len(m.notes) == 0 {
		res.Dialect = "5" // nothing of 4.x in it
	}
	res.Notes = m.notes
	if !m.edited {
		res.Out = src
		return res, nil
	}
	out, err := encode(doc, src, blanks, m.like)
	if err != nil {
		return nil, &Error{File: path, Msg: "encoding the migrated file: " + err.Error()}
	}
	res.Out, res.Changed = out, !bytes.Equal(out, src)
	return res, nil
}

// yamlLine is the position the YAML library writes into its messages.
var yamlLine = regexp.MustCompile(`^yaml: (?:line (\d+): )?`)

// yamlError positions a parse error at its line: "file:3: not valid YAML: …".
func yamlError(path string, err error) error {
	if e := (*Error)(nil); errors.As(err, &e) {
		e.File = path
		return e
	}
	msg := err.Error()
	var line int
	if sub := yamlLine.FindStringSubmatch(msg); sub != nil {
		line, _ = strconv.Atoi(sub[1])
		msg = "not valid YAML: " + msg[len(sub[0]):]
	}
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i] + " …"
	}
	return &Error{File: path, Line: line, Msg: msg}
}

// parse reads src as exactly one YAML document.
func parse(src []byte) (*yaml.Node, error) {
	if len(bytes.TrimSpace(src)) == 0 {
		return nil, errors.New("the file is empty: nothing to migrate")
	}
	dec := yaml.NewDecoder(bytes.NewReader(src))
	var doc yaml.Node
	if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
		return nil, errors.New("the file holds no YAML value (only comments?): nothing to migrate")
	} else if err != nil {
		return nil, err
	}
	var more yaml.Node
	if err := dec.Decode(&more); err == nil {
		return nil, &Error{Line: more.Line, Msg: "a second YAML document starts here; an eval or targets file is one document"}
	} else if !errors.Is(err, io.EOF) {
		return nil, err
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil, errors.New("the file holds no YAML document")
	}
	return &doc, nil
}

func kindName(n *yaml.Node) string {
	switch deref(n).Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	case yaml.ScalarNode:
		if isNull(n) {
			return "nothing (null)"
		}
		v := deref(n).Value
		if r := []rune(v); len(r) > 40 {
			v = string(r[:40]) + "…"
		}
		return fmt.Sprintf("%q", v)
	}
	return "something else"
}

// migration is one file's rewrite: what it changed and what it left for a human.
type migration struct {
	file   string
	root   *yaml.Node
	v2     bool // the file was AgentV 2.5
	notes  []Note
	edited bool
	// movedExpected maps a test to the key of the expected_output moved into its vars.
	movedExpected map[*yaml.Node]*yaml.Node
	// like maps a top-level key that took another's place to that key, for spacing.
	like map[*yaml.Node]*yaml.Node
	seen map[*yaml.Node]bool // grader lists and entries rewritten (anchors reach them twice)
	// later are notes that matter only when the file is rewritten (it was not 5.x).
	later []Note
}

// did records a change at n's line (fallback: the root's).
func (m *migration) did(n *yaml.Node, format string, args ...any) {
	m.edited = true
	m.notes = append(m.notes, Note{Line: lineOf(n, m.root.Line), Text: fmt.Sprintf(format, args...)})
}

// human records what a person must finish at n's line; edited says whether the file changed.
func (m *migration) human(n *yaml.Node, edited bool, format string, args ...any) {
	m.edited = m.edited || edited
	m.notes = append(m.notes, Note{Line: lineOf(n, m.root.Line), Text: fmt.Sprintf(format, args...), Manual: true})
}

// renameKey renames key to `to` in mapping n and records it; where is the note's context.
func (m *migration) renameKey(n *yaml.Node, key, to, where string) bool {
	kn := keyNode(n, key)
	if kn == nil {
		return false
	}
	if has(n, to) {
		m.human(kn, false, "%s%s: left as it is: %q is also set; keep one of them under %q", where, key, to, to)
		return false
	}
	rename(n, key, to)
	m.did(kn, "%s%s → %s", where, key, to)
	return true
}
