package suite

import (
	"cmp"
	"fmt"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v4"

	"github.com/agentv/action/internal/safefile"
)

// Top-level keys of an eval file (and of a JSONL sidecar, without the case lists).
var (
	CaseListKeys = []string{"evalcases", "cases", "eval_cases"}
	headerKeys   = []string{"$schema", "description", "dataset", "target", "execution", "evaluators", "evaluator"}
	topKeys      = append(append([]string{}, headerKeys...), CaseListKeys...)
	execKeys     = []string{"target", "evaluators"}
)

// loadGCPercent is the garbage collector's target while a YAML file loads (GOGC's default is 100).
const loadGCPercent = 50

// loadYAML parses a whole YAML eval file; the node tree is dropped as the cases are converted.
func (l *Reader) loadYAML() {
	// The library parses a file whole into one node tree (several KB a case), most of it
	// garbage once the cases are built: a tighter garbage-collector target while the file loads
	// keeps the peak near what is live (a 5,000-case file: about 15 MiB less, for 0.05 s).
	if prev := debug.SetGCPercent(loadGCPercent); prev >= 0 && prev < loadGCPercent {
		debug.SetGCPercent(prev) // the user asked for tighter still (GOGC)
	} else {
		defer debug.SetGCPercent(prev)
	}
	root := l.evalRoot(nil, func(got string) string {
		return fmt.Sprintf("an eval file must be a mapping with an %q list of cases, got %s", "evalcases", got)
	})
	if root == nil {
		return
	}
	// Each dialect has its own front-end; 2.5's is the rest of this function.
	switch d := l.dialectOf(root); d {
	case "":
		return
	case Dialect4:
		l.loadV4(root)
		return
	case Dialect25:
	default:
		fe, _ := frontEndOf(d) // dialectOf returns only registered ones
		fe.Load(l, root)
		return
	}
	l.Suite.SetDialect(Dialect25)
	list := l.header(root, true)
	if list == nil {
		l.Errorf(&yaml.Node{Line: root.Line, Column: root.Column}, KindStructure, "",
			"missing %q: an eval file needs a list of cases under %q (AgentV 4.x) or %q (AgentV 2.5; also accepted: %q, %q)", "tests", "tests", "evalcases", "cases", "eval_cases")
		return
	}
	if list.Kind != yaml.SequenceNode {
		l.Errorf(list, KindStructure, "", "the case list must be a list of cases, got %s", KindName(list))
		return
	}
	if len(list.Content) == 0 {
		l.Warnf(list, KindStructure, "", "the case list is empty")
	}
	for i := range list.Content {
		// Each case's subtree is garbage once converted (aliases into it hold their own
		// pointers), so the tree does not stay alive beside the loaded cases.
		item := list.Content[i]
		list.Content[i] = nil
		l.AddCase(l.parseCase(item))
	}
}

// evalRoot reads and parses the eval file (kept in l.src for positions), whose root must be a
// mapping (else message); nil when it is unusable (reported). check, when set, vets the source first.
func (l *Reader) evalRoot(check func(src []byte) bool, message func(got string) string) *yaml.Node {
	src, err := safefile.ReadFile(l.Suite.Abs, safefile.LimitEvalFile)
	if err != nil {
		l.readError(0, err)
		return nil
	}
	if check != nil && !check(src) {
		return nil
	}
	l.Src = src
	if doc := l.ParseYAML(src); doc != nil {
		return l.RootOf(doc, yaml.MappingNode, message)
	}
	return nil
}

// AddCase appends a successfully parsed case.
func (l *Reader) AddCase(c *Case) {
	switch {
	case c == nil:
	case l.opts.OnCase != nil:
		if !l.opts.OnCase(c) {
			l.stopped = true
		}
	default:
		l.Suite.Cases = append(l.Suite.Cases, c)
	}
}

// header reads the suite-level keys of root and returns the case list node (nil when absent).
// With cases false (a JSONL sidecar) case lists are unknown keys.
func (l *Reader) header(root *yaml.Node, cases bool) *yaml.Node {
	es := MapEntries(root)
	l.Dupes(es, "")
	known := headerKeys
	if cases {
		known = topKeys
	}
	var lists []*Entry
	var execEvals, evals, evaluator *Entry
	for i := range es {
		e := &es[i]
		// `name` is a 4.x key that a sidecar may carry; 2.5 YAML names its dataset with `dataset`.
		if (!cases || e.Key != "name") && l.SuiteKey(e) {
			continue
		}
		switch e.Key {
		case "dataset":
			if v := l.Scalar(e); v != "" {
				l.Suite.Dataset = v
			}
		case "execution":
			l.Execution(e, "", execKeys, "target and evaluators", l.SuiteError, func(x *Entry) bool {
				switch {
				case x.Key == "target": // execution.target wins over the legacy root-level target
					l.execTarget(x)
				case x.Key == "evaluators":
					execEvals = x
				case x.Key == "assertions" && !cases: // AgentV 4.x keeps a JSONL suite's assertions here
					l.sidecarAsserts = x
				case x.Key == "trials" && !cases: // a JSONL suite's AgentV 4.x trials
					l.v4Trials(x)
				default:
					return false
				}
				return true
			})
		case "evaluators":
			evals = e
		case "evaluator":
			evaluator = e
		case "evalcases", "cases", "eval_cases":
			if !cases {
				l.UnknownKey(*e, "in a JSONL sidecar (cases belong in the .jsonl file)", "", known)
				continue
			}
			lists = append(lists, e)
		default:
			l.UnknownKey(*e, "at the top level", "", known)
		}
	}
	var list *yaml.Node
	if len(lists) > 0 {
		chosen := slices.MinFunc(lists, func(a, b *Entry) int { // canonical names win
			return cmp.Compare(slices.Index(CaseListKeys, a.Key), slices.Index(CaseListKeys, b.Key))
		})
		for _, e := range lists {
			if e != chosen {
				l.Warnf(e.KeyNode, KindIgnored, "", "%q ignored: %q is also set", e.Key, chosen.Key)
			}
		}
		list = chosen.Value
	}
	l.suiteList = l.EvaluatorSource(execEvals, evals, evaluator, "")
	if l.suiteList != nil {
		l.Suite.Evaluators = l.suiteList.Specs
	}
	return list
}

// SuiteKey reads a top-level key whose meaning both dialects share; false for any other key.
func (l *Reader) SuiteKey(e *Entry) bool {
	switch e.Key {
	case "$schema":
	case "name":
		if v := l.Scalar(e); v != "" {
			l.Suite.Name, l.Suite.Dataset = v, v
		}
	case "description":
		// Free text the runtime never reads: a wrong type is only worth a warning.
		if e.Value.Kind == yaml.ScalarNode && !IsNull(e.Value) {
			l.Suite.Description = e.Value.Value
		} else if !IsNull(e.Value) {
			l.Warnf(e.Value, KindStructure, "", "%q should be a string, got %s (ignored)", e.Key, KindName(e.Value))
		}
	case "target":
		if l.Suite.Target == "" {
			l.Suite.Target = l.Scalar(e)
		}
	default:
		return false
	}
	return true
}

// Execution walks an `execution` mapping, the same block in every dialect with a key table of
// its own: read takes each key the dialect knows and returns false for any other, reported as
// unknown against known. A value that is not a mapping is reported through bad, naming what
// the mapping holds.
func (l *Reader) Execution(x *Entry, id string, known []string, holds string, bad func(at *yaml.Node, format string, args ...any), read func(x *Entry) bool) {
	if x == nil || IsNull(x.Value) {
		return
	}
	if x.Value.Kind != yaml.MappingNode {
		bad(x.Value, "%q must be a mapping with %s, got %s", "execution", holds, KindName(x.Value))
		return
	}
	xs := MapEntries(x.Value)
	l.Dupes(xs, id)
	for i := range xs {
		if !read(&xs[i]) {
			l.UnknownKey(xs[i], "in execution", id, known)
		}
	}
}

// MappingEntries returns the entries of a suite-level mapping, duplicate keys warned; false when
// it is null or, reported as want (a format with args), not a mapping.
func (l *Reader) MappingEntries(e *Entry, want string, args ...any) ([]Entry, bool) {
	if IsNull(e.Value) {
		return nil, false
	}
	if e.Value.Kind != yaml.MappingNode {
		l.Errorf(e.Value, KindStructure, "", want+", got %s", append(args, KindName(e.Value))...)
		return nil, false
	}
	es := MapEntries(e.Value)
	l.Dupes(es, "")
	return es, true
}

// SuiteError reports a suite-level structure error (the bad of a suite's execution).
func (l *Reader) SuiteError(at *yaml.Node, format string, args ...any) {
	l.Errorf(at, KindStructure, "", format, args...)
}

// execTarget reads the suite's `execution.target`, which wins over a top-level `target`.
func (l *Reader) execTarget(x *Entry) {
	if t := l.Scalar(x); t != "" {
		l.Suite.Target = t
	}
}

// ParseThreshold reads an execution `threshold`, a number from 0 to 1: nil when it is null or
// wrong (reported through bad).
func ParseThreshold(x *Entry, bad func(at *yaml.Node, format string, args ...any)) *float64 {
	if IsNull(x.Value) {
		return nil
	}
	if v, ok := Number(x.Value); ok && v >= 0 && v <= 1 {
		return &v
	}
	bad(x.Value, "execution %q must be a number from 0 to 1, got %s", "threshold", Describe(x.Value))
	return nil
}

// Scalar returns a scalar value as text; null gives "", and a non-scalar is an error.
func (l *Reader) Scalar(e *Entry) string {
	if IsNull(e.Value) {
		return ""
	}
	if e.Value.Kind != yaml.ScalarNode {
		l.Errorf(e.Value, KindStructure, "", "%q must be a string, got %s", e.Key, KindName(e.Value))
		return ""
	}
	return l.str(e.Value.Value)
}

// finishSuiteList reports problems of the suite-level evaluators once per file, naming the
// first case that uses them, or no case when none does.
func (l *Reader) finishSuiteList() {
	sl := l.suiteList
	if sl == nil || sl.reported {
		return
	}
	sl.reported = true
	first := ""
	if len(sl.users) > 0 {
		first = sl.users[0]
	}
	for _, d := range sl.diags {
		d.CaseID = first
		if n := len(sl.users); d.Severity == SeverityError && n > 0 {
			cases := fmt.Sprintf("%d cases", n)
			if n == 1 {
				cases = "1 case"
			}
			d.Message += fmt.Sprintf("; %s using the suite evaluators not loaded: %s", cases, idList(sl.users))
		}
		l.add(d)
	}
}

// idList quotes up to five case ids.
func idList(ids []string) string {
	quoted := make([]string, 0, 5)
	for _, id := range ids[:min(len(ids), 5)] {
		quoted = append(quoted, strconv.Quote(id))
	}
	out := strings.Join(quoted, ", ")
	if len(ids) > 5 {
		out += fmt.Sprintf(", and %d more", len(ids)-5)
	}
	return out
}
