package evaluators

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/agentv/action/internal/jsonx"
	"github.com/agentv/action/internal/proc"
	"github.com/agentv/action/suite"
)

// System prompts of the two rubric modes (AgentV 2.5's wording); custom prompts do not apply.
const (
	checklistSystemPrompt = `You grade answers against a checklist. Reply with exactly one JSON object and nothing else, shaped like this:
{"checks": [{"id": "<rubric id>", "satisfied": <true or false>, "reasoning": "<one short sentence>"}], "overall_reasoning": "<one or two sentences>"}
Give one check for every rubric id listed.`
	rangesSystemPrompt = `You score answers against criteria on a scale of 0 to 10. Reply with exactly one JSON object and nothing else, shaped like this:
{"checks": [{"id": "<criterion id>", "score": <whole number from 0 to 10>, "reasoning": "<one short sentence>"}], "overall_reasoning": "<one or two sentences>"}
Give one check for every criterion id listed, choosing the score whose range description fits the answer best.`
)

// rangePassScore is the 0–10 score from which a score-range criterion counts as a hit.
const rangePassScore = 7

type scoreRange struct {
	min, max int
	outcome  string
}

type rubric struct {
	id       string
	outcome  string
	weight   float64
	required bool
	minScore *int // required_min_score (0–10)
	ranges   []scoreRange
	// minUnit is 4.x's `min_score` (0–1), which gates a score-range criterion; operator is
	// 4.x's correctness or contradiction.
	minUnit  *float64
	operator string
}

type rubricSet struct {
	items  []rubric
	ranges bool // some rubric has score ranges: the whole evaluator scores 0–10 per criterion
}

// `type: rubric` is an llm_judge that must have rubrics.
func init() {
	register("rubric", nil, nil, func(spec *suite.EvaluatorSpec) (*rubricSet, error) {
		set, err := rubricsOf(spec)
		if err == nil && set == nil {
			err = errors.New("rubric evaluator needs `rubrics`")
		}
		return set, err
	}, llmJudge)
}

// rubricsOf returns the evaluator's rubrics, nil when it has none.
func rubricsOf(spec *suite.EvaluatorSpec) (*rubricSet, error) {
	if isNull(spec.Settings) || !strings.Contains(string(spec.Settings), `"rubrics"`) {
		return nil, nil
	}
	s, err := settingsOf(spec)
	if err != nil {
		return nil, err
	}
	var raw []json.RawMessage
	if ok, err := s.decode(&raw, "rubrics"); err != nil || !ok {
		return nil, err
	}
	return parseRubrics(raw)
}

func parseRubrics(raw []json.RawMessage) (*rubricSet, error) {
	set := &rubricSet{}
	seen := map[string]bool{}
	for i, item := range raw {
		r := rubric{id: "rubric-" + strconv.Itoa(i+1), weight: 1, required: true}
		at := fmt.Sprintf("rubrics[%d]", i)
		if json.Unmarshal(item, &r.outcome) == nil {
			r.outcome = strings.TrimSpace(r.outcome)
		} else if !bytes.HasPrefix(bytes.TrimSpace(item), []byte("{")) {
			return nil, settingErr(at, "want a string or {id, expected_outcome, weight?, required?, score_ranges?}, got %s", item)
		} else if err := parseRubric(item, at, &r); err != nil {
			return nil, err
		}
		if len(r.ranges) == 0 && r.outcome == "" {
			return nil, settingErr(at, "rubric %q has no expected_outcome", r.id)
		}
		if seen[r.id] {
			return nil, settingErr(at+".id", "duplicate rubric id %q", r.id)
		}
		seen[r.id] = true
		set.ranges = set.ranges || len(r.ranges) > 0
		set.items = append(set.items, r)
	}
	if len(set.items) == 0 {
		return nil, settingErr("rubrics", "must not be empty")
	}
	return set, nil
}

// parseRubric reads a rubric written as an object into r.
func parseRubric(item json.RawMessage, at string, r *rubric) error {
	var obj struct {
		ID          string   `json:"id"`
		Outcome     string   `json:"expected_outcome"`
		Description string   `json:"description"`
		Weight      *float64 `json:"weight"`
		Required    *bool    `json:"required"`
		MinScore    *float64 `json:"required_min_score"`
		MinUnit     *float64 `json:"min_score"`
		Operator    string   `json:"operator"`
		Ranges      []struct {
			Range       []float64 `json:"score_range"`
			Outcome     string    `json:"expected_outcome"`
			Description string    `json:"description"`
		} `json:"score_ranges"`
	}
	if err := decodeAt(item, &obj, at); err != nil {
		return err
	}
	r.id = cmp.Or(obj.ID, r.id)
	r.outcome = cmp.Or(strings.TrimSpace(obj.Outcome), strings.TrimSpace(obj.Description))
	r.operator = obj.Operator
	if w := obj.Weight; w != nil {
		if *w < 0 || math.IsNaN(*w) || math.IsInf(*w, 0) {
			return settingErr(at+".weight", "must be a number >= 0")
		}
		r.weight = *w
	}
	if m := obj.MinScore; m != nil {
		if n := int(*m); float64(n) != *m || n < 0 || n > 10 {
			return settingErr(at+".required_min_score", "must be a whole number from 0 to 10")
		}
		r.minScore = new(int(*m))
	}
	if m := obj.MinUnit; m != nil {
		if !(*m > 0 && *m <= 1) {
			return settingErr(at+".min_score", "must be a number above 0 and at most 1")
		}
		r.minUnit = m
		if r.minScore == nil {
			r.minScore = new(int(math.Round(*m * 10)))
		}
	}
	for j, sr := range obj.Ranges {
		if len(sr.Range) != 2 || sr.Range[0] != math.Trunc(sr.Range[0]) || sr.Range[1] != math.Trunc(sr.Range[1]) ||
			sr.Range[0] < 0 || sr.Range[1] > 10 || sr.Range[0] > sr.Range[1] {
			return settingErr(fmt.Sprintf("%s.score_ranges[%d].score_range", at, j),
				"must be [min, max] with whole numbers 0 <= min <= max <= 10")
		}
		r.ranges = append(r.ranges, scoreRange{int(sr.Range[0]), int(sr.Range[1]),
			cmp.Or(strings.TrimSpace(sr.Outcome), strings.TrimSpace(sr.Description))})
	}
	// Checklist items are required unless they say otherwise; score-range items gate only
	// when asked to (required_min_score, or the legacy required: true).
	r.required = obj.Required == nil && len(r.ranges) == 0 || obj.Required != nil && *obj.Required
	return nil
}

// rubricPrompt renders the rubric-mode user prompt and picks its system prompt.
func (r *caseRun) rubricPrompt(set *rubricSet) (user, system string) {
	vars := r.templateVars()
	var b strings.Builder
	if set.ranges {
		b.WriteString("You are an expert grader. Score the candidate_answer against each criterion below on a scale of 0 to 10, using the score ranges given for it.\n")
		system = rangesSystemPrompt
	} else {
		b.WriteString("You are an expert grader. Decide for each rubric below whether the candidate_answer satisfies it.\n")
		system = checklistSystemPrompt
	}
	for _, name := range [...]string{"question", "expected_outcome", "reference_answer", "candidate_answer"} {
		v, _ := vars(name)
		if name == "reference_answer" && v == "" {
			continue
		}
		fmt.Fprintf(&b, "\n[[ ## %s ## ]]\n%s\n", name, v)
	}
	b.WriteString("\n[[ ## rubrics ## ]]\n")
	for _, it := range set.items {
		fmt.Fprintf(&b, "- [%s]", it.id)
		if it.required && !set.ranges {
			b.WriteString(" (REQUIRED)")
		}
		if it.minScore != nil {
			fmt.Fprintf(&b, " (minimum score: %d)", *it.minScore)
		}
		if it.weight != 1 {
			fmt.Fprintf(&b, " (weight: %s)", strconv.FormatFloat(it.weight, 'f', -1, 64))
		}
		if it.outcome != "" {
			b.WriteString(": " + it.outcome)
		}
		b.WriteByte('\n')
		for _, sr := range it.ranges {
			fmt.Fprintf(&b, "    %d-%d: %s\n", sr.min, sr.max, sr.outcome)
		}
	}
	return b.String(), system
}

// scoreRubrics reads a rubric-mode reply. A reply without a usable checks list scores 0 and
// is not an error, as for free-form verdicts. A rubric the judge did not assess counts as
// unmet (AgentV leaves it out of the denominator, which rewards skipping).
func scoreRubrics(set *rubricSet, reply string) (verdict, error) {
	v := verdict{hits: []string{}, misses: []string{}}
	var obj struct {
		Checks  []json.RawMessage `json:"checks"`
		Overall string            `json:"overall_reasoning"`
	}
	if raw, ok := jsonx.FirstObject(reply); !ok || json.Unmarshal(raw, &obj) != nil || obj.Checks == nil {
		v.reasoning = "judge reply held no rubric checks: " + proc.Excerpt(reply, 200)
		return v, errNoVerdict
	}
	type check struct {
		satisfied *bool
		score     *float64
		reasoning string
	}
	checks := map[string]check{}
	for _, c := range obj.Checks {
		var item struct {
			ID        any             `json:"id"`
			Satisfied *bool           `json:"satisfied"`
			Score     json.RawMessage `json:"score"`
			Reasoning string          `json:"reasoning"`
		}
		if json.Unmarshal(c, &item) != nil {
			continue
		}
		if _, dup := checks[fmt.Sprint(item.ID)]; !dup {
			ch := check{satisfied: item.Satisfied, reasoning: strings.TrimSpace(item.Reasoning)}
			if f, ok := parseScoreRaw(item.Score); ok {
				ch.score = &f
			}
			checks[fmt.Sprint(item.ID)] = ch
		}
	}
	var sum, wsum float64
	for _, it := range set.items {
		ch, found := checks[it.id]
		label := "[" + it.id + "]"
		if it.outcome != "" {
			label += " " + it.outcome
		}
		note := func(s string) string { // the judge's reasoning, else s
			if ch.reasoning != "" {
				return label + ": " + ch.reasoning
			}
			return label + s
		}
		wsum += it.weight
		switch {
		case set.ranges && (!found || ch.score == nil):
			v.misses = append(v.misses, label+": not scored by the judge")
			v.forceFail = v.forceFail || it.required || it.minScore != nil
		case set.ranges:
			score := math.Max(0, math.Min(10, math.Round(*ch.score)))
			sum += it.weight * score / 10
			gate, scored := -1, fmt.Sprintf(" scored %.0f/10", score)
			if it.minScore != nil {
				gate = *it.minScore
			} else if it.required {
				gate = 10
			}
			switch {
			case gate >= 0 && int(score) < gate:
				v.forceFail = true
				v.misses = append(v.misses, note(fmt.Sprintf("%s, below the required %d", scored, gate)))
			case score >= rangePassScore:
				v.hits = append(v.hits, note(scored))
			default:
				v.misses = append(v.misses, note(scored))
			}
		case !found || ch.satisfied == nil:
			v.misses = append(v.misses, label+": not assessed by the judge")
			v.forceFail = v.forceFail || it.required
		case *ch.satisfied:
			sum += it.weight
			v.hits = append(v.hits, note(""))
		default:
			v.misses = append(v.misses, note(""))
			v.forceFail = v.forceFail || it.required
		}
	}
	if wsum > 0 {
		v.score = sum / wsum
	}
	v.reasoning = strings.TrimSpace(obj.Overall)
	return v, nil
}

// parseScoreRaw reads a JSON number without clamping.
func parseScoreRaw(raw json.RawMessage) (float64, bool) {
	var f float64
	if len(raw) == 0 || json.Unmarshal(raw, &f) != nil {
		return 0, false
	}
	return f, true
}
