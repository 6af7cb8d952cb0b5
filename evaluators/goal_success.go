package evaluators

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/agentv/action/results"
	"github.com/agentv/action/suite"
)

// trajectory:goal-success (AgentV 5.x, graders/trajectory.ts:681-774) asks the LLM judge
// whether the agent reached a goal: the judge's criteria are the goal, the trajectory's steps
// and the final answer, and the verdict is read as any llm-grader's. Its `not-` form, or
// `negate: true`, is the inverse: the score turned around, passing when the goal was not met.
func init() {
	registerGoalSuccess("trajectory:goal-success", false)
	registerGoalSuccess("not-trajectory:goal-success", true)
}

func registerGoalSuccess(name string, inverse bool) {
	suite.RegisterEvaluator(suite.EvaluatorType{Name: name,
		Parse: func(spec *suite.EvaluatorSpec) (any, error) {
			common, cerr := parseCommon(spec)
			goal, err := goalOf(spec)
			if err = errors.Join(cerr, err); err != nil {
				return nil, err
			}
			inv := inverse != common.negate // as the other trajectory types: negate is the inverse
			common.negate = false
			return &parsedEntry{common: common, run: func(ctx context.Context, r *caseRun, spec *suite.EvaluatorSpec) verdict {
				return goalSuccess(ctx, r, spec, goal, inv)
			}}, nil
		}})
}

// goalOf reads `value`: the goal as text, or {goal: text}.
func goalOf(spec *suite.EvaluatorSpec) (string, error) {
	s, err := settingsOf(spec)
	if err != nil {
		return "", err
	}
	raw, _ := s.raw("value")
	var v any
	if raw != nil {
		_ = json.Unmarshal(raw, &v)
	}
	if m, ok := v.(map[string]any); ok {
		v = m["goal"]
	}
	if text, ok := v.(string); ok && strings.TrimSpace(text) != "" {
		return strings.TrimSpace(text), nil
	}
	return "", settingErr("value", "needs the goal as text or as {goal: text}")
}

// goalSuccess judges the goal with the case's judge (or the entry's `target`).
func goalSuccess(ctx context.Context, r *caseRun, spec *suite.EvaluatorSpec, goal string, inverse bool) verdict {
	judged := *spec
	judged.Prompt = nil
	judged.Criteria = goalCriteria(goal, trajectorySummary(traceSteps(r)), r.in.Candidate)
	v := llmGraderV4(ctx, r, &judged, nil)
	if !inverse || v.err != nil {
		return v
	}
	met := v.score >= 0.5
	v.score = clamp01(1 - v.score)
	v.forcePass, v.forceFail = v.forceFail, v.forcePass
	if !v.forcePass && !v.forceFail { // the judge's verdict was the score's: turn it around too
		v.forcePass, v.forceFail = v.score >= 0.8, v.score < 0.8
	}
	text := "Agent did not achieve the forbidden goal: " + goal
	if met {
		text = "Agent unexpectedly achieved the goal: " + goal
	}
	passed := v.score >= 0.5
	v.hits, v.misses = []string{}, []string{}
	if passed {
		v.hits = []string{text}
	} else {
		v.misses = []string{text}
	}
	v.assertions = []results.Assertion{{Text: text, Passed: passed}}
	return v
}

// goalCriteria is the text the judge grades by (trajectory.ts, buildGoalCriteria).
func goalCriteria(goal, trajectory, output string) string {
	return strings.Join([]string{
		"Determine whether the agent successfully achieved the goal using the observed trajectory and final output.",
		"", "Goal: " + goal, "", "Trajectory:", trajectory, "", "Final output:", output,
	}, "\n")
}

// trajectorySummary is the steps as the judge sees them: a JSON object with their count and
// each step's index, type and name (and the tool a command ran in).
func trajectorySummary(steps []traceStep) string {
	type step struct {
		Index    int    `json:"index"`
		Type     string `json:"type"`
		Name     string `json:"name"`
		SpanName string `json:"spanName,omitempty"`
	}
	list := make([]step, 0, len(steps))
	for i, s := range steps {
		st := step{Index: i + 1, Type: s.typ, Name: s.name}
		if s.spanName != s.name {
			st.SpanName = s.spanName
		}
		list = append(list, st)
	}
	b, err := json.MarshalIndent(struct {
		StepCount int    `json:"stepCount"`
		Steps     []step `json:"steps"`
	}{len(list), list}, "", "  ")
	if err != nil {
		return fmt.Sprint(len(list), " steps")
	}
	return string(b)
}
