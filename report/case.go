package report

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agentv/action/results"
	"github.com/agentv/action/suite"
)

// Case is what the reports keep of one finished case: what every surface needs of every case,
// and its text (Record) only where a surface may show it, about 200 bytes a case instead of its
// whole record (a streamed 100,000-case run stays under 150 MiB).
type Case struct {
	EvalID, Dataset, Target, File string
	Score                         float64
	DurationMS                    int64
	Line                          int32
	Attempts                      int32
	// Trials and TrialsPassed count its trials (0: it ran once); Flaky: they disagreed.
	Trials, TrialsPassed int32
	Flaky                bool
	// Verdict is verdictOf the record: an error or an unknown verdict counts as errored.
	Verdict    results.Verdict
	Evaluators []EvaluatorScore    // top-level evaluators, in record order
	Tokens     *results.TokenUsage // from the trace, nil when unknown
	CostUSD    *float64            // from the trace, nil when unknown
	// Record is the record compacted (compact), nil when no surface of this run shows its text.
	Record *results.Record
	// Why is whyOf a case that did not pass ("" when it passed), its start and end kept to
	// whyRunes characters (cutWhy; show it with elide).
	Why string
	// CaseThreshold is its eval file's own threshold; nil: the run's.
	CaseThreshold *float64

	part   spoolPart // where the case's rendered JUnit testcase is, when spooled
	holds  uint8     // Collector: how many of its bounded lists hold this case's record
	pinned bool      // Collector: the record is kept whatever the lists do
}

// whyRunes is the longest a surface shows of Why (the console's error lines).
const whyRunes = 500

// EvaluatorScore is one evaluator's score as the case tables show it.
type EvaluatorScore struct {
	Name    string
	Score   float64
	Verdict string // as recorded: a 2.5 band, or 4.x's pass, fail or skip
	Errored bool
}

// newCase makes a case of a record's fields, without its text.
func newCase(r *results.Record) *Case {
	c := &Case{
		EvalID: r.EvalID, Dataset: r.Dataset, Target: r.Target, File: r.File, Line: clampInt32(r.Line),
		Score: r.Score, Verdict: verdictOf(r), DurationMS: r.DurationMS, Attempts: clampInt32(r.Attempts),
		Trials: clampInt32(len(r.Trials)), TrialsPassed: clampInt32(r.TrialsPassed()), Flaky: r.Flaky,
	}
	if r.CaseThreshold != nil {
		c.CaseThreshold = new(*r.CaseThreshold)
	}
	if n := len(r.EvaluatorResults); n > 0 {
		c.Evaluators = make([]EvaluatorScore, n)
		for i, e := range r.EvaluatorResults {
			c.Evaluators[i] = EvaluatorScore{Name: e.Name, Score: e.Score, Verdict: e.Verdict, Errored: e.Error != ""}
		}
	}
	if t := r.TraceSummary; t != nil {
		c.Tokens, c.CostUSD = t.TokenUsage, t.CostUSD
	}
	if c.Verdict != results.VerdictPass {
		c.Why = cutWhy(whyOf(r), whyRunes)
	}
	return c
}

// casesOf makes cases of records, each keeping its whole record (already in memory).
func casesOf(recs []*results.Record) []*Case {
	out := make([]*Case, 0, len(recs))
	for _, r := range recs {
		if r == nil {
			continue
		}
		c := newCase(r)
		c.Record, c.pinned = r, true
		out = append(out, c)
	}
	return out
}

// warnings returns the load-time warnings the case carries.
func (c *Case) warnings() []suite.Diagnostic {
	if c.Record == nil {
		return nil
	}
	return c.Record.Warnings
}

// keepRunes is how many characters of each long text a kept record holds: the widest surface's
// (JUnit's, whose testcases are spooled from the full record anyway).
const keepRunes = junitTextLimit

// compact copies what reports show of a record: long texts cut, recorded prompts, provider
// metadata and the trace beyond usage dropped, so memory does not grow with the run's text.
func compact(r *results.Record) *results.Record {
	c := *r
	c.CandidateAnswer = cut(c.CandidateAnswer)
	c.Reasoning = cut(c.Reasoning)
	c.LMProviderRequest, c.AgentProviderRequest, c.EvaluatorProviderRequest = nil, nil, nil
	c.Timestamp, c.ConversationID, c.ProviderMetadata = "", "", nil
	if t := r.TraceSummary; t != nil {
		c.TraceSummary = usage(t.TokenUsage, t.CostUSD)
	}
	c.EvaluatorResults = compactEvaluators(r.EvaluatorResults)
	return &c
}

func compactEvaluators(ers []results.EvaluatorResult) []results.EvaluatorResult {
	if ers == nil {
		return nil
	}
	out := make([]results.EvaluatorResult, len(ers))
	for i, e := range ers {
		e.EvaluatorProviderRequest = nil
		e.Details = nil
		e.Reasoning = cut(e.Reasoning)
		if e.Assertions != nil {
			as := make([]results.Assertion, len(e.Assertions))
			for j, a := range e.Assertions {
				as[j] = results.Assertion{Text: a.Text, Passed: a.Passed, Evidence: cut(a.Evidence)} // Text stays whole, as the misses it matches do
			}
			e.Assertions = as
		}
		e.EvaluatorResults = compactEvaluators(e.EvaluatorResults)
		out[i] = e
	}
	return out
}

// cut keeps the first keepRunes characters of s (see cutRunes).
func cut(s string) string { return cutRunes(s, keepRunes) }

// cutRunes keeps the first n characters of s and notes how many it left out (see truncate).
func cutRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	end, _ := runeOffset(s, n)
	if end == len(s) {
		return s
	}
	// Trailing newlines stay after the count, so a caller that trims them (writePre) counts
	// what it would have counted on the whole text.
	rest := s[end:]
	body := strings.TrimRight(rest, "\n")
	nl := len(rest) - len(body)
	if body == "" && nl <= 4096 {
		return s // only newlines are left: nothing worth cutting
	}
	if nl > 4096 {
		body, nl = rest, 0
	}
	return s[:end] + cutMark + strconv.Itoa(utf8.RuneCountInString(body)) + rest[len(rest)-nl:]
}

// record returns the case's record, or one made of its fields when its text was not kept.
func (c *Case) record() *results.Record {
	if c.Record != nil {
		return c.Record
	}
	r := &results.Record{
		EvalID: c.EvalID, Dataset: c.Dataset, Target: c.Target, File: c.File, Line: int(c.Line),
		Score: c.Score, Verdict: c.Verdict, DurationMS: c.DurationMS, Attempts: int(c.Attempts), Flaky: c.Flaky,
	}
	for _, e := range c.Evaluators {
		er := results.EvaluatorResult{Name: e.Name, Score: e.Score, Verdict: cmp.Or(e.Verdict, results.Band(e.Score))}
		if e.Errored {
			er.Error = "(see results.jsonl)"
		}
		r.EvaluatorResults = append(r.EvaluatorResults, er)
	}
	r.TraceSummary = usage(c.Tokens, c.CostUSD)
	return r
}

// usage is a trace of token usage and cost alone, nil without either.
func usage(tokens *results.TokenUsage, costUSD *float64) *results.TraceSummary {
	if tokens == nil && costUSD == nil {
		return nil
	}
	return &results.TraceSummary{TokenUsage: tokens, CostUSD: costUSD}
}

// clampInt32 keeps a line number or attempt count in an int32 (no file has 2^31 lines).
func clampInt32(n int) int32 {
	return int32(max(min(n, 1<<31-1), -1<<31))
}

// whyOf is the one line to read first about a case that did not pass: its first error, own or
// an evaluator's; else its first miss, likewise; else what the lowest-scoring failing evaluator
// said (a judge whose reply held no verdict has only that reasoning). It is never empty.
func whyOf(r *results.Record) string {
	if len(r.Trials) > 0 && verdictOf(r) == results.VerdictFail {
		return trialsWhy(r)
	}
	if msg := firstError(r); msg != "" {
		return oneLine(msg)
	}
	if verdictOf(r) == results.VerdictError {
		return fmt.Sprintf("case has verdict %q", r.Verdict)
	}
	if m := firstMissOf(r.Misses); m != "" {
		return withReason(r.EvaluatorResults, m, whyMark)
	}
	for e := range evaluators(r.EvaluatorResults) {
		if m := firstMissOf(e.Misses); m != "" {
			return withReason([]results.EvaluatorResult{*e}, m, whyMark)
		}
	}
	var low *results.EvaluatorResult
	for i, e := range r.EvaluatorResults {
		if strings.TrimSpace(e.Reasoning) != "" && e.Verdict != string(results.VerdictPass) && (low == nil || e.Score < low.Score) {
			low = &r.EvaluatorResults[i]
		}
	}
	switch {
	case low != nil:
		return oneLine(low.Name + ": " + low.Reasoning)
	case strings.TrimSpace(r.Reasoning) != "":
		return oneLine(r.Reasoning)
	}
	return fmt.Sprintf("score %.3f; no miss or reasoning recorded", r.Score)
}

// trialsWhy is how many trials passed, then why the first that did not pass failed.
func trialsWhy(r *results.Record) string {
	head := fmt.Sprintf("%d/%d trials passed", r.TrialsPassed(), len(r.Trials))
	for _, t := range r.Trials {
		if t.Verdict == results.VerdictPass {
			continue
		}
		sub := &results.Record{Score: t.Score, Verdict: t.Verdict, Error: t.Error, EvaluatorResults: t.EvaluatorResults}
		return fmt.Sprintf("%s; trial %d: %s", head, t.Trial, whyOf(sub))
	}
	// Every trial passed and the strategy still failed the case (a confidence interval
	// too wide for the threshold).
	return fmt.Sprintf("%s, but the %s score %.3f is below the threshold", head, r.TrialStrategy, r.Score)
}
