package evaluators

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"path/filepath"

	"github.com/agentv/action/internal/jsonx"
	"github.com/agentv/action/internal/proc"
	"github.com/agentv/action/internal/safefile"
	"github.com/agentv/action/results"
	"github.com/agentv/action/suite"
)

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
	summary := fmt.Sprintf("%d/%d evaluators passed (threshold: %s)", passing, len(children), jsNum(threshold))
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
		m := member{Score: finite(c.Score), Verdict: "fail", Assertions: []v4Assertion{}}
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

// aggregateByJudgeV4 asks the judge for a 4.x composite's verdict, given its members'
// results: the reply is a free-form verdict; one that cannot be read scores 0.
func (r *caseRun) aggregateByJudgeV4(ctx context.Context, spec *suite.EvaluatorSpec, cfg *compositeConfig, children []results.EvaluatorResult) verdict {
	tmpl := v4AggregatorPrompt
	if p := strings.TrimSpace(cfg.prompt); p != "" {
		tmpl = p
		if ref, ok := strings.CutPrefix(p, "file://"); ok {
			b, err := readAggregatorPrompt(r.dir(), ref)
			if err != nil {
				return errorf(nil, "could not read the aggregator prompt: %v", err)
			}
			tmpl = b
		}
	}
	resultsJSON := string(jsonx.Indent(v4MembersJSON(children)))
	user := substitute(tmpl, func(name string) (string, bool) {
		return resultsJSON, name == "EVALUATOR_RESULTS_JSON"
	})
	return r.grade(ctx, spec.Target, user, v4FreeformSystem, func(reply string) (verdict, error) {
		v, err := parseV4Freeform(reply)
		if err != nil {
			v = v4Verdict(0, []v4Assertion{{Text: "LLM aggregator failed: " + err.Error(), Passed: false}})
		}
		return v, err
	}, false)
}

// readAggregatorPrompt reads a `file://` aggregator prompt, relative to the eval file's
// directory. (AgentV 4.42.4 sends the path itself as the prompt; the file is what is meant.)
func readAggregatorPrompt(dir, ref string) (string, error) {
	path := ref
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, ref)
	}
	b, err := safefile.ReadFile(path, safefile.LimitContent)
	if err != nil {
		return "", err
	}
	return string(b), nil
}
