package evaluators

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/agentv/action/internal/jsonx"
	"github.com/agentv/action/internal/proc"
	"github.com/agentv/action/results"
	"github.com/agentv/action/suite"
)

// The 4.x grader prompts. Their sections and variables, and the reply shapes the system
// prompts ask for, are AgentV 4.x's, so a judge answers in the shape parsed below.
const (
	v4GraderTemplate = `You are an expert grader. Grade the answer by how well it meets the criteria for the original task.

If a reference_answer is given, treat it as an example of a high-quality response. It may be plain text or a sequence of expected agent messages with tool calls; when there are several messages, the last one is the final expected answer. The answer need not match it word for word, but it should cover the key points in the same spirit.

Keep the grading short and specific.

[[ ## criteria ## ]]
{{criteria}}

[[ ## question ## ]]
{{input}}

[[ ## reference_answer ## ]]
{{expected_output}}

[[ ## answer ## ]]
{{output}}`

	v4FreeformSystem = `Reply with a single JSON object in this shape and nothing else:

{
  "score": <number from 0.0 to 1.0>,
  "assertions": [
    {
      "text": "<what was checked, briefly>",
      "passed": <true or false>,
      "evidence": "<short evidence, one or two sentences; optional>"
    }
  ],
  "details": {<optional object of structured, domain-specific metrics>}
}`

	v4ChecklistSystem = `You are an expert grader. Check the candidate answer against each rubric item.
Reply with a single valid JSON object in this shape:
{
  "checks": [
    {
      "id": "string (the rubric id)",
      "satisfied": boolean,
      "reasoning": "string (a short explanation)"
    }
  ],
  "overall_reasoning": "string (a summary)"
}`

	v4RangeSystem = `You are an expert grader. Score the candidate answer on each criterion.
Reply with a single valid JSON object in this shape:
{
  "checks": [
    {
      "id": "string (the criterion id)",
      "score": integer (0-10),
      "reasoning": "string (a short explanation of the score)"
    }
  ],
  "overall_reasoning": "string (a summary, optional)"
}

The "score" must be a whole number from 0 to 10 inside one of the score ranges defined for that criterion.`
)

// v4OperatorGuidance explains each rubric operator to the judge.
var v4OperatorGuidance = map[string]string{
	"correctness":   "Correctness: count the item satisfied only when the answer positively supports or achieves the outcome; leaving it out or contradicting it does not satisfy it.",
	"contradiction": "Contradiction check: count the item satisfied unless the answer claims something incompatible with the outcome; the answer does not have to mention the outcome at all.",
}

// v4MaxAssertions caps the assertions kept from a free-form verdict.
const v4MaxAssertions = 8

// v4Assertion is one checked aspect of a 4.x verdict.
type v4Assertion struct {
	Text     string  `json:"text"`
	Passed   bool    `json:"passed"`
	Evidence *string `json:"evidence,omitempty"`
}

// v4Verdict maps 4.x assertions onto a verdict: passed ones are hits, failed ones misses,
// and "text: evidence" for those with evidence is the reasoning.
func v4Verdict(score float64, as []v4Assertion) verdict {
	v := verdict{score: score, hits: []string{}, misses: []string{}}
	var reasons []string
	for _, a := range as {
		if a.Passed {
			v.hits = append(v.hits, a.Text)
		} else {
			v.misses = append(v.misses, a.Text)
		}
		ra := results.Assertion{Text: a.Text, Passed: a.Passed}
		if a.Evidence != nil && strings.TrimSpace(*a.Evidence) != "" {
			ra.Evidence = strings.TrimSpace(*a.Evidence)
			reasons = append(reasons, a.Text+": "+ra.Evidence)
		}
		v.assertions = append(v.assertions, ra)
	}
	v.reasoning = strings.Join(reasons, "; ")
	return v
}

// llmGraderV4 is an llm-grader of a 4.x file: free-form with the 4.x prompt and {score,
// assertions} verdict, or with rubrics a checklist ({checks: [{id, satisfied}]}) or score
// ranges ({checks: [{id, score 0-10}]}).
func llmGraderV4(ctx context.Context, r *caseRun, spec *suite.EvaluatorSpec, set *rubricSet) verdict {
	// A 5.x llm-rubric's text value stands for the test's criteria (Criteria).
	criteria, override := cmp.Or(spec.Criteria, r.in.Case.ExpectedOutcome), ""
	switch p := spec.Prompt; {
	case p == nil:
	case p.Kind == suite.PromptInline && !suite.V4HasTemplateVariables(p.Text):
		criteria = cmp.Or(p.Text, criteria) // text without a 4.x variable is criteria for the default prompt
	case p.Kind == suite.PromptInline || p.Kind == suite.PromptFile:
		override = p.Text
	case p.Kind == suite.PromptScript:
		out, err := r.runTemplate(ctx, spec)
		if err == nil && out == "" {
			err = fmt.Errorf("prompt template %s printed nothing: a grader prompt is needed", p.Display)
		}
		if err != nil {
			return errorf(nil, "%v", err)
		}
		override = out
	}
	system, parse := v4FreeformSystem, parseV4Freeform
	pfRubric := set == nil && r.rules.PromptfooRubric
	if pfRubric {
		// promptfoo asks once and reads {reason, pass, score} with the assertion's own
		// threshold (graders.js, runJsonGradingPrompt).
		system, parse = pfRubricSystem, pfRubricReader(promptfooThreshold(spec))
	}
	if set != nil {
		system, parse = v4ChecklistSystem, func(reply string) (verdict, error) { return scoreV4Rubrics(set, reply) }
		if set.ranges {
			system = v4RangeSystem
		}
	}
	if r.rules.PromptfooReplies && !pfRubric && (set == nil || !set.ranges) {
		parse = withPromptfoo(parse, spec, set, criteria)
	}
	var user string
	switch vars := r.v4Vars(criteria, set); {
	case override != "":
		user = substitute(override, vars)
	case set == nil:
		user = substitute(v4GraderTemplate, vars)
		if tc := r.toolCallsV4(); tc != "" {
			user += "\n\n[[ ## tool_calls ## ]]\n" + tc
		}
	case set.ranges:
		user = r.v4RangePrompt(set, criteria)
	default:
		user = r.v4ChecklistPrompt(set, criteria)
	}
	r.temperature = v4Temperature(spec)
	defer func() { r.temperature = nil }()
	return r.grade(ctx, spec.Target, user, system, parse, !r.rules.PromptfooRubric)
}

// v4Attempts is how many times a judge is asked before its reply is sent back for repair.
const v4Attempts = 3

// askV4 asks the judge as AgentV 4.42.4's llm-grader does (graders/llm-grader.ts,
// runWithRetry): up to three calls until a reply parses, a failed call (after its own HTTP
// retries) using up an attempt; then, if the last reply was text that does not parse, once more
// with that reply and what is wrong with it. A timed-out call or a cancelled run ends the asking:
// 4.42.4 has no time limit to compare with, and asking again would triple the wait.
func askV4(ctx context.Context, user string, ask func(user string) (string, error), parse func(string) (verdict, error)) (verdict, error) {
	var lastErr, callErr error
	lastReply := ""
	for i := 0; i <= v4Attempts; i++ {
		if i == v4Attempts { // the repair request
			if strings.TrimSpace(lastReply) == "" {
				break
			}
			user = "This grading reply has useful content but not the JSON structure the system prompt asks for.\n" +
				"Rewrite it to match that structure. Keep its meaning, do not grade the answer again, and reply with one JSON object only.\n\n" +
				"What is wrong:\n" + lastErr.Error() + "\n\nThe reply:\n" + lastReply
		}
		reply, err := ask(user)
		if err != nil {
			if i == v4Attempts || isTimeout(err) || ctx.Err() != nil {
				return verdict{}, err
			}
			lastErr, callErr = err, err
			continue
		}
		v, perr := parse(reply)
		if perr == nil {
			return v, nil
		}
		lastErr, callErr, lastReply = perr, nil, reply
	}
	if callErr != nil {
		return verdict{}, fmt.Errorf("%w (the grader asked %d times)", callErr, v4Attempts)
	}
	return verdict{}, fmt.Errorf("the judge's reply held no valid verdict after %d attempts and a repair request: %w; reply: %s",
		v4Attempts, lastErr, proc.Excerpt(lastReply, 200))
}

// v4Vars is the lookup of 4.x template variables.
func (r *caseRun) v4Vars(criteria string, set *rubricSet) func(string) (string, bool) {
	c := r.in.Case
	return func(name string) (string, bool) {
		switch name {
		case "input":
			return r.question(), true
		case "output":
			return strings.TrimSpace(r.in.Candidate), true
		case "expected_output":
			return strings.TrimSpace(c.ReferenceAnswer), true
		case "criteria":
			return strings.TrimSpace(criteria), true
		case "rubrics", "rubrics_json":
			if set == nil {
				return "", true
			}
			b, _ := jsonx.Marshal(v4RubricsJSON(set))
			if name == "rubrics" {
				b = jsonx.Indent(b)
			}
			return string(b), true
		case "tool_calls":
			return r.toolCallsV4(), true
		case "metadata", "metadata_json":
			// The test's metadata as JSON, indented by two spaces or compact; empty without
			// any (graders/llm-grader.ts, buildTemplateVariables).
			if len(c.Metadata) == 0 {
				return "", true
			}
			if name == "metadata" {
				return string(jsonx.Indent(c.Metadata)), true
			}
			return string(c.Metadata), true
		case "file_changes":
			return r.in.FileChanges, true
		}
		return "", false
	}
}

// v4RubricsJSON renders rubric items as 4.x shows them to templates.
func v4RubricsJSON(set *rubricSet) []any {
	type rng struct {
		Range   [2]int `json:"score_range"`
		Outcome string `json:"outcome"`
	}
	type item struct {
		ID        string   `json:"id"`
		Outcome   string   `json:"outcome,omitempty"`
		Operator  string   `json:"operator,omitempty"`
		Weight    float64  `json:"weight"`
		Required  *bool    `json:"required,omitempty"`
		MinScore  *float64 `json:"min_score,omitempty"`
		ReqMin    *int     `json:"required_min_score,omitempty"`
		ScoreRngs []rng    `json:"score_ranges,omitempty"`
	}
	out := make([]any, 0, len(set.items))
	for _, it := range set.items {
		x := item{ID: it.id, Outcome: it.outcome, Operator: it.operator, Weight: it.weight, MinScore: it.minUnit, ReqMin: it.minScore}
		if len(it.ranges) == 0 || it.required {
			x.Required = new(it.required)
		}
		for _, sr := range it.ranges {
			x.ScoreRngs = append(x.ScoreRngs, rng{[2]int{sr.min, sr.max}, sr.outcome})
		}
		out = append(out, x)
	}
	return out
}

// v4Sections writes the question, criteria, reference answer (when there is one) and answer
// sections of the rubric prompts.
func (r *caseRun) v4Sections(b *strings.Builder, criteria string) {
	fmt.Fprintf(b, "\n[[ ## question ## ]]\n%s\n\n[[ ## criteria ## ]]\n%s\n\n", r.question(), criteria)
	if ref := r.in.Case.ReferenceAnswer; strings.TrimSpace(ref) != "" {
		fmt.Fprintf(b, "[[ ## reference_answer ## ]]\n%s\n\n", ref)
	}
	fmt.Fprintf(b, "[[ ## answer ## ]]\n%s\n\n", r.in.Candidate)
	if tc := r.toolCallsV4(); tc != "" {
		fmt.Fprintf(b, "[[ ## tool_calls ## ]]\n%s\n\n", tc)
	}
}

// toolCallsV4 is the summary of the target's tool calls for 4.x prompts.
func (r *caseRun) toolCallsV4() string {
	if r.in.Response == nil {
		return ""
	}
	return v4ToolCalls(r.in.Response.OutputMessages)
}

// v4Guidance lists the guidance of each operator the rubrics use, in order of first use.
func v4Guidance(set *rubricSet) []string {
	var out []string
	for _, it := range set.items {
		if g, ok := v4OperatorGuidance[it.operator]; ok && !slices.Contains(out, g) {
			out = append(out, g)
		}
	}
	return out
}

// v4ChecklistPrompt is the user prompt of a rubric checklist.
func (r *caseRun) v4ChecklistPrompt(set *rubricSet, criteria string) string {
	var b strings.Builder
	b.WriteString("You are an expert grader. Check the candidate answer against each rubric item below.\n")
	r.v4Sections(&b, criteria)
	b.WriteString("[[ ## rubrics ## ]]\n")
	if g := v4Guidance(set); len(g) > 0 {
		b.WriteString("\nOperator guidance:\n")
		for _, line := range g {
			b.WriteString("- " + line + "\n")
		}
		b.WriteString("\n")
	}
	for _, it := range set.items {
		fmt.Fprintf(&b, "- [%s]", it.id)
		if it.required {
			b.WriteString(" (REQUIRED)")
		}
		if it.weight != 1 {
			fmt.Fprintf(&b, " (weight: %s)", jsNumber(it.weight))
		}
		if it.operator != "" {
			fmt.Fprintf(&b, " (operator: %s)", it.operator)
		}
		fmt.Fprintf(&b, ": %s\n", it.outcome)
	}
	b.WriteString("\nFor each rubric item, decide whether it is satisfied and give a short reason.")
	return b.String()
}

// v4RangePrompt is the user prompt of score-range criteria.
func (r *caseRun) v4RangePrompt(set *rubricSet, criteria string) string {
	var b strings.Builder
	b.WriteString("You are an expert grader. Score the candidate answer on each criterion below with the score ranges given.\n")
	b.WriteString("For each criterion, give a whole-number score from 0 to 10 according to the score range that best fits the answer.\n")
	r.v4Sections(&b, criteria)
	b.WriteString("[[ ## scoring_criteria ## ]]\n")
	for _, it := range set.items {
		fmt.Fprintf(&b, "\n### Criterion: %s", it.id)
		if it.weight != 1 {
			fmt.Fprintf(&b, " (weight: %s)", jsNumber(it.weight))
		}
		switch {
		case it.minUnit != nil:
			fmt.Fprintf(&b, " [REQUIRED: min score %s]", jsNumber(*it.minUnit))
		case it.minScore != nil:
			fmt.Fprintf(&b, " [REQUIRED: min score %d]", *it.minScore)
		}
		b.WriteString("\n")
		if it.operator != "" {
			fmt.Fprintf(&b, "Operator: %s\n", it.operator)
		}
		if it.outcome != "" {
			fmt.Fprintf(&b, "Description: %s\n", it.outcome)
		}
		if len(it.ranges) > 0 {
			b.WriteString("Score ranges:\n")
			for _, sr := range it.ranges {
				label := strconv.Itoa(sr.min)
				if sr.min != sr.max {
					label += "-" + strconv.Itoa(sr.max)
				}
				fmt.Fprintf(&b, "  - Score %s: %s\n", label, sr.outcome)
			}
		}
	}
	if g := v4Guidance(set); len(g) > 0 {
		b.WriteString("\n" + strings.Join(g, "\n") + "\n")
	}
	b.WriteString("\nFor each criterion, give a whole-number score from 0 to 10 that falls in one of its score ranges.")
	return b.String()
}

// v4ReplyObject reads a judge reply the way 4.x does (agentvJSONText), as one JSON object,
// keys matched exactly (the last of a repeated key wins).
func v4ReplyObject(reply string) (map[string]json.RawMessage, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal([]byte(agentvJSONText(reply)), &obj); err != nil {
		return nil, fmt.Errorf("not valid JSON: %w", err)
	}
	if obj == nil {
		return nil, errors.New("expected a JSON object")
	}
	return obj, nil
}

// v4Object checks the fields of a reply object in order, as 4.x's schema does; err keeps the
// first problem, after which every check is skipped.
type v4Object struct {
	m    map[string]json.RawMessage
	path string
	err  *error
}

// get returns key's value, which must be of kind want (or absent, when optional).
func (o v4Object) get(key, want string, optional bool) json.RawMessage {
	raw, ok := o.m[key]
	switch {
	case *o.err != nil || !ok && optional:
		return nil
	case !ok:
		*o.err = fmt.Errorf("%s%s: required", o.path, key)
	case jsonKind(raw) != want:
		*o.err = fmt.Errorf("%s%s: expected %s, received %s", o.path, key, want, jsonKind(raw))
	default:
		return raw
	}
	return nil
}

// str returns key's string value, nil when it is absent (or after a problem).
func (o v4Object) str(key string, optional bool) *string {
	raw := o.get(key, "string", optional)
	if raw == nil {
		return nil
	}
	var s string
	_ = json.Unmarshal(raw, &s)
	return &s
}

// each calls item with each object of the list key.
func (o v4Object) each(key string, optional bool, item func(v4Object)) {
	var items []json.RawMessage
	_ = json.Unmarshal(o.get(key, "array", optional), &items)
	for i, it := range items {
		m := v4Object{path: fmt.Sprintf("%s[%d].", key, i), err: o.err}
		if *o.err != nil {
			return
		}
		if jsonKind(it) != "object" || json.Unmarshal(it, &m.m) != nil {
			*o.err = fmt.Errorf("%s[%d]: expected object, received %s", key, i, jsonKind(it))
			return
		}
		item(m)
	}
}

// parseV4Freeform reads {score (0-1), assertions?: [{text, passed, evidence?}], details?}.
func parseV4Freeform(reply string) (verdict, error) {
	m, err := v4ReplyObject(reply)
	if err != nil {
		return verdict{}, err
	}
	obj := v4Object{m: m, err: &err}
	raw := obj.get("score", "number", false)
	if err != nil {
		return verdict{}, err
	}
	score, _ := parseScoreRaw(raw)
	if score < 0 || score > 1 {
		return verdict{}, fmt.Errorf("score: must be from 0 to 1, got %s", raw)
	}
	var as []v4Assertion
	obj.each("assertions", true, func(a v4Object) {
		text, passed := a.str("text", false), a.get("passed", "boolean", false)
		if ev := a.str("evidence", true); err == nil {
			as = append(as, v4Assertion{Text: *text, Passed: string(passed) == "true", Evidence: ev})
		}
	})
	details := obj.get("details", "object", true)
	if err != nil {
		return verdict{}, err
	}
	v := v4Verdict(clamp01(score), as[:min(len(as), v4MaxAssertions)])
	if details != nil && strings.TrimSpace(string(details)) != "{}" {
		v.details, _ = jsonx.AppendCompact(nil, details)
	}
	return v, nil
}

// v4Check is one item of a rubric verdict's checks.
type v4Check struct {
	id        string
	satisfied bool
	score     float64
	reasoning *string
}

// parseV4Checks reads `checks` (and checks `overall_reasoning`): checklist items need id,
// satisfied and reasoning, and the overall reasoning; score-range items need id and a whole
// score from 0 to 10.
func parseV4Checks(reply string, ranges bool) ([]v4Check, string, error) {
	m, err := v4ReplyObject(reply)
	if err != nil {
		return nil, "", err
	}
	obj := v4Object{m: m, err: &err}
	var checks []v4Check
	obj.each("checks", false, func(o v4Object) {
		id := o.str("id", false)
		var c v4Check
		if !ranges {
			c.satisfied = string(o.get("satisfied", "boolean", false)) == "true"
		} else if s := o.get("score", "number", false); s != nil {
			c.score, _ = parseScoreRaw(s)
			if c.score != math.Trunc(c.score) || c.score < 0 || c.score > 10 {
				err = fmt.Errorf("%sscore: must be a whole number from 0 to 10, got %s", o.path, s)
			}
		}
		if c.reasoning = o.str("reasoning", ranges); err == nil {
			c.id = *id
			checks = append(checks, c)
		}
	})
	overall := obj.str("overall_reasoning", ranges)
	if err != nil {
		return nil, "", err
	}
	if overall == nil {
		return checks, "", nil
	}
	return checks, *overall, nil
}

// scoreV4Rubrics scores a rubric verdict as 4.x does: only the checks whose id is a rubric
// count, each adding its rubric's weight to the total (earned when satisfied; for score
// ranges weight × score/10). A failed required item, or a score-range item below its
// minimum, fails the grader's verdict but leaves its score.
func scoreV4Rubrics(set *rubricSet, reply string) (verdict, error) {
	checks, overall, err := parseV4Checks(reply, set.ranges)
	if err != nil {
		return verdict{}, err
	}
	byID := make(map[string]*rubric, len(set.items))
	for i := range set.items {
		byID[set.items[i].id] = &set.items[i] // ids are unique (parseRubrics)
	}
	var as []v4Assertion
	var total, earned float64
	failed := false
	raw := map[string]float64{}
	for _, c := range checks {
		it, ok := byID[c.id]
		if !ok {
			continue
		}
		total += it.weight
		if !set.ranges {
			as = append(as, v4Assertion{Text: "[" + it.id + "] " + it.outcome, Passed: c.satisfied, Evidence: c.reasoning})
			if c.satisfied {
				earned += it.weight
			}
			failed = failed || !c.satisfied && it.required
			continue
		}
		score := math.Max(0, math.Min(10, c.score))
		raw[it.id] = score
		earned += score / 10 * it.weight
		minimum := math.Inf(-1)
		switch {
		case it.minUnit != nil:
			minimum = *it.minUnit
		case it.minScore != nil:
			minimum = float64(*it.minScore) / 10
		case it.required:
			minimum = 1
		}
		below := score/10 < minimum
		failed = failed || below
		desc := ""
		for _, sr := range it.ranges {
			if score >= float64(sr.min) && score <= float64(sr.max) {
				desc = sr.outcome
				break
			}
		}
		text := fmt.Sprintf("[%s] %s - Score: %s/10 (%s)", it.id, cmp.Or(it.outcome, it.id), jsNumber(score), desc)
		as = append(as, v4Assertion{Text: text, Passed: !below && score >= rangePassScore, Evidence: c.reasoning})
	}
	score := 0.0
	if total > 0 {
		score = clamp01(earned / total)
	}
	v := v4Verdict(score, as)
	v.forceFail = failed
	if o := strings.TrimSpace(overall); o != "" {
		v.reasoning = strings.TrimSuffix(o+"; "+v.reasoning, "; ")
	}
	if set.ranges {
		v.details, _ = jsonx.Marshal(struct {
			Raw           map[string]float64 `json:"raw_scores"`
			Normalization string             `json:"normalization"`
			Aggregation   string             `json:"aggregation"`
		}{raw, "score / 10", "weighted_average"})
	}
	return v, nil
}

// v4Temperature is an llm-grader's `temperature` (0 to 2), which AgentV 4.x sends to the judge
// only when the grader names its own target; nil otherwise.
func v4Temperature(spec *suite.EvaluatorSpec) *float64 {
	if spec.Target == "" {
		return nil
	}
	s, _ := settingsOf(spec) // nil (no temperature) when they are not an object
	raw, _ := s.raw("temperature")
	var f float64
	if raw == nil || json.Unmarshal(raw, &f) != nil || f < 0 || f > 2 {
		return nil
	}
	return &f
}
