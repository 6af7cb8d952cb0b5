package suite

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v4"
)

// EvaluatorType is one evaluator type, registered by package evaluators from the file that
// implements it; the loader accepts exactly the registered names and aliases.
type EvaluatorType struct {
	Name    string   // canonical name, as recorded in results
	Aliases []string // other accepted spellings
	// Parse checks an entry's own settings at load time and returns what the evaluator runs
	// with (EvaluatorSpec.Parsed). Each *SettingError (alone or in errors.Join) is reported at
	// the setting it names, and the cases using the entry are not loaded.
	Parse func(spec *EvaluatorSpec) (any, error)
	// Keys, when not nil, are all the settings Parse reads besides those of every entry: the
	// Reader warns about any other key, since a misspelled key would otherwise be ignored.
	Keys []string
}

// In reports whether a file of the dialect may name the type.
func (t *EvaluatorType) In(dialect string) bool {
	return (dialect != Dialect25 && dialect != Dialect4) || !newIn5(t.Name)
}

// SettingError is a problem with one setting of an evaluator entry. Path names the setting
// from the entry with keys and [indexes] ("fields[1].match"); "" is the entry itself.
type SettingError struct{ Path, Msg string }

func (e *SettingError) Error() string {
	if e.Path == "" {
		return e.Msg
	}
	return e.Path + ": " + e.Msg
}

// EvaluatorTypes is the registry, filled while packages initialize.
var EvaluatorTypes []*EvaluatorType

// RegisterEvaluator adds an evaluator type; a name taken twice is a programming error.
func RegisterEvaluator(t EvaluatorType) {
	for _, n := range append([]string{t.Name}, t.Aliases...) {
		if _, taken := LookupEvaluator(n); taken || n == "" {
			panic(fmt.Sprintf("suite: evaluator type name %q is empty or registered twice", n))
		}
	}
	EvaluatorTypes = append(EvaluatorTypes, &t)
}

// LookupEvaluator returns the type a name or alias stands for.
func LookupEvaluator(name string) (*EvaluatorType, bool) {
	i := slices.IndexFunc(EvaluatorTypes, func(t *EvaluatorType) bool { return t.Name == name || slices.Contains(t.Aliases, name) })
	if i < 0 {
		return nil, false
	}
	return EvaluatorTypes[i], true
}

// lookupType returns the type a name or alias stands for in the file being read: false for
// a type its dialect does not know.
func (l *Reader) lookupType(name string) (*EvaluatorType, bool) {
	t, ok := LookupEvaluator(name)
	if !ok || !t.In(l.Suite.Dialect) {
		return nil, false
	}
	return t, true
}

// isType reports whether a file of the dialect being read may name the type.
func (l *Reader) isType(name string) bool {
	_, ok := l.lookupType(name)
	return ok
}

// suggestType returns the type name nearest to a misspelled type in the file being read,
// among those its dialect knows (with 4.x's grader settings, also the AgentV 4.x names).
func (l *Reader) suggestType(name string) string {
	return suggestType(name, l.Suite.Dialect, l.graders4())
}

// suggestType returns the type name or alias a file of the dialect may use nearest to a
// misspelled type ("contain" → "contains"), with v4 also the AgentV 4.x type names; "" when
// none is near.
func suggestType(name, dialect string, v4 bool) string {
	var known []string
	for _, t := range EvaluatorTypes {
		if t.In(dialect) {
			known = append(append(known, t.Name), t.Aliases...)
		}
	}
	if v4 {
		known = slices.AppendSeq(known, maps.Keys(v4Types))
	}
	slices.Sort(known) // the nearest of equals is the same on every run
	s := Suggest(name, known)
	// Type names are short and alike ("code", "cost"): only a slip of a letter or two in a
	// longer name is a suggestion worth making ("nope" is not "code").
	if s != "" && EditDistance(strings.ToLower(name), s) > max(1, len(s)/4) {
		return ""
	}
	return s
}

// DidYouMean is ` (did you mean "x"?)` for the known word nearest to a misspelling, else "".
func DidYouMean(s string) string {
	if s == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", s)
}

// EvaluatorTypeNames lists the registered types for messages, sorted, aliases in parentheses.
func EvaluatorTypeNames() string { return typeNames("") }

// typeNames lists, as EvaluatorTypeNames, the types a file of the dialect may name; "": all.
func typeNames(dialect string) string {
	var names []string
	for _, t := range EvaluatorTypes {
		if dialect != "" && !t.In(dialect) {
			continue
		}
		if len(t.Aliases) > 0 {
			names = append(names, t.Name+" (alias "+strings.Join(t.Aliases, ", ")+")")
		} else {
			names = append(names, t.Name)
		}
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// parseSettings runs the type's Parse on spec, whose entry is the mapping root, and reports
// each problem at the setting it names.
func parseSettings(t *EvaluatorType, spec *EvaluatorSpec, root *yaml.Node, report func(n *yaml.Node, msg string)) {
	if t.Parse == nil {
		return
	}
	err := func() (err error) {
		defer func() {
			if p := recover(); p != nil { // a bug in one type must not take the loader down
				err = fmt.Errorf("internal error reading the %s settings: %v", t.Name, p)
			}
		}()
		spec.Parsed, err = t.Parse(spec)
		return err
	}()
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	for _, e := range errs {
		if se := (*SettingError)(nil); errors.As(e, &se) && se.Path != "" {
			report(settingNode(root, se.Path), t.Name+" "+se.Error())
		} else if e != nil {
			report(root, e.Error())
		}
	}
}

// settingNode follows a setting path ("a.b[1].c") from an entry's mapping as far as it goes.
func settingNode(n *yaml.Node, path string) *yaml.Node {
	for _, part := range strings.Split(path, ".") {
		key, idx, _ := strings.Cut(part, "[")
		if key != "" {
			e := EntryList(MapEntries(n)).Get(key)
			if e == nil {
				return n
			}
			n = e.Value
		}
		for ; idx != ""; idx = strings.TrimPrefix(idx, "[") {
			var num string
			num, idx, _ = strings.Cut(idx, "]")
			i, err := strconv.Atoi(num)
			if n = Deref(n); err != nil || n.Kind != yaml.SequenceNode || i < 0 || i >= len(n.Content) {
				return n
			}
			n = Deref(n.Content[i])
		}
	}
	return n
}

// newIn5 reports whether a grader type is new in AgentV 5.x (promptfoo's assertion types and
// 5.x's trajectory and skill graders): 2.5 and 4.x files do not know it, as the programs
// they were written for do not (4.x then looks for a custom assertion script of that name).
func newIn5(name string) bool {
	name = strings.TrimPrefix(name, "not-")
	return strings.HasPrefix(name, "trajectory:") || slices.Contains(v5NewTypes, name)
}

// v5NewTypes are the grader types new in 5.x besides trajectory:*.
var v5NewTypes = []string{"javascript", "python", "assert-set", "similar", "webhook", "skill-used", "contains-json"}
