package agentv5

import (
	"github.com/agentv/action/suite"
	"maps"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v4"
)

// AgentV 5.x assertion types are promptfoo's names. They are mapped here onto the 4.x
// names the 4.x converter (v4Assertion) knows, so that 4.x files never accept a 5.x name;
// a 5.x type with no 4.x counterpart is used when a grader registers it under its 5.x name.
var (
	// v5ToV4 maps 5.x types onto 4.x ones; the deterministic types keep their names.
	v5ToV4 = map[string]string{
		"llm-rubric":     "rubrics",
		"llm-grader":     "llm-grader",
		"script":         "code-grader",
		"field-accuracy": "field-accuracy",
		"latency":        "latency",
		"cost":           "cost",
		"token-usage":    "token-usage",
		"contains":       "contains", "contains-any": "contains-any", "contains-all": "contains-all",
		"icontains": "icontains", "icontains-any": "icontains-any", "icontains-all": "icontains-all",
		"starts-with": "starts-with", "ends-with": "ends-with", "regex": "regex", "is-json": "is-json",
		"equals": "equals",
	}
	// v5RemovedTypes are types 5.x rejects, with their replacement (grader-parser.ts at
	// v5.3.1-next.1, removedGraderReplacement).
	v5RemovedTypes = map[string]string{
		"script-grader": "script", "code-grader": "script", "code-judge": "script", "code_grader": "script",
		"code_judge": "script", "g-eval": "llm-rubric", "rubrics": "llm-rubric with value", "rubric": "llm-rubric with value",
		"composite": "assert-set", "llm_judge": "llm-grader", "llm_grader": "llm-grader", "llm-judge": "llm-grader",
		"tool_trajectory": "trajectory:tool-used, trajectory:tool-sequence or trajectory:tool-args-match",
		"tool-trajectory": "trajectory:tool-used, trajectory:tool-sequence or trajectory:tool-args-match",
		"skill-trigger":   "skill-used or not-skill-used", "skill_trigger": "skill-used or not-skill-used",
		"field_accuracy": "field-accuracy", "token_usage": "token-usage", "execution_metrics": "execution-metrics",
		"contains_any": "contains-any", "contains_all": "contains-all", "icontains_any": "icontains-any",
		"icontains_all": "icontains-all", "starts_with": "starts-with", "ends_with": "ends-with", "is_json": "is-json",
	}
	// v5Refused are the grader types this project runs that 5.x refuses (they are in
	// v5Unsupported): a 5.x file neither runs nor is offered them.
	v5Refused = []string{"contains-json"}
	// v5Unsupported are promptfoo types 5.x itself does not run (UNSUPPORTED_PROMPTFOO_ASSERTION_TYPES).
	v5Unsupported = []string{"agent-rubric", "answer-relevance", "bleu", "classifier", "contains-html",
		"contains-json", "contains-sql", "contains-xml", "context-faithfulness", "context-recall",
		"context-relevance", "conversation-relevance", "factuality", "finish-reason", "gleu", "guardrails",
		"is-html", "is-refusal", "is-sql", "is-valid-function-call", "is-valid-openai-function-call",
		"is-valid-openai-tools-call", "is-xml", "levenshtein", "meteor", "model-graded-closedqa",
		"model-graded-factuality", "moderation", "perplexity", "perplexity-score", "pi", "rouge-n", "ruby",
		"similar:cosine", "similar:dot", "similar:euclidean", "select-best", "human", "max-score",
		"tool-call-f1", "trace-error-spans", "trace-span-count", "trace-span-duration", "search-rubric", "word-count"}
)

// v5Assertions converts a 5.x assert list into evaluator entries. The plain strings become
// one llm-rubric grader at the first string's place, weighted by their number
// (grader-parser.ts, parseGraderList).
func (l *reader) v5Assertions(items []*yaml.Node, at *yaml.Node, id string, fail func(*yaml.Node, string, ...any)) []*yaml.Node {
	var conv []*yaml.Node
	var criteria *yaml.Node
	for _, it := range items {
		switch d := suite.Deref(it); {
		case suite.IsString(d) && strings.TrimSpace(d.Value) == "":
			l.Warnf(d, suite.KindEvaluator, id, "empty assertion string skipped")
		case suite.IsString(d):
			if criteria == nil {
				criteria = suite.SeqNode(d)
				conv = append(conv, suite.Mapping(d, "type", suite.StrNode(d, "rubrics"), "name", suite.StrNode(d, "llm-rubric"), "criteria", criteria))
			}
			t := *d
			t.Value = strings.TrimSpace(d.Value)
			criteria.Content = append(criteria.Content, &t)
		case d != nil && d.Kind == yaml.MappingNode:
			if e := l.v5Assertion(d, id, fail); e != nil {
				conv = append(conv, e)
			}
		default:
			fail(d, "an assertion must be a mapping with a type or a criterion string, got %s", suite.KindName(d))
		}
	}
	if criteria != nil {
		r := conv[slices.IndexFunc(conv, func(n *yaml.Node) bool { return suite.ValueOf(n, "criteria") == criteria })]
		r.Content = append(r.Content, suite.StrNode(criteria, "weight"), suite.IntNode(criteria, len(criteria.Content)))
	}
	if len(conv) == 0 {
		return nil
	}
	return l.V4Assertions(suite.SeqNode(at, conv...), id, fail)
}

// v5Assertion converts one 5.x assertion mapping into its 4.x form; nil when it is skipped
// or failed (reported).
func (l *reader) v5Assertion(n *yaml.Node, id string, fail func(*yaml.Node, string, ...any)) *yaml.Node {
	t := suite.Deref(suite.ValueOf(n, "type"))
	if t == nil || t.Kind != yaml.ScalarNode || suite.IsNull(t) {
		fail(n, "an assertion needs a %q", "type")
		return nil
	}
	typ := t.Value
	if r, removed := v5RemovedTypes[typ]; removed {
		fail(t, "assertion type %q is not accepted in AgentV 5.x: use %s", typ, r)
		return nil
	}
	negate := false
	base := typ
	notTrajectory := v5NegatedTrajectory(typ) // read as its plain type with negate
	if notTrajectory != "" {
		base = notTrajectory
	} else if rest, ok := strings.CutPrefix(typ, "not-"); ok && !suite.IsEvaluatorType(typ) {
		base, negate = rest, true
	}
	if slices.Contains(v5Unsupported, base) && !slices.Contains(l.accept, base) {
		fail(t, "promptfoo assertion type %q is not supported by AgentV 5.x", typ)
		return nil
	}
	mapped, known := v5ToV4[base]
	if !known {
		if !suite.IsEvaluatorType(base) {
			if near := v5SuggestType(base); near != "" {
				fail(t, "unknown evaluator type %q%s", typ, suite.DidYouMean(near))
			} else {
				fail(t, "AgentV 5.x assertion type %q is not supported yet", typ)
			}
			return nil
		}
		mapped = base // a grader registered under its 5.x name
	}
	if n = l.v5MetricEntry(n, base, id); n == nil {
		return nil
	}
	out := suite.Mapping(n)
	hasValue := false
	for _, e := range suite.MapEntries(n) {
		k, v := e.KeyNode, e.Value
		switch e.Key {
		case "type":
			v = suite.StrNode(t, mapped)
		case "metric":
			k = suite.StrNode(k, "name") // 5.x names an assertion by its metric
		case "name":
			fail(k, "AgentV 5.x names an assertion with %q, not %q", "metric", "name")
			return nil
		case "negate":
			if negate {
				continue // not- already negates
			}
			if notTrajectory != "" {
				v = v5FlipNegate(v)
			}
		case "transform":
			// Checked here, taken out after conversion (v5TakeTransforms).
			if _, ok := l.v5Transform(v, "assertion transform", fail); !ok {
				return nil
			}
		case "assert":
			if base == "assert-set" && v.Kind == yaml.SequenceNode {
				// A set's members are 5.x assertions too, converted as the test's are.
				v = suite.SeqNode(v, l.v5Assertions(v.Content, v, id, fail)...)
			}
		case "preprocessors", "postprocess":
			fail(k, "assertion %q has been removed in AgentV 5.x: use transform", e.Key)
			return nil
		case "script":
			if base == "script" {
				fail(k, "script grader %q has been removed in AgentV 5.x: use %q", "script", "command")
				return nil
			}
		case "criteria", "rubrics", "rubric_item", "rubricItem":
			if base == "llm-rubric" {
				fail(k, "llm-rubric %q is not accepted in AgentV 5.x: use %q", e.Key, "value")
				return nil
			}
		case "provider":
			if base == "llm-rubric" {
				fail(k, "llm-rubric %q is not supported yet", e.Key)
				return nil
			}
		case "value":
			if base == "llm-rubric" {
				switch {
				case suite.IsNull(v) || (v.Kind == yaml.SequenceNode && len(v.Content) == 0):
					continue
				case v.Kind == yaml.ScalarNode && v.Value == "":
					continue // 5.x skips an empty value as it skips a missing one
				case v.Kind == yaml.ScalarNode:
					// One text is the criteria of the default grader prompt as it is, never a
					// template or a file (registry/builtin-graders.ts:166-168 at
					// v5.3.1-next.1: criteria = formatRubricValue(value); only `prompt` is
					// resolved as a file or template). It reaches the spec as Criteria
					// (v5WrittenTypes), not as a prompt the 4.x reader would take for either.
					if p := suite.ValueOf(n, "prompt"); p != nil && !suite.IsNull(p) {
						fail(k, "llm-rubric with both a %q text and a %q is not supported yet", "value", "prompt")
						return nil
					}
					hasValue = true
					continue
				case v.Kind == yaml.MappingNode:
					k, v = suite.StrNode(k, "criteria"), suite.SeqNode(v, v) // one structured criterion
				case v.Kind == yaml.SequenceNode:
					// A list of criteria is 4.x's rubric checklist (normalizeStructuredRubricValue).
					k = suite.StrNode(k, "criteria")
				default:
					fail(v, "llm-rubric %q must be a criterion or a list of criteria, got %s", "value", suite.KindName(v))
					return nil
				}
				hasValue = true
			}
		}
		out.Content = append(out.Content, k, v)
	}
	if base == "llm-rubric" && !suite.HasKey(out, "criteria") { // a text value or a prompt
		if p := suite.ValueOf(n, "prompt"); !hasValue && (p == nil || suite.IsNull(p)) {
			l.Warnf(n, suite.KindEvaluator, id, "llm-rubric assertion skipped, as AgentV 5.x skips it: it needs a %q or a %q", "value", "prompt")
			return nil
		}
		out = suite.ReplaceKey(out, "type", "", suite.StrNode(t, "llm-grader"))
	}
	// An assertion without metric is named after its type, the value added for the
	// deterministic ones (generateAssertionName); v4Name names those, the others are named
	// here: llm-rubric, script, and any not-X (5.x names the type it reads as written).
	switch {
	case suite.HasKey(n, "metric"):
	case notTrajectory != "":
		out.Content = append(out.Content, suite.StrNode(n, "name"), suite.StrNode(n, notTrajectory))
	case v5SkillName(typ, n) != "":
		out.Content = append(out.Content, suite.StrNode(n, "name"), suite.StrNode(n, v5SkillName(typ, n)))
	case negate || base == "llm-rubric" || base == "script":
		out.Content = append(out.Content, suite.StrNode(n, "name"), suite.StrNode(n, typ))
	}
	if notTrajectory != "" && !suite.HasKey(n, "negate") {
		out.Content = append(out.Content, suite.StrNode(t, "negate"), &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: "true", Line: t.Line, Column: t.Column})
	}
	if negate {
		out.Content = append(out.Content, suite.StrNode(t, "negate"), &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: "true", Line: t.Line, Column: t.Column})
	}
	return out
}

// v5SuggestType is the 5.x type name nearest to a misspelled one ("containz" → "contains"),
// among the names a 5.x file may use; "" when none is near.
func v5SuggestType(name string) string {
	known := slices.Collect(maps.Keys(v5ToV4))
	for _, t := range suite.EvaluatorTypes {
		if t.In(suite.Dialect5) && !slices.Contains(v5Refused, t.Name) {
			known = append(append(known, t.Name), t.Aliases...)
		}
	}
	slices.Sort(known) // the nearest of equals is the same on every run
	s := suite.Suggest(name, known)
	if s != "" && suite.EditDistance(strings.ToLower(name), s) > max(1, len(s)/4) {
		return ""
	}
	return s
}
