package migrate

import (
	"fmt"
	"strings"

	yaml "go.yaml.in/yaml/v4"
)

// renamedTypes are 2.5 and 4.x grader types (after `_` → `-`) with another 5.x name.
var renamedTypes = map[string]string{
	"rubrics":     "llm-rubric",
	"rubric":      "llm-rubric",
	"g-eval":      "llm-rubric",
	"code-grader": "script",
	"code-judge":  "script",
	"llm-judge":   "llm-grader",
}

// kebabTypes are the built-in types 5.x spells in kebab-case; their snake_case spellings
// (2.5's, and accepted by 4.x) are rewritten. Other names may be custom graders: kept.
var kebabTypes = map[string]bool{
	"contains": true, "contains-any": true, "contains-all": true, "icontains": true, "icontains-any": true,
	"icontains-all": true, "starts-with": true, "ends-with": true, "regex": true, "is-json": true, "equals": true,
	"field-accuracy": true, "token-usage": true, "execution-metrics": true, "latency": true, "cost": true,
	"llm-grader": true, "skill-used": true, "not-skill-used": true,
}

// commonKeys are settings of every grader entry, copied to each assertion one entry becomes.
var commonKeys = []string{"weight", "required", "min_score", "negate", "metric"}

// asserts rewrites each entry of a grader list in place; an entry may become several.
func (m *migration) asserts(list *yaml.Node) {
	list = deref(list)
	if list == nil || list.Kind != yaml.SequenceNode {
		return
	}
	if m.seen == nil {
		m.seen = map[*yaml.Node]bool{}
	}
	if m.seen[list] { // an anchored list used again
		return
	}
	m.seen[list] = true
	out := make([]*yaml.Node, 0, len(list.Content))
	for _, e := range list.Content {
		out = append(out, m.assertion(e)...)
	}
	list.Content = out
}

// assertion rewrites one grader entry; strings (criteria) are 5.x already.
func (m *migration) assertion(e *yaml.Node) []*yaml.Node {
	if e.Kind != yaml.MappingNode || m.seen[e] {
		return []*yaml.Node{e}
	}
	m.seen[e] = true
	if kn := keyNode(e, "preprocessors"); kn != nil {
		m.human(kn, false, "preprocessors: left as it is; 5.x shapes the output an assertion sees with %q (a JavaScript expression or file://)", "transform")
	}
	t := deref(get(e, "type"))
	if t == nil || t.Kind != yaml.ScalarNode {
		return []*yaml.Node{e}
	}
	raw := t.Value
	norm := strings.ReplaceAll(raw, "_", "-")
	switch {
	case renamedTypes[norm] != "":
		t.Value = renamedTypes[norm]
		m.did(t, "type %s → %s", raw, t.Value)
		switch t.Value {
		case "llm-rubric":
			for _, k := range []string{"criteria", "rubrics", "rubric_item"} {
				if m.renameKey(e, k, "value", "llm-rubric ") {
					break
				}
			}
		case "script":
			m.renameKey(e, "script", "command", "")
		}
	case norm == "skill-trigger":
		m.skillTrigger(e, t)
	case norm == "tool-trajectory":
		return m.trajectory(e, t)
	case norm == "composite":
		m.human(t, false, "type %s: left as it is: 5.x has assert-set, which scores its members otherwise (no aggregator); rewrite it by hand", raw)
	case norm == "assert-set":
		m.asserts(get(e, "assert"))
	case kebabTypes[norm] && norm != raw:
		t.Value = norm
		m.did(t, "type %s → %s", raw, norm)
	}
	return []*yaml.Node{e}
}

// skillTrigger rewrites skill-trigger as skill-used, or not-skill-used when it must not fire.
func (m *migration) skillTrigger(e, t *yaml.Node) {
	skill, ok := scalar(get(e, "skill"))
	if !ok || strings.TrimSpace(skill) == "" || has(e, "value") {
		m.human(t, false, "type %s: left as it is: write {type: skill-used, value: <skill>} (not-skill-used when it must not trigger)", t.Value)
		return
	}
	to := "skill-used"
	if v, ok := scalar(get(e, "should_trigger")); ok && v == "false" {
		to = "not-skill-used"
	} else if ok && v != "true" {
		m.human(t, false, "type %s: left as it is: should_trigger is %q, not true or false", t.Value, v)
		return
	}
	from := t.Value
	t.Value = to
	rename(e, "skill", "value")
	drop(e, "should_trigger")
	// Measured against both: 5.x's skill-used reads the skill calls an agent provider
	// (claude, codex) derives from its tool calls; a cli target's answer carries none.
	m.did(t, "type %s → %s (skill → value); 5.x sees skills only through agent providers (claude, codex), not a cli target's tool calls", from, to)
}

// trajectory rewrites a tool-trajectory entry as 5.x trajectory:* assertions where the
// mapping is direct: any_order minimums (trajectory:tool-used per tool), in_order and exact
// steps (trajectory:tool-sequence) with their arguments (trajectory:tool-args-match).
func (m *migration) trajectory(e, t *yaml.Node) []*yaml.Node {
	keep := []*yaml.Node{e}
	leave := func(why string) []*yaml.Node {
		m.human(t, false, "type %s: left as it is: %s", t.Value, why)
		return keep
	}
	known := append([]string{"type", "name", "mode", "minimums", "expected", "args_match"}, commonKeys...)
	for i := 0; i+1 < len(e.Content); i += 2 {
		if k := e.Content[i].Value; !contains(known, k) {
			return leave(fmt.Sprintf("its %q has no trajectory:* equivalent", k))
		}
	}
	mode, _ := scalar(get(e, "mode"))
	minimums, expected := deref(get(e, "minimums")), deref(get(e, "expected"))
	var out []*yaml.Node
	switch {
	case mode == "any_order" && minimums != nil && minimums.Kind == yaml.MappingNode && isNull(expected):
		for i := 0; i+1 < len(minimums.Content); i += 2 {
			out = append(out, entry("trajectory:tool-used", mapping(str("name"), bare(minimums.Content[i]), str("min"), bare(minimums.Content[i+1]))))
		}
	case (mode == "in_order" || mode == "exact") && expected != nil && expected.Kind == yaml.SequenceNode && isNull(minimums):
		steps := seq()
		steps.Style = yaml.FlowStyle
		var argChecks []*yaml.Node
		for _, item := range expected.Content {
			item = deref(item)
			tool, ok := scalar(get(item, "tool"))
			if item.Kind != yaml.MappingNode || !ok {
				return leave("an expected step without a tool name")
			}
			for i := 0; i+1 < len(item.Content); i += 2 {
				if k := item.Content[i].Value; k != "tool" && k != "args" && k != "args_match" {
					return leave(fmt.Sprintf("expected step %q sets %s, which trajectory:* cannot check", tool, k))
				}
			}
			steps.Content = append(steps.Content, bare(get(item, "tool")))
			args := deref(get(item, "args"))
			if a, isScalar := scalar(args); isNull(args) || (isScalar && a == "any") {
				continue
			}
			if args.Kind != yaml.MappingNode {
				return leave(fmt.Sprintf("the args of step %q are not a mapping", tool))
			}
			am, ok := m.argsMode(item, e)
			if !ok {
				return leave(fmt.Sprintf("step %q's args_match has no trajectory:tool-args-match mode (exact or partial)", tool))
			}
			if am == "" {
				continue
			}
			argChecks = append(argChecks, entry("trajectory:tool-args-match", mapping(str("name"), bare(get(item, "tool")), str("args"), args, str("mode"), str(am))))
		}
		out = append(out, entry("trajectory:tool-sequence", mapping(str("mode"), bare(get(e, "mode")), str("steps"), steps)))
		out = append(out, argChecks...)
	default:
		return leave("only any_order with minimums, or in_order/exact with expected steps, map directly onto trajectory:*")
	}
	name, hasName := scalar(get(e, "name"))
	for i, o := range out {
		if hasName {
			n := name
			if len(out) > 1 {
				n = fmt.Sprintf("%s-%d", name, i+1)
			}
			o.Content = append([]*yaml.Node{str("name"), str(n)}, o.Content...)
		}
		for _, k := range commonKeys {
			if v := get(e, k); v != nil {
				o.Content = append(o.Content, str(k), v)
			}
		}
	}
	out[0].HeadComment = e.HeadComment
	kinds := make([]string, len(out))
	for i, o := range out {
		kinds[i], _ = scalar(get(o, "type"))
	}
	partial := ""
	if mode != "any_order" {
		// Measured against 4.42.4: it credits the steps that matched, tool-sequence all or none.
		partial = "; 4.x gave credit for part of the steps, trajectory:tool-sequence scores 0 or 1"
	}
	m.did(t, "type %s (%s) → %s%s", t.Value, mode, strings.Join(kinds, ", "), partial)
	return out
}

// argsMode is the trajectory:tool-args-match mode of a step's args_match (else the entry's,
// else the dialect's default: exact in 4.x, a superset of the call's arguments in 2.5); ""
// when arguments are not checked, false when no mode matches.
func (m *migration) argsMode(step, e *yaml.Node) (string, bool) {
	v, ok := scalar(get(step, "args_match"))
	if !ok && get(step, "args_match") == nil {
		v, ok = scalar(get(e, "args_match"))
		if !ok && get(e, "args_match") == nil {
			v, ok = "exact", true
			if m.v2 {
				v = "superset"
			}
		}
	}
	switch {
	case !ok:
		return "", false
	case v == "exact":
		return "exact", true
	case v == "superset":
		return "partial", true
	case v == "ignore":
		return "", true
	}
	return "", false
}

// bare is a copy of a scalar without its comments, for a new place (a key as a value, a
// value in a flow list) where they would not belong.
func bare(n *yaml.Node) *yaml.Node {
	n = deref(n)
	if n == nil || n.Kind != yaml.ScalarNode {
		return n
	}
	return &yaml.Node{Kind: n.Kind, Tag: n.Tag, Value: n.Value, Style: n.Style & (yaml.SingleQuotedStyle | yaml.DoubleQuotedStyle)}
}

// entry is a new assertion {type, value}.
func entry(typ string, value *yaml.Node) *yaml.Node {
	return mapping(str("type"), str(typ), str("value"), value)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
