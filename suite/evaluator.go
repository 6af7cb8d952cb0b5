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

// evalList is one parsed evaluator declaration (a list, or a single `evaluator` map).
type evalList struct {
	specs    []*EvaluatorSpec
	diags    []Diagnostic // reported for each case that uses the list (suite list: once)
	failed   bool         // an error: cases using this list are not loaded
	users    []string     // suite list: ids of the cases that inherit it
	reported bool
}

func (el *evalList) add(d Diagnostic) {
	if d.Severity == SeverityError {
		el.failed = true
	}
	el.diags = append(el.diags, d)
}

// addListDiags reports a list's diagnostics for case id, each error with note(id); false after an error.
func (l *loader) addListDiags(el *evalList, id string, note func(string) string) bool {
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

func (l *loader) evWarn(el *evalList, n *yaml.Node, kind, format string, args ...any) {
	el.add(l.at(n, SeverityWarning, kind, "", format, args...))
}

func (l *loader) evError(el *evalList, n *yaml.Node, format string, args ...any) {
	el.add(l.at(n, SeverityError, KindEvaluator, "", format, args...))
}

// evaluatorSource parses the evaluators declared by a case or suite, by priority:
// `execution.evaluators`, `evaluators`, `evaluator`; nil when none is declared.
func (l *loader) evaluatorSource(execEvals, evals, evaluator *kv, caseID string) *evalList {
	chosen := firstSet([]*kv{execEvals, evals, evaluator}, func(e, chosen *kv) {
		name := chosen.key
		if chosen == execEvals {
			name = "execution.evaluators"
		}
		l.warnf(e.kn, KindIgnored, caseID, "%q ignored: %q is also set", e.key, name)
	})
	if chosen == nil {
		return nil
	}
	n := chosen.v
	if cached, ok := l.lists[n]; ok {
		return cached
	}
	// JSONL lines repeat the same evaluators on every line; identical clean lists are parsed
	// once and shared so 100,000-line suites stay small (Pos then names the first line).
	var textKey string
	if l.s.Format == "jsonl" && l.src == nil {
		if b, err := toJSON(n); err == nil && len(b) < 4096 {
			textKey = chosen.key + "\x00" + string(b)
			if cached, ok := l.listsByText[textKey]; ok {
				return cached
			}
		}
	}
	el := &evalList{}
	switch {
	case chosen == evaluator && n.Kind == yaml.ScalarNode:
		// AgentV 2.x `evaluator: <kind>` names the default evaluator's kind; only llm_judge exists.
		// A known kind declares nothing: the suite's evaluators (or the default judge) apply.
		if t, ok := l.lookupType(n.Value); ok {
			if t.Name != TypeLLMJudge {
				l.warnf(n, KindEvaluator, caseID, "evaluator kind %q given without settings is ignored; write a map or list entry with its settings", n.Value)
			}
			return nil
		}
		l.evError(el, n, "unknown evaluator type %q (valid: %s)", n.Value, typeNames(l.s.Dialect))
	case chosen == evaluator && n.Kind == yaml.MappingNode:
		if s := l.parseEvaluator(n, el); s != nil {
			el.specs = []*EvaluatorSpec{s}
		}
	case n.Kind == yaml.SequenceNode:
		el.specs = l.parseEvaluators(n, el)
	default:
		want := "a list of evaluators"
		if chosen == evaluator {
			want = "an evaluator mapping or a type name"
		}
		l.evError(el, n, "%q must be %s, got %s", chosen.key, want, kindName(n))
	}
	nameEvaluators(el.specs) // a single `evaluator` mapping; lists are named already
	if el.specs == nil && !el.failed {
		el.specs = []*EvaluatorSpec{} // declared but empty: the default judge runs
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
func (l *loader) parseEvaluators(n *yaml.Node, el *evalList) []*EvaluatorSpec {
	var specs []*EvaluatorSpec
	for _, item := range n.Content {
		if item = deref(item); item == nil || item.Kind != yaml.MappingNode {
			l.evError(el, item, "an evaluator must be a mapping with a type, got %s", kindName(item))
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
func (l *loader) parseEvaluator(n *yaml.Node, el *evalList) *EvaluatorSpec {
	es := entries(n)
	for _, e := range es {
		if e.dupe != nil {
			_, line := l.where(e.dupe.Line)
			l.evWarn(el, e.kn, KindIgnored, "duplicate key %q (also at line %d); this later value is used", e.key, line)
		}
	}
	spec := &EvaluatorSpec{Weight: 1, Pos: Position{Col: n.Column}}
	spec.Pos.File, spec.Pos.Line = l.where(n.Line)
	spec.JudgeCommonKeys = l.graders4()
	get := kvs(es).get
	t := get("type")
	if t == nil || isNull(t.v) || t.v.Kind != yaml.ScalarNode {
		l.evError(el, n, "evaluator has no %q (valid: %s)", "type", typeNames(l.s.Dialect))
		return nil
	}
	et, ok := l.lookupType(t.v.Value)
	if !ok {
		l.evError(el, t.v, "unknown evaluator type %q%s (valid: %s)", t.v.Value, didYouMean(l.suggestType(t.v.Value)), typeNames(l.s.Dialect))
		return nil
	}
	typ := et.Name
	spec.Type = l.str(typ)
	before := el.failed
	el.failed = false
	defer func() { el.failed = el.failed || before }()

	if e := get("name"); e != nil && !isNull(e.v) {
		if e.v.Kind != yaml.ScalarNode || strings.TrimSpace(e.v.Value) == "" {
			l.evError(el, e.v, "evaluator %q must be a non-empty string, got %s", "name", kindName(e.v))
		} else {
			spec.Name = l.str(e.v.Value)
		}
	}
	if e := get("weight"); e != nil && !isNull(e.v) {
		w, ok := number(e.v)
		if !ok || math.IsNaN(w) || math.IsInf(w, 0) || w < 0 {
			l.evError(el, e.v, "evaluator %q must be a number >= 0, got %s", "weight", describe(e.v))
		} else {
			spec.Weight, spec.WeightSet = w, true
		}
	}
	settings, err := toJSON(n)
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
		if e := get("evaluators"); e != nil && !isNull(e.v) {
			if e.v.Kind != yaml.SequenceNode {
				l.evError(el, e.v, "composite %q must be a list, got %s", "evaluators", kindName(e.v))
			} else {
				spec.Members = l.parseEvaluators(e.v, el)
			}
		}
	case "assert-set":
		// Its members are whole entries, each read as the file's own list items are (the
		// type's Parse reports an `assert` that is not a list).
		if e := get("assert"); e != nil && e.v.Kind == yaml.SequenceNode {
			spec.Members = l.parseEvaluators(e.v, el)
		}
	}

	// Pass-through config (llm_judge, code_judge): unknown keys, then an explicit `config:` wins.
	// Parts of the entry render as JSON: the whole did.
	var cfg []jsonField
	if typ == TypeLLMJudge || typ == TypeCodeJudge {
		for _, e := range es {
			if !slices.Contains(own, e.key) {
				b, _ := toJSON(e.v)
				cfg = append(cfg, jsonField{e.key, b})
			}
		}
	}
	if e := get("config"); e != nil && !isNull(e.v) {
		if e.v.Kind != yaml.MappingNode {
			l.evError(el, e.v, "evaluator %q must be a mapping, got %s", "config", kindName(e.v))
		} else {
			for _, c := range entries(e.v) {
				b, _ := toJSON(c.v)
				cfg = setField(cfg, c.key, b)
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
		l.evWarn(el, e.kn, KindUnknownKey, "%s for type %s (ignored)", unknownNote(e, et, false), typ)
	}
	if el.failed {
		return nil
	}
	return spec
}

// entryKeys are the keys any evaluator entry may carry, whatever its type.
var entryKeys = slices.Concat(commonKeys, v4GraderKeys, []string{"id"})

// unknownSettings returns the keys of an entry that its type, listing its keys, does not read.
func unknownSettings(et *EvaluatorType, es []kv) []kv {
	if et.Keys == nil {
		return nil
	}
	var out []kv
	for _, e := range es {
		if !slices.Contains(entryKeys, e.key) && !slices.Contains(et.Keys, e.key) {
			out = append(out, e)
		}
	}
	return out
}

// unknownNote reads: unknown key "vaule" (did you mean "value"?) [at line N].
func unknownNote(e kv, et *EvaluatorType, withLine bool) string {
	msg := fmt.Sprintf("unknown key %q", e.key) + didYouMean(suggest(e.key, slices.Concat(et.Keys, entryKeys)))
	if withLine {
		msg += fmt.Sprintf(" at line %d", e.kn.Line)
	}
	return msg
}

// describe shows a scalar's value or a node's type for messages.
func describe(n *yaml.Node) string {
	n = deref(n)
	if n != nil && n.Kind == yaml.ScalarNode && !isNull(n) {
		return fmt.Sprintf("%q", n.Value)
	}
	return kindName(n)
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
func (l *loader) parseCodeJudge(spec *EvaluatorSpec, n *yaml.Node, get func(string) *kv, el *evalList) {
	e := get("script")
	if e == nil || isNull(e.v) {
		l.evError(el, n, "code_judge needs a %q: an argv list such as [python3, judge.py], or a shell command string", "script")
	} else {
		spec.Script = l.argv(e, el)
		defer func() { l.checkCommand(spec, e, el) }() // once cwd is known
	}
	if e := get("target"); e != nil && !isNull(e.v) {
		spec.TargetProxy = l.targetProxy(e.v, el)
	}
	spec.Cwd = l.s.Dir
	if c := get("cwd"); c != nil && !isNull(c.v) {
		if c.v.Kind != yaml.ScalarNode || strings.TrimSpace(c.v.Value) == "" {
			l.evError(el, c.v, "code_judge %q must be a directory path, got %s", "cwd", describe(c.v))
			return
		}
		v := strings.TrimSpace(c.v.Value)
		if r := l.resolve(v, true); r.abs != "" {
			spec.Cwd = r.abs
		} else {
			l.evWarn(el, c.v, KindMissingFile, "code_judge cwd %q not found (tried: %s)", v, l.triedList(r))
			spec.Cwd = absPath(l.s.Dir, v)
		}
	}
}

// checkCommand reports a code judge whose command cannot run here (LoadOptions.CheckScript),
// naming the command as the file writes it (4.x `command`, 2.x `script`).
func (l *loader) checkCommand(spec *EvaluatorSpec, e *kv, el *evalList) {
	if l.opts.CheckScript == nil || len(spec.Script) == 0 {
		return
	}
	err := l.opts.CheckScript(spec.Script, spec.Cwd)
	if err == nil {
		return
	}
	what, field := "code_judge", e.key
	if l.graders4() {
		what, field = "code-grader", "command"
	}
	if spec.Name != "" && spec.Name != what {
		what += fmt.Sprintf(" %q", spec.Name)
	}
	l.evError(el, e.v, "%s %s: cannot run here: %v", what, field, err)
}

// graders4 reports whether the file's grader entries take AgentV 4.x's settings: negate,
// required and min_score on every entry, llm-grader's own keys, a prompt written inline, a
// script named by its "command". They do wherever the graders run as 4.42.4's (the rule each
// front-end sets: 4.x, 5.x, whose graders are 4.42.4's renamed, evals.json and a JSONL file's
// 4.x lines).
func (l *loader) graders4() bool { return l.s.Grading.As442 }

// targetProxy reads a code judge's `target`: true (a proxy allowing DefaultMaxCalls calls),
// false (none) or {max_calls: n} with a whole n >= 0.
func (l *loader) targetProxy(n *yaml.Node, el *evalList) *TargetProxy {
	const want = "want true, false or {max_calls: <number of calls>}"
	n = deref(n)
	switch {
	case n.Kind == yaml.ScalarNode && classify(n) == scalarBool:
		if strings.EqualFold(n.Value, "true") {
			return &TargetProxy{MaxCalls: DefaultMaxCalls}
		}
		return nil
	case n.Kind != yaml.MappingNode:
		l.evError(el, n, "code_judge %q: %s, got %s", "target", want, describe(n))
		return nil
	}
	p := &TargetProxy{MaxCalls: DefaultMaxCalls}
	for _, e := range entries(n) {
		if e.key != "max_calls" && e.key != "maxCalls" {
			l.evError(el, e.kn, "code_judge target: unknown setting %q; %s", e.key, want)
			continue
		}
		if f, ok := number(e.v); ok && f >= 0 && f == math.Trunc(f) && f <= math.MaxInt32 {
			p.MaxCalls = int(f)
		} else if !isNull(e.v) {
			l.evError(el, e.v, "code_judge target %q must be a whole number >= 0, got %s", e.key, describe(e.v))
		}
	}
	return p
}

// argv reads a script: a list of non-empty strings, or a string run through `sh -c`.
func (l *loader) argv(e *kv, el *evalList) []string {
	switch e.v.Kind {
	case yaml.ScalarNode:
		if strings.TrimSpace(e.v.Value) == "" {
			l.evError(el, e.v, "%q must not be empty", e.key)
			return nil
		}
		return []string{"sh", "-c", e.v.Value}
	case yaml.SequenceNode:
		if len(e.v.Content) == 0 {
			l.evError(el, e.v, "%q must not be an empty list", e.key)
			return nil
		}
		out := make([]string, 0, len(e.v.Content))
		for _, c := range e.v.Content {
			c = deref(c)
			if c == nil || c.Kind != yaml.ScalarNode || isNull(c) || c.Value == "" {
				l.evError(el, c, "%q items must be non-empty strings, got %s", e.key, describe(c))
				return nil
			}
			out = append(out, l.str(c.Value))
		}
		return out
	}
	l.evError(el, e.v, "%q must be an argv list or a command string, got %s", e.key, kindName(e.v))
	return nil
}
