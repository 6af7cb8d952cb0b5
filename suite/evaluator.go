package suite

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v4"
)

// Own settings per type; other keys of llm_judge and code_judge entries are pass-through config.
var (
	commonKeys   = []string{"name", "type", "weight", "config"}
	llmJudgeKeys = []string{"prompt", "promptPath", "prompt_path", "target", "model", "rubrics"}
	codeKeys     = []string{"script", "cwd", "target"}
	// v4GraderKeys are settings of 4.x llm-grader and code-grader entries that are not config;
	// v4LLMKeys those of llm-grader alone.
	v4GraderKeys = []string{"required", "min_score", "negate", "preprocessors"}
	v4LLMKeys    = []string{"max_steps", "maxSteps", "temperature"}
	promptKeys   = []string{"script", "config"}
)

// EvalList is one parsed evaluator declaration (a list, or a single `evaluator` map).
type EvalList struct {
	Specs    []*EvaluatorSpec
	diags    []Diagnostic // reported for each case that uses the list (suite list: once)
	failed   bool         // an error: cases using this list are not loaded
	users    []string     // suite list: ids of the cases that inherit it
	reported bool
}

func (el *EvalList) add(d Diagnostic) {
	if d.Severity == SeverityError {
		el.failed = true
	}
	el.diags = append(el.diags, d)
}

// AddListDiags reports a list's diagnostics for case id, each error with note(id); false after an error.
func (l *Reader) AddListDiags(el *EvalList, id string, note func(string) string) bool {
	ok := true
	for _, d := range el.diags {
		if d.Severity == SeverityError {
			ok = false
			d.Message += note(id)
		}
		d.CaseID = id
		l.add(d)
	}
	return ok
}

func (l *Reader) evWarn(el *EvalList, n *yaml.Node, kind, format string, args ...any) {
	el.add(l.at(n, SeverityWarning, kind, "", format, args...))
}

func (l *Reader) evError(el *EvalList, n *yaml.Node, format string, args ...any) {
	el.add(l.at(n, SeverityError, KindEvaluator, "", format, args...))
}

// EvaluatorSource parses the evaluators declared by a case or suite, by priority:
// `execution.evaluators`, `evaluators`, `evaluator`; nil when none is declared.
func (l *Reader) EvaluatorSource(execEvals, evals, evaluator *Entry, caseID string) *EvalList {
	chosen := firstSet([]*Entry{execEvals, evals, evaluator}, func(e, chosen *Entry) {
		name := chosen.Key
		if chosen == execEvals {
			name = "execution.evaluators"
		}
		l.Warnf(e.KeyNode, KindIgnored, caseID, "%q ignored: %q is also set", e.Key, name)
	})
	if chosen == nil {
		return nil
	}
	n := chosen.Value
	if cached, ok := l.lists[n]; ok {
		return cached
	}
	// JSONL lines repeat the same evaluators on every line; identical clean lists are parsed
	// once and shared so 100,000-line suites stay small (Pos then names the first line).
	var textKey string
	if l.Suite.Format == "jsonl" && l.Src == nil {
		if b, err := ToJSON(n); err == nil && len(b) < 4096 {
			textKey = chosen.Key + "\x00" + string(b)
			if cached, ok := l.listsByText[textKey]; ok {
				return cached
			}
		}
	}
	el := &EvalList{}
	switch {
	case chosen == evaluator && n.Kind == yaml.ScalarNode:
		// AgentV 2.x `evaluator: <kind>` names the default evaluator's kind; only llm_judge exists.
		// A known kind declares nothing: the suite's evaluators (or the default judge) apply.
		if t, ok := l.lookupType(n.Value); ok {
			if t.Name != TypeLLMJudge {
				l.Warnf(n, KindEvaluator, caseID, "evaluator kind %q given without settings is ignored; write a map or list entry with its settings", n.Value)
			}
			return nil
		}
		l.evError(el, n, "unknown evaluator type %q (valid: %s)", n.Value, typeNames(l.Suite.Dialect))
	case chosen == evaluator && n.Kind == yaml.MappingNode:
		if s := l.parseEvaluator(n, el); s != nil {
			el.Specs = []*EvaluatorSpec{s}
		}
	case n.Kind == yaml.SequenceNode:
		el.Specs = l.parseEvaluators(n, el)
	default:
		want := "a list of evaluators"
		if chosen == evaluator {
			want = "an evaluator mapping or a type name"
		}
		l.evError(el, n, "%q must be %s, got %s", chosen.Key, want, KindName(n))
	}
	nameEvaluators(el.Specs) // a single `evaluator` mapping; lists are named already
	if el.Specs == nil && !el.failed {
		el.Specs = []*EvaluatorSpec{} // declared but empty: the default judge runs
	}
	if n.Anchor != "" {
		l.lists[n] = el
	}
	if textKey != "" && len(el.diags) == 0 && len(l.listsByText) < 1024 {
		l.listsByText[textKey] = el
	}
	return el
}

// parseEvaluators parses and names a list of evaluator mappings, those with errors left out.
func (l *Reader) parseEvaluators(n *yaml.Node, el *EvalList) []*EvaluatorSpec {
	var specs []*EvaluatorSpec
	for _, item := range n.Content {
		if item = Deref(item); item == nil || item.Kind != yaml.MappingNode {
			l.evError(el, item, "an evaluator must be a mapping with a type, got %s", KindName(item))
		} else if s := l.parseEvaluator(item, el); s != nil {
			specs = append(specs, s)
		}
	}
	nameEvaluators(specs)
	return specs
}

// nameEvaluators gives unnamed evaluators their type as name, suffixed -2, -3 when repeated.
func nameEvaluators(specs []*EvaluatorSpec) {
	used := map[string]bool{}
	for _, s := range specs {
		if s.Name != "" {
			used[s.Name] = true
		}
	}
	for _, s := range specs {
		if s.Name == "" {
			s.Name = uniqueName(s.Type, used)
		}
	}
}

func uniqueName(base string, used map[string]bool) string {
	name := base
	for i := 2; used[name]; i++ {
		name = fmt.Sprintf("%s-%d", base, i)
	}
	used[name] = true
	return name
}

// parseEvaluator parses one evaluator mapping. It returns nil after an error.
func (l *Reader) parseEvaluator(n *yaml.Node, el *EvalList) *EvaluatorSpec {
	es := MapEntries(n)
	for _, e := range es {
		if e.dupe != nil {
			_, line := l.Where(e.dupe.Line)
			l.evWarn(el, e.KeyNode, KindIgnored, "duplicate key %q (also at line %d); this later value is used", e.Key, line)
		}
	}
	spec := &EvaluatorSpec{Weight: 1, Pos: Position{Col: n.Column}}
	spec.Pos.File, spec.Pos.Line = l.Where(n.Line)
	spec.JudgeCommonKeys = l.graders4()
	get := EntryList(es).Get
	t := get("type")
	if t == nil || IsNull(t.Value) || t.Value.Kind != yaml.ScalarNode {
		l.evError(el, n, "evaluator has no %q (valid: %s)", "type", typeNames(l.Suite.Dialect))
		return nil
	}
	et, ok := l.lookupType(t.Value.Value)
	if !ok {
		l.evError(el, t.Value, "unknown evaluator type %q%s (valid: %s)", t.Value.Value, DidYouMean(l.suggestType(t.Value.Value)), typeNames(l.Suite.Dialect))
		return nil
	}
	typ := et.Name
	spec.Type = l.str(typ)
	before := el.failed
	el.failed = false
	defer func() { el.failed = el.failed || before }()

	if e := get("name"); e != nil && !IsNull(e.Value) {
		if e.Value.Kind != yaml.ScalarNode || strings.TrimSpace(e.Value.Value) == "" {
			l.evError(el, e.Value, "evaluator %q must be a non-empty string, got %s", "name", KindName(e.Value))
		} else {
			spec.Name = l.str(e.Value.Value)
		}
	}
	if e := get("weight"); e != nil && !IsNull(e.Value) {
		w, ok := Number(e.Value)
		if !ok || math.IsNaN(w) || math.IsInf(w, 0) || w < 0 {
			l.evError(el, e.Value, "evaluator %q must be a number >= 0, got %s", "weight", Describe(e.Value))
		} else {
			spec.Weight, spec.WeightSet = w, true
		}
	}
	settings, err := ToJSON(n)
	if err != nil {
		l.evError(el, n, "evaluator settings: %v", err)
		return nil
	}
	spec.Settings = settings

	own := commonKeys
	if l.graders4() {
		own = append(slices.Clip(own), v4GraderKeys...)
		if typ == TypeLLMJudge {
			own = append(own, v4LLMKeys...)
		}
	}
	switch typ {
	case TypeLLMJudge:
		own = append(slices.Clip(own), llmJudgeKeys...)
		l.parseLLMJudge(spec, get, el)
	case TypeCodeJudge:
		own = append(slices.Clip(own), codeKeys...)
		l.parseCodeJudge(spec, n, get, el)
	case "composite":
		if e := get("evaluators"); e != nil && !IsNull(e.Value) {
			if e.Value.Kind != yaml.SequenceNode {
				l.evError(el, e.Value, "composite %q must be a list, got %s", "evaluators", KindName(e.Value))
			} else {
				spec.Members = l.parseEvaluators(e.Value, el)
			}
		}
	case "assert-set":
		// Its members are whole entries, each read as the file's own list items are (the
		// type's Parse reports an `assert` that is not a list).
		if e := get("assert"); e != nil && e.Value.Kind == yaml.SequenceNode {
			spec.Members = l.parseEvaluators(e.Value, el)
		}
	}

	// Pass-through config (llm_judge, code_judge): unknown keys, then an explicit `config:` wins.
	// Parts of the entry render as JSON: the whole did.
	var cfg []jsonField
	if typ == TypeLLMJudge || typ == TypeCodeJudge {
		for _, e := range es {
			if !slices.Contains(own, e.Key) {
				b, _ := ToJSON(e.Value)
				cfg = append(cfg, jsonField{e.Key, b})
			}
		}
	}
	if e := get("config"); e != nil && !IsNull(e.Value) {
		if e.Value.Kind != yaml.MappingNode {
			l.evError(el, e.Value, "evaluator %q must be a mapping, got %s", "config", KindName(e.Value))
		} else {
			for _, c := range MapEntries(e.Value) {
				b, _ := ToJSON(c.Value)
				cfg = setField(cfg, c.Key, b)
			}
			if cfg == nil {
				cfg = []jsonField{}
			}
		}
	}
	if cfg != nil {
		spec.Config = objectJSON(cfg)
	}
	unknown := unknownSettings(et, es)
	if !el.failed { // the type's own settings, once the entry is otherwise sound
		parseSettings(et, spec, n, func(at *yaml.Node, msg string) {
			// A setting the type misses is most often one written under another name: the
			// error names the key that was written (the warning below would come too late
			// to read next to it).
			if at == n {
				for _, e := range unknown {
					msg += "; " + unknownNote(e, et, true)
				}
				unknown = nil
			}
			l.evError(el, at, "%s", msg)
		})
	}
	for _, e := range unknown {
		l.evWarn(el, e.KeyNode, KindUnknownKey, "%s for type %s (ignored)", unknownNote(e, et, false), typ)
	}
	if el.failed {
		return nil
	}
	return spec
}

// entryKeys are the keys any evaluator entry may carry, whatever its type.
var entryKeys = slices.Concat(commonKeys, v4GraderKeys, []string{"id"})

// unknownSettings returns the keys of an entry that its type, listing its keys, does not read.
func unknownSettings(et *EvaluatorType, es []Entry) []Entry {
	if et.Keys == nil {
		return nil
	}
	var out []Entry
	for _, e := range es {
		if !slices.Contains(entryKeys, e.Key) && !slices.Contains(et.Keys, e.Key) {
			out = append(out, e)
		}
	}
	return out
}

// unknownNote reads: unknown key "vaule" (did you mean "value"?) [at line N].
func unknownNote(e Entry, et *EvaluatorType, withLine bool) string {
	msg := fmt.Sprintf("unknown key %q", e.Key) + DidYouMean(Suggest(e.Key, slices.Concat(et.Keys, entryKeys)))
	if withLine {
		msg += fmt.Sprintf(" at line %d", e.KeyNode.Line)
	}
	return msg
}

// Describe shows a scalar's value or a node's type for messages.
func Describe(n *yaml.Node) string {
	n = Deref(n)
	if n != nil && n.Kind == yaml.ScalarNode && !IsNull(n) {
		return fmt.Sprintf("%q", n.Value)
	}
	return KindName(n)
}

type jsonField struct {
	key string
	val []byte
}

// setField replaces key's value in place (JavaScript object spread keeps the first position)
// or appends it.
func setField(fs []jsonField, key string, val []byte) []jsonField {
	for i := range fs {
		if fs[i].key == key {
			fs[i].val = val
			return fs
		}
	}
	return append(fs, jsonField{key, val})
}

func objectJSON(fs []jsonField) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range fs {
		if i > 0 {
			b.WriteByte(',')
		}
		writeJSONString(&b, f.key)
		b.WriteByte(':')
		b.Write(f.val)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// parseCodeJudge reads `script` and `cwd`.
func (l *Reader) parseCodeJudge(spec *EvaluatorSpec, n *yaml.Node, get func(string) *Entry, el *EvalList) {
	e := get("script")
	if e == nil || IsNull(e.Value) {
		l.evError(el, n, "code_judge needs a %q: an argv list such as [python3, judge.py], or a shell command string", "script")
	} else {
		spec.Script = l.argv(e, el)
		defer func() { l.checkCommand(spec, e, el) }() // once cwd is known
	}
	if e := get("target"); e != nil && !IsNull(e.Value) {
		spec.TargetProxy = l.targetProxy(e.Value, el)
	}
	spec.Cwd = l.Suite.Dir
	if c := get("cwd"); c != nil && !IsNull(c.Value) {
		if c.Value.Kind != yaml.ScalarNode || strings.TrimSpace(c.Value.Value) == "" {
			l.evError(el, c.Value, "code_judge %q must be a directory path, got %s", "cwd", Describe(c.Value))
			return
		}
		v := strings.TrimSpace(c.Value.Value)
		if r := l.Resolve(v, true); r.Abs != "" {
			spec.Cwd = r.Abs
		} else {
			l.evWarn(el, c.Value, KindMissingFile, "code_judge cwd %q not found (tried: %s)", v, l.TriedList(r))
			spec.Cwd = AbsPath(l.Suite.Dir, v)
		}
	}
}

// checkCommand reports a code judge whose command cannot run here (LoadOptions.CheckScript),
// naming the command as the file writes it (4.x `command`, 2.x `script`).
func (l *Reader) checkCommand(spec *EvaluatorSpec, e *Entry, el *EvalList) {
	if l.opts.CheckScript == nil || len(spec.Script) == 0 {
		return
	}
	err := l.opts.CheckScript(spec.Script, spec.Cwd)
	if err == nil {
		return
	}
	what, field := "code_judge", e.Key
	if l.graders4() {
		what, field = "code-grader", "command"
	}
	if spec.Name != "" && spec.Name != what {
		what += fmt.Sprintf(" %q", spec.Name)
	}
	l.evError(el, e.Value, "%s %s: cannot run here: %v", what, field, err)
}

// graders4 reports whether the file's grader entries take AgentV 4.x's settings: negate,
// required and min_score on every entry, llm-grader's own keys, a prompt written inline, a
// script named by its "command". They do wherever the graders run as 4.42.4's (the rule each
// front-end sets: 4.x, 5.x, whose graders are 4.42.4's renamed, evals.json and a JSONL file's
// 4.x lines).
func (l *Reader) graders4() bool { return l.Suite.Grading.As442 }

// targetProxy reads a code judge's `target`: true (a proxy allowing DefaultMaxCalls calls),
// false (none) or {max_calls: n} with a whole n >= 0.
func (l *Reader) targetProxy(n *yaml.Node, el *EvalList) *TargetProxy {
	const want = "want true, false or {max_calls: <number of calls>}"
	n = Deref(n)
	switch {
	case n.Kind == yaml.ScalarNode && Classify(n) == ScalarBool:
		if strings.EqualFold(n.Value, "true") {
			return &TargetProxy{MaxCalls: DefaultMaxCalls}
		}
		return nil
	case n.Kind != yaml.MappingNode:
		l.evError(el, n, "code_judge %q: %s, got %s", "target", want, Describe(n))
		return nil
	}
	p := &TargetProxy{MaxCalls: DefaultMaxCalls}
	for _, e := range MapEntries(n) {
		if e.Key != "max_calls" && e.Key != "maxCalls" {
			l.evError(el, e.KeyNode, "code_judge target: unknown setting %q; %s", e.Key, want)
			continue
		}
		if f, ok := Number(e.Value); ok && f >= 0 && f == math.Trunc(f) && f <= math.MaxInt32 {
			p.MaxCalls = int(f)
		} else if !IsNull(e.Value) {
			l.evError(el, e.Value, "code_judge target %q must be a whole number >= 0, got %s", e.Key, Describe(e.Value))
		}
	}
	return p
}

// argv reads a script: a list of non-empty strings, or a string run through `sh -c`.
func (l *Reader) argv(e *Entry, el *EvalList) []string {
	switch e.Value.Kind {
	case yaml.ScalarNode:
		if strings.TrimSpace(e.Value.Value) == "" {
			l.evError(el, e.Value, "%q must not be empty", e.Key)
			return nil
		}
		return []string{"sh", "-c", e.Value.Value}
	case yaml.SequenceNode:
		if len(e.Value.Content) == 0 {
			l.evError(el, e.Value, "%q must not be an empty list", e.Key)
			return nil
		}
		out := make([]string, 0, len(e.Value.Content))
		for _, c := range e.Value.Content {
			c = Deref(c)
			if c == nil || c.Kind != yaml.ScalarNode || IsNull(c) || c.Value == "" {
				l.evError(el, c, "%q items must be non-empty strings, got %s", e.Key, Describe(c))
				return nil
			}
			out = append(out, l.str(c.Value))
		}
		return out
	}
	l.evError(el, e.Value, "%q must be an argv list or a command string, got %s", e.Key, KindName(e.Value))
	return nil
}
