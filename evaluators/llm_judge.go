package evaluators

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/agentv/action/cache"
	"github.com/agentv/action/internal/jsonx"
	"github.com/agentv/action/internal/proc"
	"github.com/agentv/action/internal/redact"
	"github.com/agentv/action/internal/textcap"
	"github.com/agentv/action/providers"
	"github.com/agentv/action/suite"
)

// maxVerdictItems caps hits and misses of a judge verdict; the rest are dropped.
const maxVerdictItems = 4

// SystemPrompt is the JSON contract every llm_judge sends, default and custom prompts alike.
const SystemPrompt = `You grade answers. Reply with exactly one JSON object and nothing else, shaped like this:
{"score": <number from 0.0 to 1.0>, "hits": [<up to 4 short strings: what the answer got right>], "misses": [<up to 4 short strings: what it got wrong or left out; empty list if nothing>], "reasoning": "<one or two sentences explaining the score>"}`

// defaultInstructions open the default user prompt; its four sections follow, in 2.5's order.
const defaultInstructions = `You are an expert grader. Judge how well the candidate_answer achieves the expected_outcome for the question below.

When a reference_answer is present, treat it as a gold-standard example of a good answer. It may be a multi-message trace, in which case its last message is the final answer. The candidate_answer does not have to match it word for word; it has to reach the same outcome.

Keep your feedback short and specific.
`

// defaultPrompt renders the default user prompt with outcome as its expected_outcome.
func (r *caseRun) defaultPrompt(outcome string) string {
	names := [...]string{"expected_outcome", "question", "reference_answer", "candidate_answer"}
	vals := [...]string{outcome, r.question(), strings.TrimSpace(r.in.Case.ReferenceAnswer), strings.TrimSpace(r.in.Candidate)}
	size := len(defaultInstructions)
	for i := range vals {
		size += len(names[i]) + len(vals[i]) + len("\n[[ ##  ## ]]\n\n")
	}
	var b strings.Builder
	b.Grow(size) // one allocation for the whole prompt
	b.WriteString(defaultInstructions)
	for i, name := range names {
		b.WriteString("\n[[ ## ")
		b.WriteString(name)
		b.WriteString(" ## ]]\n")
		b.WriteString(vals[i])
		b.WriteByte('\n')
	}
	return b.String()
}

// The loader reads an llm_judge's prompt and target; its own settings are the rubrics.
func init() { register(suite.TypeLLMJudge, nil, nil, rubricsOf, llmJudge) }

// llmJudge asks the judge provider for a verdict: free-form, or with rubrics (set not nil) a
// checklist or score ranges. 4.x files ask as 4.42.4's llm-grader (llmGraderV4).
func llmJudge(ctx context.Context, r *caseRun, spec *suite.EvaluatorSpec, set *rubricSet) verdict {
	if r.rules.As442 {
		return llmGraderV4(ctx, r, spec, set)
	}
	user, system, read := "", SystemPrompt, readVerdict
	switch {
	case set != nil: // a custom prompt does not apply in rubric mode
		user, system = r.rubricPrompt(set)
		read = func(reply string) (verdict, error) { return scoreRubrics(set, reply) }
	case spec.Prompt != nil && spec.Criteria == "":
		var err error
		if user, err = r.customPrompt(ctx, spec); err != nil {
			_, targetName, _ := r.resolveJudge(spec.Target)
			return errorf(judgeRequest("", SystemPrompt, targetName), "%v", err)
		}
	default:
		user = r.defaultPrompt(cmp.Or(spec.Criteria, strings.TrimSpace(r.in.Case.ExpectedOutcome)))
	}
	return r.grade(ctx, spec.Target, user, system, read, false)
}

// errNoVerdict is a reply's reader finding no verdict in it (2.5 readers also return what
// the reply scores then: 0, with the reason).
var errNoVerdict = errors.New("the judge's reply held no verdict")

// grade asks the judge of target (the run's judge when "") with the prompts and reads its
// reply with read; the verdict carries the request. With repair (4.42.4's llm-grader) an
// unreadable reply is asked again and repaired (askV4), and is then an error; else it scores
// what read made of it.
func (r *caseRun) grade(ctx context.Context, target, user, system string, read func(string) (verdict, error), repair bool) verdict {
	judge, targetName, err := r.resolveJudge(target)
	request := judgeRequest(r.opts.Redactor.String(user), system, targetName)
	if err != nil {
		return errorf(request, "could not resolve the judge: %v", err)
	}
	ask := func(user string) (string, error) {
		return r.askJudge(ctx, judge, targetName, user, system, func(reply string) bool {
			_, err := read(reply)
			return err == nil
		})
	}
	var v verdict
	if repair {
		v, err = askV4(ctx, user, ask, read)
	} else {
		var reply string
		reply, err = ask(user)
		v, _ = read(reply)
	}
	if err != nil {
		return errorf(request, "%v", err)
	}
	v.request = request
	return v
}

// resolveJudge returns the judge provider for an evaluator whose own `target` is override
// ("" if none) and the target name to record.
func (r *caseRun) resolveJudge(override string) (providers.Provider, string, error) {
	var judge providers.Provider
	var err error
	if r.opts.Judges != nil {
		judge, err = r.opts.Judges(r.in.Target, override)
	}
	if err == nil && judge == nil {
		err = errors.New("no judge provider is configured")
	}
	if err != nil {
		return nil, override, err
	}
	name := override
	if t := judge.Target(); t != nil {
		name = t.Name
	}
	return judge, name, nil
}

// askJudge sends the prompts and returns the reply text, retrying a call that timed out.
// readable says whether the caller can read a reply: only such a reply is stored in the
// response cache (one that is no verdict would be replayed to every later ask), and a stored
// one that is not readable is asked again.
func (r *caseRun) askJudge(ctx context.Context, judge providers.Provider, targetName, user, system string, readable func(string) bool) (string, error) {
	var resp *providers.Response
	ctx = cache.WithAccept(ctx, func(resp *providers.Response) bool { return readable(responseText(resp)) })
	err := r.withRetries(ctx, func() (err error) {
		resp, err = r.invokeWith(ctx, judge, &providers.Request{EvalID: r.in.Case.ID, Question: user, SystemPrompt: system,
			Dir: r.dir(), Temperature: r.temperature})
		return err
	})
	if err != nil {
		if targetName != "" {
			return "", fmt.Errorf("judge %q: %w", targetName, err)
		}
		return "", fmt.Errorf("judge: %w", err)
	}
	reply := responseText(resp)
	if strings.TrimSpace(reply) == "" && resp.Error != "" {
		return "", fmt.Errorf("judge %q answered with an error: %s", targetName, resp.Error)
	}
	return reply, nil
}

// invokeWith sends req to p with the run's timeout. It returns when the timeout passes even
// if the provider does not honour its context: the call runs in a goroutine that is left
// behind if it outlives the timeout.
func (r *caseRun) invokeWith(ctx context.Context, p providers.Provider, req *providers.Request) (*providers.Response, error) {
	callCtx, cancel := context.WithTimeout(ctx, r.opts.Timeout)
	defer cancel()
	type answer struct {
		resp *providers.Response
		err  error
	}
	done := make(chan answer, 1)
	go func() {
		defer func() {
			if v := recover(); v != nil {
				done <- answer{nil, fmt.Errorf("provider panicked: %v", v)}
			}
		}()
		resp, err := p.Invoke(callCtx, req)
		done <- answer{resp, err}
	}()
	var resp *providers.Response
	var err error
	select {
	case a := <-done:
		resp, err = a.resp, a.err
	case <-callCtx.Done():
		err = callCtx.Err()
	}
	if err == nil && resp == nil {
		err = errors.New("no response")
	}
	if err != nil && errors.Is(callCtx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
		return nil, fmt.Errorf("%w after %s", errTimedOut, r.opts.Timeout)
	}
	return resp, err
}

// judgeRequest renders evaluator_provider_request {user_prompt, system_prompt, target}; the
// caller passes the user prompt already redacted (so a cut cannot leave part of a secret). A
// huge prompt (a huge question or answer inside) is stored capped.
func judgeRequest(userPrompt, systemPrompt, target string) json.RawMessage {
	b, _ := jsonx.Marshal(struct {
		UserPrompt   string `json:"user_prompt"`
		SystemPrompt string `json:"system_prompt"`
		Target       string `json:"target"`
	}{textcap.Cap(userPrompt), systemPrompt, target}) // strings always encode
	return b
}

// noSecrets reports whether red has nothing to redact.
func noSecrets(red *redact.Redactor) bool { return red == nil || len(red.Secrets()) == 0 }

// responseText is the judge's reply: the content of the last assistant message that has any
// (structured content as its JSON, segments as their text lines), else Text.
func responseText(resp *providers.Response) string {
	for i := len(resp.OutputMessages) - 1; i >= 0; i-- {
		m, t := &resp.OutputMessages[i], ""
		switch {
		case m.Role != suite.RoleAssistant:
		case m.Content.Kind == suite.ContentText:
			t = m.Content.Text
		case m.Content.Kind == suite.ContentStructured:
			t = string(m.Content.Structured)
		case m.Content.Kind == suite.ContentSegments:
			var parts []string
			for _, s := range m.Content.Segments {
				if s.Type == "text" {
					parts = append(parts, s.Value)
				}
			}
			t = strings.Join(parts, "\n")
		}
		if t != "" {
			return t
		}
	}
	return resp.Text
}

// readVerdict reads a judge reply: the first JSON object in it, score clamped to [0,1],
// non-blank string hits and misses (at most four each). A reply without a valid verdict
// scores 0 and is not an error for the grader: the judge answered, badly.
func readVerdict(reply string) (verdict, error) {
	v := verdict{hits: []string{}, misses: []string{}}
	// Keys match struct fields case-insensitively, the last occurrence winning.
	var obj struct{ Score, Hits, Misses, Reasoning json.RawMessage }
	if raw, ok := jsonx.FirstObject(reply); !ok || json.Unmarshal(raw, &obj) != nil {
		v.reasoning = "judge reply held no JSON verdict: " + proc.Excerpt(reply, 200)
		return v, errNoVerdict
	}
	_ = json.Unmarshal(obj.Reasoning, &v.reasoning) // a non-string reasoning is dropped
	score, ok := parseScore(obj.Score)
	if !ok {
		if v.reasoning == "" {
			v.reasoning = "judge verdict has no numeric score"
		}
		return v, errNoVerdict
	}
	v.score = score
	v.hits = stringItems(obj.Hits, maxVerdictItems)
	v.misses = stringItems(obj.Misses, maxVerdictItems)
	return v, nil
}

// parseScore reads a JSON number, clamped to [0,1]. Strings, booleans and null are not scores.
func parseScore(raw json.RawMessage) (float64, bool) {
	s := strings.TrimSpace(string(raw))
	if s == "" || (s[0] != '-' && (s[0] < '0' || s[0] > '9')) {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, false
	}
	return clamp01(f), true
}

// stringItems keeps the non-blank strings of a JSON list, at most max (0: no cap).
func stringItems(raw json.RawMessage, max int) []string {
	out := []string{}
	var items []json.RawMessage
	_ = json.Unmarshal(raw, &items) // anything but a list has no items
	for _, it := range items {
		var s string
		if max > 0 && len(out) == max {
			break
		} else if json.Unmarshal(it, &s) == nil && strings.TrimSpace(s) != "" {
			out = append(out, s)
		}
	}
	return out
}
