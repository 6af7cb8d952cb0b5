package evaluators

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"strings"
	"time"

	"github.com/agentv/action/internal/proc"
	"github.com/agentv/action/internal/redact"
	"github.com/agentv/action/results"
	"github.com/agentv/action/suite"
)

// DefaultJudgeName is the name of the llm_judge that runs when a case configures none.
const DefaultJudgeName = "llm_judge"

// missMax is how much of an error a miss quotes; Error keeps the longer text.
const missMax = 600

// verdict is what one evaluator produced before naming, weighting and redaction.
type verdict struct {
	score     float64
	hits      []string
	misses    []string
	reasoning string
	request   json.RawMessage // evaluator_provider_request
	details   json.RawMessage
	err       error // the evaluator could not produce a score
	forceFail bool  // a required rubric failed: verdict fail whatever the score
	forcePass bool  // a 4.x threshold or aggregator verdict passed: verdict pass whatever the score
	children  []results.EvaluatorResult

	// assertions are a 4.x verdict's criteria with their evidence (results.Assertion).
	assertions []results.Assertion

	// returned is the score as the grader gave it before clamping to [0, 1] (a script's 1.5),
	// kept under GradingRules.ScoresAsReturned; nil when the grader gave none of its own.
	returned *float64
}

// evaluator scores a case with one entry's parsed settings: what a registered type's Parse
// leaves in EvaluatorSpec.Parsed.
type evaluator func(ctx context.Context, r *caseRun, spec *suite.EvaluatorSpec) verdict

// register adds an evaluator type, from the file that implements it: parse reads an entry's
// settings into a C when the suite loads (problems as *suite.SettingError, named by path),
// evaluate scores a case with that C. With keys (not nil) the type's settings are exactly
// those (besides the keys every entry may carry): the loader warns about any other key.
func register[C any](name string, aliases, keys []string, parse func(*suite.EvaluatorSpec) (C, error),
	evaluate func(context.Context, *caseRun, *suite.EvaluatorSpec, C) verdict) {
	suite.RegisterEvaluator(suite.EvaluatorType{Name: name, Aliases: aliases, Keys: keys,
		Parse: func(spec *suite.EvaluatorSpec) (any, error) {
			common, cerr := parseCommon(spec)
			cfg, err := parse(spec)
			if err = errors.Join(cerr, err); err != nil {
				return nil, err
			}
			return &parsedEntry{common: common, run: func(ctx context.Context, r *caseRun, spec *suite.EvaluatorSpec) verdict {
				return evaluate(ctx, r, spec, cfg)
			}}, nil
		}})
}

// parsedEntry is what a registered type's Parse leaves in EvaluatorSpec.Parsed.
type parsedEntry struct {
	run    evaluator
	common commonKeys
}

// settingErr is a problem with the setting at path ("fields[1].match").
func settingErr(path, format string, args ...any) error {
	return &suite.SettingError{Path: path, Msg: fmt.Sprintf(format, args...)}
}

// caseRun is the state shared by the evaluators of one case: the input, the options and the
// case's JSON renderings, built once on first use.
type caseRun struct {
	in    *Input
	opts  *Options
	rules suite.GradingRules // of the case's file (2.5's for a case built in code)
	data  caseData
	// retries counts the timed-out attempts tried again by the evaluator running now.
	retries int
	// temperature is the judge temperature of the 4.x llm-grader running now, nil for none.
	temperature *float64
	// answerValue is the answer as a 5.x transform left it (JSON), nil for the Candidate text;
	// caseErr, when set, is why no grader of the case can score (its transform failed).
	answerValue json.RawMessage
	caseErr     error
	// returned: the result run made last scored the grader's own number (verdict.returned),
	// which promptfoo's not- keeps (negate).
	returned bool
}

// defaultSpecs is the evaluator list of a case that configures none (read only).
var defaultSpecs = []*suite.EvaluatorSpec{{Name: DefaultJudgeName, Type: suite.TypeLLMJudge, Weight: 1,
	Parsed: evaluator(func(ctx context.Context, r *caseRun, spec *suite.EvaluatorSpec) verdict {
		return llmJudge(ctx, r, spec, nil)
	})}}

// Evaluate runs the case's evaluators in order (the default llm_judge when it has none) and
// aggregates their verdicts. It never fails as a whole: an evaluator that cannot produce a
// score becomes a result with score 0, Error set and a miss saying why, the others still
// run, and the Outcome is Errored.
func Evaluate(ctx context.Context, in *Input, opts *Options) *Outcome {
	if opts == nil {
		opts = &Options{}
	}
	in = normalizeInput(in)
	specs := in.Case.Evaluators
	isDefault := len(specs) == 0
	if isDefault {
		specs = defaultSpecs
	}
	r := &caseRun{in: in, opts: opts, data: caseData{in: in}}
	if in.Case.Suite != nil {
		r.rules = in.Case.Suite.Grading
	}
	if isDefault && r.rules.NoGradersPass {
		return noGraders()
	}
	r.applyCaseTransform(ctx)
	out := &Outcome{Results: make([]results.EvaluatorResult, 0, len(specs))}
	common := make([]commonKeys, 0, len(specs)) // of each result
	for _, spec := range specs {
		if spec == nil {
			continue
		}
		res, c := r.run(ctx, spec), commonOf(spec)
		if c.negate {
			r.negate(&res)
			r.zeroWeight(&res)
		}
		out.Results, common = append(out.Results, res), append(common, c)
	}
	aggregate(out)
	if r.rules.GraderErrorFails {
		out.Errored = false // a grader's error failed its assertion; the case is scored
	}
	if r.rules.ScoresAsReturned {
		out.Score = meanAsReturned(out.Results)
	}
	if r.rules.VerdictOfResults {
		verdictOfResults(out, in.Case.Threshold != nil)
	}
	requiredGate(out, common, opts.Threshold)
	if out.Errored && r.rules.As442 {
		out.Score = 0 // AgentV 4.x scores a test 0 when one of its graders could not score
	}
	if isDefault && len(out.Results) == 1 {
		// The default judge's request goes at the top of the record, where AgentV puts it,
		// and only there: the prompt holds the question and the answer, which are large enough
		// already without a second copy.
		out.DefaultJudgeRequest = out.Results[0].EvaluatorProviderRequest
		out.Results[0].EvaluatorProviderRequest = nil
	}
	return out
}

// normalizeInput returns in with a case, for inputs built in code.
func normalizeInput(in *Input) *Input {
	if in == nil {
		in = &Input{}
	}
	if in.Case == nil {
		cp := *in
		cp.Case = &suite.Case{}
		in = &cp
	}
	return in
}

// run executes one evaluator and turns its verdict into a result.
func (r *caseRun) run(ctx context.Context, spec *suite.EvaluatorSpec) (res results.EvaluatorResult) {
	start := time.Now()
	// A composite runs its members inside its own run: each result counts its own retries.
	outer := r.retries
	r.retries = 0
	defer func() { r.retries = outer }()
	t, known := suite.LookupEvaluator(spec.Type)
	typ := spec.Type
	if known {
		typ = t.Name // an alias names its type in results
	}
	name := cmp.Or(spec.Name, typ)
	v := func() (v verdict) {
		// A bug in one evaluator must not take the run down: it errors that evaluator only.
		defer func() {
			if p := recover(); p != nil {
				v = verdict{err: fmt.Errorf("internal error in evaluator: %v", p)}
			}
		}()
		eval, err := evaluatorOf(spec, t)
		switch {
		case err != nil:
			return verdict{err: err}
		case r.caseErr != nil:
			return verdict{err: r.caseErr}
		case spec.Transform != nil:
			return r.gradeTransformed(ctx, spec, name, eval)
		}
		return eval(ctx, r, spec)
	}()
	if v.err != nil {
		msg := v.err.Error()
		v.score = 0
		v.misses = append(v.misses, fmt.Sprintf("evaluator %q could not score: %s", name, proc.Excerpt(msg, missMax)))
		if v.reasoning == "" {
			v.reasoning = msg
		}
	}
	v.score = r.scoreOf(v)
	r.returned = v.returned != nil
	red := r.opts.Redactor
	res = results.EvaluatorResult{
		Name:                     name,
		Type:                     cmp.Or(spec.RecordType, typ),
		Score:                    v.score,
		Weight:                   weightOf(spec),
		Verdict:                  verdictOf(r.rules.PassFail, v.score),
		Hits:                     redactAll(red, v.hits),
		Misses:                   redactAll(red, v.misses),
		Reasoning:                red.String(v.reasoning),
		Assertions:               redactAssertions(red, v.assertions),
		EvaluatorProviderRequest: redactRaw(red, v.request),
		Details:                  redactRaw(red, v.details),
		EvaluatorResults:         v.children,
		DurationMS:               time.Since(start).Milliseconds(),
	}
	if r.retries > 0 {
		res.Attempts = 1 + r.retries
	}
	switch {
	case v.forceFail:
		res.Verdict = results.BandFail
	case v.forcePass && v.err == nil:
		res.Verdict = results.BandPass
	}
	if v.err != nil {
		res.Error = red.String(v.err.Error())
		if typ == suite.TypeLLMJudge && r.rules.As442 {
			// 4.42.4 marks an llm-grader that could not grade "skip" (llm-grader.ts:351); the
			// test is an error with score 0 there as here (orchestrator.ts:2142).
			res.Verdict = results.BandSkip
		}
		if r.rules.GraderErrorFails {
			res.Verdict = results.BandFail
		}
	}
	r.zeroWeight(&res)
	return res
}

// evaluatorOf returns the evaluator of a spec of type t (nil: unknown). A loaded spec carries
// it; one built in code has its settings read now, and bad ones are its error.
func evaluatorOf(spec *suite.EvaluatorSpec, t *suite.EvaluatorType) (evaluator, error) {
	switch p := spec.Parsed.(type) {
	case *parsedEntry:
		return p.run, nil
	case evaluator:
		return p, nil
	}
	if t == nil {
		return nil, fmt.Errorf("unknown evaluator type %q (want %s)", spec.Type, suite.EvaluatorTypeNames())
	}
	parsed, err := t.Parse(spec)
	if err != nil {
		return nil, err
	}
	return parsed.(*parsedEntry).run, nil
}

// weightOf is the evaluator's weight: 1 unless written; negative or non-finite counts as 0.
func weightOf(spec *suite.EvaluatorSpec) float64 {
	w := spec.Weight
	if !spec.WeightSet && w == 0 {
		return 1
	}
	if w < 0 || math.IsNaN(w) || math.IsInf(w, 0) {
		return 0
	}
	return w
}

// aggregate fills the case-level fields of out from its results, as AgentV 2.5 aggregates them.
func aggregate(out *Outcome) {
	var sum, wsum float64
	var reasons []string
	out.Hits, out.Misses = []string{}, []string{}
	for i := range out.Results {
		res := &out.Results[i]
		sum += res.Weight * res.Score
		wsum += res.Weight
		out.Hits = append(out.Hits, res.Hits...)
		out.Misses = append(out.Misses, res.Misses...)
		if res.Reasoning != "" {
			reasons = append(reasons, res.Name+": "+res.Reasoning)
		}
		out.Errored = out.Errored || res.Error != ""
	}
	out.Score = 0
	if wsum > 0 {
		out.Score = clamp01(sum / wsum)
	}
	out.Reasoning = strings.Join(reasons, " | ")
}

func clamp01(f float64) float64 {
	switch {
	case math.IsNaN(f), f < 0:
		return 0
	case f > 1:
		return 1
	}
	return f
}

// childEnv is the environment of judge and template processes: the run's (the process's
// when unset) without the GitHub token, plus extra.
func (r *caseRun) childEnv(extra []string) []string {
	env := r.opts.Env
	if env == nil {
		env = os.Environ()
	}
	return proc.ChildEnv(env, extra)
}

// dir is the eval file's directory, the default working directory of scripts.
func (r *caseRun) dir() string {
	if r.in.Case.Suite != nil && r.in.Case.Suite.Dir != "" {
		return r.in.Case.Suite.Dir
	}
	if r.in.Request != nil {
		return r.in.Request.Dir
	}
	return ""
}

// errorf returns a verdict for an evaluator that could not score.
func errorf(request json.RawMessage, format string, args ...any) verdict {
	return verdict{request: request, err: fmt.Errorf(format, args...)}
}

// redactAll returns the strings redacted, never nil: a copy when there are secrets, else ss
// itself (the verdict's lists are not used elsewhere).
func redactAll(red *redact.Redactor, ss []string) []string {
	if noSecrets(red) {
		if ss == nil {
			return []string{}
		}
		return ss
	}
	out := make([]string, 0, len(ss))
	for _, s := range ss {
		out = append(out, red.String(s))
	}
	return out
}

// redactRaw masks secrets in JSON text; the strings inside were already redacted where we
// built them, this catches secrets in user data (details) and argv.
func redactRaw(red *redact.Redactor, raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return nil
	}
	return red.Bytes(raw)
}

// redactAssertions masks secrets in a verdict's criteria and evidence.
func redactAssertions(red *redact.Redactor, as []results.Assertion) []results.Assertion {
	if as == nil || noSecrets(red) {
		return as
	}
	out := make([]results.Assertion, len(as))
	for i, a := range as {
		out[i] = results.Assertion{Text: red.String(a.Text), Passed: a.Passed, Evidence: red.String(a.Evidence)}
	}
	return out
}
