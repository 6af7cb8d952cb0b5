package report

import (
	"slices"
	"strings"

	"github.com/agentv/action/results"
	"github.com/agentv/action/suite"
)

// A failed criterion alone ("Mentions tests") reads like praise; next to the judge's reason
// ("✖ Mentions tests — the poem never mentions tests") it says what went wrong.

// whyMark starts a Why that is a failed criterion shown with its reason.
const whyMark = "✖ "

// reasonSep joins a failed criterion and the judge's reason for it.
const reasonSep = " — "

// reasonRunes is the most of a reason shown next to a miss: a sentence or two. It is far below
// keepRunes, so a reason reads the same from a kept record as from the whole one.
const reasonRunes = 300

// shortReason is a reason on one line, its first reasonRunes characters when longer.
func shortReason(s string) string {
	s = oneLine(s)
	if end, n := runeOffset(s, reasonRunes); n == reasonRunes && end < len(s) {
		return s[:end] + "…"
	}
	return s
}

// missReason is the judge's reason for the miss m of the evaluators ers: the evidence of the
// failed criterion (4.x assertions and rubric checks), else the one reasoning of a 2.x LLM
// judge; "" when the miss comes with none (deterministic assertions, code judges, errors).
func missReason(ers []results.EvaluatorResult, m string) string {
	e, own := missOwner(ers, m)
	if e == nil || e.Error != "" {
		return ""
	}
	if len(e.Assertions) > 0 {
		for _, a := range e.Assertions {
			if !a.Passed && a.Text == own {
				return shortReason(a.Evidence)
			}
		}
		return ""
	}
	switch e.Type {
	case suite.TypeLLMJudge, "rubric", "llm-rubric": // llm-rubric: a 5.x judge, recorded as written
	default:
		return ""
	}
	r := shortReason(e.Reasoning)
	if r == "" || strings.Contains(oneLine(own), strings.TrimSuffix(r, "…")) {
		return "" // the miss says it already (a 2.x rubric check carries its own reasoning)
	}
	return r
}

// missOwner finds the evaluator whose verdict gave the miss m, the deepest one first (a
// composite lists its members' misses as "[member] miss"), and the miss as it wrote it.
func missOwner(ers []results.EvaluatorResult, m string) (*results.EvaluatorResult, string) {
	for i := range ers {
		e := &ers[i]
		for j := range e.EvaluatorResults {
			inner := m
			if rest, ok := strings.CutPrefix(m, "["+e.EvaluatorResults[j].Name+"] "); ok {
				inner = rest
			}
			if o, own := missOwner(e.EvaluatorResults[j:j+1], inner); o != nil {
				return o, own
			}
		}
		if slices.Contains(e.Misses, m) {
			return e, m
		}
	}
	return nil, ""
}

// withReason is a miss on one line followed by the judge's reason for it, after mark, when
// there is one (a Why marks it as a failure: whyMark).
func withReason(ers []results.EvaluatorResult, m, mark string) string {
	if r := missReason(ers, m); r != "" {
		return mark + oneLine(m) + reasonSep + r
	}
	return oneLine(m)
}

// firstMissOf is the first miss of misses that is not blank, as written.
func firstMissOf(misses []string) string {
	for _, m := range misses {
		if strings.TrimSpace(m) != "" {
			return m
		}
	}
	return ""
}
