package evaluators

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentv/action/internal/jsonx"
	"github.com/agentv/action/internal/proc"
	"github.com/agentv/action/internal/safefile"
	"github.com/agentv/action/results"
	"github.com/agentv/action/suite"
)

// Composite aggregator kinds, as AgentV 2.5 names them.
const (
	aggWeightedAverage = "weighted_average"
	aggCodeJudge       = "code_judge"
	aggLLMJudge        = "llm_judge"
	aggThreshold       = "threshold" // AgentV 4.x: the share of members that pass
)

type compositeConfig struct {
	kind      string
	weights   map[string]float64
	path      string  // code_judge: a shell command
	prompt    string  // llm_judge: inline text or a file path
	threshold float64 // threshold: the share of passing members needed to pass
}

func init() { register("composite", nil, nil, parseComposite, composite) }

func parseComposite(spec *suite.EvaluatorSpec) (*compositeConfig, error) {
	s, err := settingsOf(spec)
	if err != nil {
		return nil, err
	}
	if len(spec.Members) == 0 {
		return nil, errors.New("composite needs `evaluators`")
	}
	var agg struct {
		Type      string                     `json:"type"`
		Weights   map[string]json.RawMessage `json:"weights"`
		Path      string                     `json:"path"`
		Prompt    string                     `json:"prompt"`
		Threshold json.RawMessage            `json:"threshold"`
	}
	if _, err := s.decode(&agg, "aggregator"); err != nil {
		return nil, err
	}
	cfg := &compositeConfig{kind: agg.Type, weights: map[string]float64{}, path: agg.Path, prompt: agg.Prompt}
	var names []string
	for _, m := range spec.Members {
		names = append(names, cmp.Or(m.Name, m.Type))
	}
	for _, name := range slices.Sorted(maps.Keys(agg.Weights)) {
		at := "aggregator.weights." + name
		if !slices.Contains(names, name) {
			return nil, settingErr(at, "no member is named %q (members: %s)", name, strings.Join(names, ", "))
		}
		if cfg.weights[name], err = nonNegative(agg.Weights[name], at); err != nil {
			return nil, err
		}
	}
	switch cfg.kind {
	case "", aggWeightedAverage:
		cfg.kind = aggWeightedAverage
	case aggCodeJudge, "code":
		cfg.kind = aggCodeJudge
		if strings.TrimSpace(cfg.path) == "" {
			return nil, settingErr("aggregator", "composite aggregator code_judge needs `path` (a command)")
		}
	case aggLLMJudge:
	case aggThreshold:
		var t float64
		if json.Unmarshal(agg.Threshold, &t) != nil || t < 0 || t > 1 {
			return nil, settingErr("aggregator.threshold", "must be a number from 0 to 1 (the share of members that must pass), got %s", cmp.Or(string(agg.Threshold), "nothing"))
		}
		cfg.threshold = t
	default:
		return nil, settingErr("aggregator.type", "unknown composite aggregator %q (want weighted_average, threshold, code_judge or llm_judge)", cfg.kind)
	}
	return cfg, nil
}

// composite runs its member evaluators in order and combines their verdicts. A member that
// cannot score makes the composite unable to score too (the case is errored).
func composite(ctx context.Context, r *caseRun, spec *suite.EvaluatorSpec, cfg *compositeConfig) verdict {
	v4 := r.rules.As442
	children := make([]results.EvaluatorResult, 0, len(spec.Members))
	for _, m := range spec.Members {
		if m == nil {
			continue
		}
		child := r.run(ctx, m)
		if w, ok := cfg.weights[child.Name]; ok {
			child.Weight = w
		} else if v4 {
			// 4.x weighs members by aggregator.weights alone, 1 when unnamed there; a member's
			// own weight is not read (graders/composite.ts, runWeightedAverage).
			child.Weight = 1
		}
		children = append(children, child)
	}
	var failed []string
	for _, c := range children {
		if c.Error != "" {
			failed = append(failed, fmt.Sprintf("member %q could not score: %s", c.Name, c.Error))
		}
	}
	// In 4.x files the averaging aggregators leave out members that could not score; the
	// composite cannot score only when none could.
	scored := children
	if v4 {
		scored = slices.DeleteFunc(slices.Clone(children), func(c results.EvaluatorResult) bool { return c.Error != "" })
	}
	var v verdict
	switch {
	case v4 && len(scored) == 0 && len(children) > 0:
	case cfg.kind == aggThreshold:
		v = thresholdAggregate(scored, cfg.threshold)
	case cfg.kind == aggCodeJudge:
		argv := []string{"sh", "-c", cfg.path}
		request := codeRequest(argv, r.dir())
		stdin := func(members []byte) []byte { return append(append([]byte(`{"results":`), members...), '}') }
		if v4 {
			v = r.runAggregatorV4(ctx, argv, jsonx.Indent(stdin(v4MembersJSON(children))), request)
		} else {
			v = r.runJudgeScript(ctx, "composite aggregator", argv, r.dir(), stdin(membersJSON(children)), request, nil)
		}
	case cfg.kind == aggLLMJudge:
		v = r.aggregateByJudge(ctx, spec, cfg, children)
	default:
		v = weightedAverage(scored)
	}
	v.children = children
	switch {
	case len(failed) == 0 || v.err != nil:
	case v4 && len(scored) > 0:
		v.misses = append(v.misses, failed...) // left out of the score, still reported
	default:
		v.err = errors.New(strings.Join(failed, "; "))
	}
	return v
}

// membersVerdict is an aggregator's verdict before scoring: the members' hits and misses
// prefixed with the member name, reasoning "member: text" joined with "; ".
func membersVerdict(children []results.EvaluatorResult) verdict {
	v := verdict{hits: []string{}, misses: []string{}}
	var parts []string
	for _, c := range children {
		for _, h := range c.Hits {
			v.hits = append(v.hits, "["+c.Name+"] "+h)
		}
		for _, m := range c.Misses {
			v.misses = append(v.misses, "["+c.Name+"] "+m)
		}
		if c.Reasoning != "" {
			parts = append(parts, c.Name+": "+c.Reasoning)
		}
	}
	v.reasoning = strings.Join(parts, "; ")
	return v
}

// weightedAverage is the default aggregator: the members' scores averaged by weight.
func weightedAverage(children []results.EvaluatorResult) verdict {
	v := membersVerdict(children)
	var sum, wsum float64
	for _, c := range children {
		sum += c.Weight * c.Score
		wsum += c.Weight
	}
	if wsum > 0 {
		v.score = sum / wsum
	}
	return v
}

// membersJSON renders {name: {score, weight, verdict, hits, misses, reasoning}} in order.
func membersJSON(children []results.EvaluatorResult) []byte {
	type member struct {
		Score     float64  `json:"score"`
		Weight    float64  `json:"weight"`
		Verdict   string   `json:"verdict"`
		Hits      []string `json:"hits"`
		Misses    []string `json:"misses"`
		Reasoning string   `json:"reasoning"`
	}
	// Scores are clamped (NaN is 0) and weights finite (weightOf, nonNegative), as JSON needs.
	return byName(children, func(c results.EvaluatorResult) any {
		return member{clamp01(c.Score), c.Weight, c.Verdict, nonNil(c.Hits), nonNil(c.Misses), c.Reasoning}
	})
}

// byName renders the members as one JSON object, in order: each member's name, then what
// entry gives for it. (A map would sort the names.)
func byName(children []results.EvaluatorResult, entry func(results.EvaluatorResult) any) []byte {
	b := []byte{'{'}
	for i, c := range children {
		if i > 0 {
			b = append(b, ',')
		}
		name, _ := jsonx.Marshal(c.Name)
		m, _ := jsonx.Marshal(entry(c))
		b = append(append(append(b, name...), ':'), m...)
	}
	return append(b, '}')
}

const defaultAggregatorPrompt = `You are an expert grader. Several evaluators have judged the candidate_answer below; combine their verdicts into one final verdict, weighing each by its weight and by how convincing its reasoning is.

[[ ## question ## ]]
{{ question }}

[[ ## expected_outcome ## ]]
{{ expected_outcome }}

[[ ## candidate_answer ## ]]
{{ candidate_answer }}

[[ ## evaluator_results ## ]]
{{ EVALUATOR_RESULTS_JSON }}
`

// aggregateByJudge asks the judge for the final verdict, given the members' results, with the
// file's dialect's prompt, members JSON, system prompt and reading of the reply.
func (r *caseRun) aggregateByJudge(ctx context.Context, spec *suite.EvaluatorSpec, cfg *compositeConfig, children []results.EvaluatorResult) verdict {
	tmpl, err := r.aggregatorPrompt(strings.TrimSpace(cfg.prompt))
	if err != nil {
		return errorf(nil, "could not read the aggregator prompt: %v", err)
	}
	vars, members, system, read := r.templateVars(), membersJSON, SystemPrompt, readVerdict
	if r.rules.As442 { // 4.x's prompt knows only the results
		vars = func(string) (string, bool) { return "", false }
		members, system = v4MembersJSON, v4FreeformSystem
		read = func(reply string) (verdict, error) { // one that cannot be read scores 0
			v, err := parseV4Freeform(reply)
			if err != nil {
				v = v4Verdict(0, []v4Assertion{{Text: "LLM aggregator failed: " + err.Error(), Passed: false}})
			}
			return v, err
		}
	}
	resultsJSON := string(jsonx.Indent(members(children)))
	user := substitute(tmpl, func(name string) (string, bool) {
		if name == "EVALUATOR_RESULTS_JSON" {
			return resultsJSON, true
		}
		return vars(name)
	})
	return r.grade(ctx, spec.Target, user, system, read, false)
}

// aggregatorPrompt is an llm_judge aggregator's prompt p, its dialect's default when p is "".
// In 2.5 a one-line p that names a file in the eval file's directory is that file; in 4.x a
// `file://` p is the file it names (4.42.4 sends the path itself as the prompt; the file is
// what is meant).
func (r *caseRun) aggregatorPrompt(p string) (string, error) {
	ref, isRef := strings.CutPrefix(p, "file://")
	switch {
	case p == "" && r.rules.As442:
		return v4AggregatorPrompt, nil
	case p == "":
		return defaultAggregatorPrompt, nil
	case r.rules.As442 && isRef:
		if !filepath.IsAbs(ref) {
			ref = filepath.Join(r.dir(), ref)
		}
		b, err := safefile.ReadFile(ref, safefile.LimitContent)
		return string(b), err
	case !r.rules.As442 && !strings.Contains(p, "\n"):
		b, err := safefile.ReadFile(filepath.Join(r.dir(), p), safefile.LimitContent)
		if errors.Is(err, fs.ErrNotExist) {
			return p, nil
		}
		return string(b), err
	}
	return p, nil
}

// thresholdAggregate scores a composite by the share of its members that pass (score at
// least 0.8 and no failed required rubric); it passes when that share reaches threshold.
func thresholdAggregate(children []results.EvaluatorResult, threshold float64) verdict {
	v := membersVerdict(children)
	passing := 0
	for _, c := range children {
		if c.Verdict == results.BandPass {
			passing++
		}
	}
	if len(children) > 0 {
		v.score = float64(passing) / float64(len(children))
	}
	summary := fmt.Sprintf("%d/%d evaluators passed (threshold: %s)", passing, len(children), jsNumber(threshold))
	if v.score >= threshold {
		v.hits = append([]string{summary}, v.hits...)
		v.forcePass = true
	} else {
		v.misses = append([]string{summary}, v.misses...)
		v.forceFail = true
	}
	return v
}

// v4MembersJSON renders the members' results as 4.x aggregators read them: by name, each
// {score, verdict (pass or fail), assertions: [{text, passed}], expectedAspectCount}.
func v4MembersJSON(children []results.EvaluatorResult) []byte {
	type member struct {
		Score      float64       `json:"score"`
		Verdict    string        `json:"verdict"`
		Assertions []v4Assertion `json:"assertions"`
		Aspects    int           `json:"expectedAspectCount"`
	}
	return byName(children, func(c results.EvaluatorResult) any {
		m := member{Score: clamp01(c.Score), Verdict: "fail", Assertions: []v4Assertion{}}
		if c.Verdict == results.BandPass {
			m.Verdict = "pass"
		}
		for _, h := range c.Hits {
			m.Assertions = append(m.Assertions, v4Assertion{Text: h, Passed: true})
		}
		for _, x := range c.Misses {
			m.Assertions = append(m.Assertions, v4Assertion{Text: x, Passed: false})
		}
		m.Aspects = max(len(m.Assertions), 1)
		return m
	})
}

// runAggregatorV4 runs a 4.x composite's code aggregator: its stdout's `score` (0 when it
// gives none, or prints no JSON object) and `assertions` are the composite's verdict.
func (r *caseRun) runAggregatorV4(ctx context.Context, argv []string, stdin []byte, request json.RawMessage) verdict {
	res, err := r.runProcess(ctx, argv, r.dir(), stdin, sdkEnv(argv))
	if err != nil {
		return errorf(request, "composite aggregator %v", err)
	}
	out := bytes.TrimSpace(res.Stdout)
	if len(out) == 0 || out[0] != '{' || !json.Valid(out) {
		v := v4Verdict(0, nil)
		v.misses = append(v.misses, "composite aggregator printed no JSON object: "+proc.Excerpt(string(out), stdoutInError))
		v.request = request
		return v
	}
	var obj struct {
		Score   json.RawMessage `json:"score"`
		Verdict string          `json:"verdict"`
	}
	_ = json.Unmarshal(out, &obj)
	v := parseV4GraderOutput(out)
	if _, ok := parseScoreRaw(obj.Score); !ok {
		v.score = 0 // an aggregator's score is never derived from its assertions
	}
	// Its own pass or fail wins over the score's.
	v.forcePass, v.forceFail = obj.Verdict == "pass", obj.Verdict == "fail"
	v.request = request
	return v
}

// v4AggregatorPrompt is the default prompt of a 4.x composite's llm-grader aggregator.
const v4AggregatorPrompt = `Here are the results of several graders:
{{EVALUATOR_RESULTS_JSON}}

Decide the final score and verdict from all of these results.
Reply with a JSON object holding the score (0.0-1.0), the verdict (pass or fail) and your reasoning.`
