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
	caseListKeys = []string{"evalcases", "cases", "eval_cases"}
	headerKeys   = []string{"$schema", "description", "dataset", "target", "execution", "evaluators", "evaluator"}
	topKeys      = append(append([]string{}, headerKeys...), caseListKeys...)
	execKeys     = []string{"target", "evaluators"}
)

// loadGCPercent is the garbage collector's target while a YAML file loads (GOGC's default is 100).
const loadGCPercent = 50

// loadYAML parses a whole YAML eval file; the node tree is dropped as the cases are converted.
func (l *loader) loadYAML() {
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
	switch l.dialectOf(root) {
	case "":
		return
	case DialectPromptfoo:
		l.loadPF(root)
		return
	case Dialect5:
		l.loadV5(root)
		return
	case Dialect4:
		l.loadV4(root)
		return
	}
	l.s.setDialect(Dialect25)
	list := l.header(root, true)
	if list == nil {
		l.errorf(&yaml.Node{Line: root.Line, Column: root.Column}, KindStructure, "",
			"missing %q: an eval file needs a list of cases under %q (AgentV 4.x) or %q (AgentV 2.5; also accepted: %q, %q)", "tests", "tests", "evalcases", "cases", "eval_cases")
		return
	}
	if list.Kind != yaml.SequenceNode {
		l.errorf(list, KindStructure, "", "the case list must be a list of cases, got %s", kindName(list))
		return
	}
	if len(list.Content) == 0 {
		l.warnf(list, KindStructure, "", "the case list is empty")
	}
	for i := range list.Content {
		// Each case's subtree is garbage once converted (aliases into it hold their own
		// pointers), so the tree does not stay alive beside the loaded cases.
		item := list.Content[i]
		list.Content[i] = nil
		l.addCase(l.parseCase(item))
	}
}

// evalRoot reads and parses the eval file (kept in l.src for positions), whose root must be a
// mapping (else message); nil when it is unusable (reported). check, when set, vets the source first.
func (l *loader) evalRoot(check func(src []byte) bool, message func(got string) string) *yaml.Node {
	src, err := safefile.ReadFile(l.s.Abs, safefile.LimitEvalFile)
	if err != nil {
		l.readError(0, err)
		return nil
	}
	if check != nil && !check(src) {
		return nil
	}
	l.src = src
	if doc := l.parseYAML(src); doc != nil {
		return l.rootOf(doc, yaml.MappingNode, message)
	}
	return nil
}

// addCase appends a successfully parsed case.
func (l *loader) addCase(c *Case) {
	switch {
	case c == nil:
	case l.opts.OnCase != nil:
		if !l.opts.OnCase(c) {
			l.stopped = true
		}
	default:
		l.s.Cases = append(l.s.Cases, c)
	}
}

// header reads the suite-level keys of root and returns the case list node (nil when absent).
// With cases false (a JSONL sidecar) case lists are unknown keys.
func (l *loader) header(root *yaml.Node, cases bool) *yaml.Node {
	es := entries(root)
	l.dupes(es, "")
	known := headerKeys
	if cases {
		known = topKeys
	}
	var lists []*kv
	var execEvals, evals, evaluator *kv
	for i := range es {
		e := &es[i]
		// `name` is a 4.x key that a sidecar may carry; 2.5 YAML names its dataset with `dataset`.
		if (!cases || e.key != "name") && l.suiteKey(e) {
			continue
		}
		switch e.key {
		case "dataset":
			if v := l.scalar(e); v != "" {
				l.s.Dataset = v
			}
		case "execution":
			l.execution(e, "", execKeys, "target and evaluators", l.suiteError, func(x *kv) bool {
				switch {
				case x.key == "target": // execution.target wins over the legacy root-level target
					l.execTarget(x)
				case x.key == "evaluators":
					execEvals = x
				case x.key == "assertions" && !cases: // AgentV 4.x keeps a JSONL suite's assertions here
					l.sidecarAsserts = x
				case x.key == "trials" && !cases: // a JSONL suite's AgentV 4.x trials
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
				l.unknownKey(*e, "in a JSONL sidecar (cases belong in the .jsonl file)", "", known)
				continue
			}
			lists = append(lists, e)
		default:
			l.unknownKey(*e, "at the top level", "", known)
		}
	}
	var list *yaml.Node
	if len(lists) > 0 {
		chosen := slices.MinFunc(lists, func(a, b *kv) int { // canonical names win
			return cmp.Compare(slices.Index(caseListKeys, a.key), slices.Index(caseListKeys, b.key))
		})
		for _, e := range lists {
			if e != chosen {
				l.warnf(e.kn, KindIgnored, "", "%q ignored: %q is also set", e.key, chosen.key)
			}
		}
		list = chosen.v
	}
	l.suiteList = l.evaluatorSource(execEvals, evals, evaluator, "")
	if l.suiteList != nil {
		l.s.Evaluators = l.suiteList.specs
	}
	return list
}

// suiteKey reads a top-level key whose meaning both dialects share; false for any other key.
func (l *loader) suiteKey(e *kv) bool {
	switch e.key {
	case "$schema":
	case "name":
		if v := l.scalar(e); v != "" {
			l.s.Name, l.s.Dataset = v, v
		}
	case "description":
		// Free text the runtime never reads: a wrong type is only worth a warning.
		if e.v.Kind == yaml.ScalarNode && !isNull(e.v) {
			l.s.Description = e.v.Value
		} else if !isNull(e.v) {
			l.warnf(e.v, KindStructure, "", "%q should be a string, got %s (ignored)", e.key, kindName(e.v))
		}
	case "target":
		if l.s.Target == "" {
			l.s.Target = l.scalar(e)
		}
	default:
		return false
	}
	return true
}

// execution walks an `execution` mapping, the same block in every dialect with a key table of
// its own: read takes each key the dialect knows and returns false for any other, reported as
// unknown against known. A value that is not a mapping is reported through bad, naming what
// the mapping holds.
func (l *loader) execution(x *kv, id string, known []string, holds string, bad func(at *yaml.Node, format string, args ...any), read func(x *kv) bool) {
	if x == nil || isNull(x.v) {
		return
	}
	if x.v.Kind != yaml.MappingNode {
		bad(x.v, "%q must be a mapping with %s, got %s", "execution", holds, kindName(x.v))
		return
	}
	xs := entries(x.v)
	l.dupes(xs, id)
	for i := range xs {
		if !read(&xs[i]) {
			l.unknownKey(xs[i], "in execution", id, known)
		}
	}
}

// mappingEntries returns the entries of a suite-level mapping, duplicate keys warned; false when
// it is null or, reported as want (a format with args), not a mapping.
func (l *loader) mappingEntries(e *kv, want string, args ...any) ([]kv, bool) {
	if isNull(e.v) {
		return nil, false
	}
	if e.v.Kind != yaml.MappingNode {
		l.errorf(e.v, KindStructure, "", want+", got %s", append(args, kindName(e.v))...)
		return nil, false
	}
	es := entries(e.v)
	l.dupes(es, "")
	return es, true
}

// suiteError reports a suite-level structure error (the bad of a suite's execution).
func (l *loader) suiteError(at *yaml.Node, format string, args ...any) {
	l.errorf(at, KindStructure, "", format, args...)
}

// execTarget reads the suite's `execution.target`, which wins over a top-level `target`.
func (l *loader) execTarget(x *kv) {
	if t := l.scalar(x); t != "" {
		l.s.Target = t
	}
}

// threshold reads an execution `threshold`, a number from 0 to 1: nil when it is null or
// wrong (reported through bad).
func threshold(x *kv, bad func(at *yaml.Node, format string, args ...any)) *float64 {
	if isNull(x.v) {
		return nil
	}
	if v, ok := number(x.v); ok && v >= 0 && v <= 1 {
		return &v
	}
	bad(x.v, "execution %q must be a number from 0 to 1, got %s", "threshold", describe(x.v))
	return nil
}

// scalar returns a scalar value as text; null gives "", and a non-scalar is an error.
func (l *loader) scalar(e *kv) string {
	if isNull(e.v) {
		return ""
	}
	if e.v.Kind != yaml.ScalarNode {
		l.errorf(e.v, KindStructure, "", "%q must be a string, got %s", e.key, kindName(e.v))
		return ""
	}
	return l.str(e.v.Value)
}

// finishSuiteList reports problems of the suite-level evaluators once per file, naming the
// first case that uses them, or no case when none does.
func (l *loader) finishSuiteList() {
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
