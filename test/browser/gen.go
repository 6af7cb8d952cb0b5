// Package browser tests report.html in a real browser: headless Chromium driven by chromedp
// opens pages of generated runs, filters, searches, sorts and opens cases, and reads what is
// shown; any console error or network request fails the test. It also measures how fast a
// 10,000-case page opens (TestOpenLargeRun, bench/html.sh).
package browser

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/agentv/action/compare"
	"github.com/agentv/action/gate"
	"github.com/agentv/action/report"
	"github.com/agentv/action/report/htmlreport"
	"github.com/agentv/action/results"
)

// Hostile are texts a model could answer with to break out of the page: each must show as the
// text it is and run nothing.
var Hostile = []string{
	`<script>document.title="pwned";window.pwned=1</script>`,
	`<img src=x onerror="window.pwned=2;document.title='pwned'">`,
	`<a href="javascript:window.pwned=3">click me</a>`,
	`</script><script>window.pwned=4</script><!--`,
	`<style>body{display:none!important}</style>`,
	"line\u2028separator\u2029paragraph <!-- comment --> & &amp; \"quotes\" 'single'",
	`<svg onload="window.pwned=5"></svg><iframe src="https://example.com/"></iframe>`,
	`{{constructor.constructor('window.pwned=6')()}} ${window.pwned=7}`,
}

// Run is a generated run: its records, its baseline comparison and the report's run.
type Run struct {
	Records []*results.Record
	Report  *report.Run
	History htmlreport.History
	// JSONL is the run's results file as agentv writes it.
	JSONL []byte
}

var (
	datasets = []string{"billing", "search", "support", "refunds", "onboarding"}
	targets  = []string{"gpt-5-mini", "claude-sonnet"}
	graders  = []string{"llm-judge", "contains", "code-grader", "rubric"}
	words    = strings.Fields("the customer asked about their invoice and the agent explained how refunds work with a link to the policy page and a summary of next steps for the account")
)

func sentence(r *rand.Rand, n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(words[r.IntN(len(words))])
	}
	return b.String()
}

// Generate makes a run of n cases from seed: datasets, two targets on some cases, graders with
// reasoning, trials (some flaky), conversations, costs and tokens, a baseline with regressions,
// and history points for every fifth case. hostile puts Hostile texts in ids, answers, reasoning,
// turns and history run names.
func Generate(n int, seed uint64, hostile bool) *Run {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	start := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	var base bytes.Buffer
	bw := results.NewWriter(&base)
	out := &Run{History: htmlreport.History{}}
	h := func(i int) string { return Hostile[i%len(Hostile)] }
	for i := range n {
		ds := datasets[i%len(datasets)]
		id := fmt.Sprintf("case-%05d", i)
		if hostile && i%3 == 0 {
			id += " " + h(i)
		}
		score := float64(r.IntN(1001)) / 1000
		rec := &results.Record{
			Timestamp: start.Add(time.Duration(i) * time.Second).Format("2006-01-02T15:04:05.000Z"),
			EvalID:    id, Dataset: ds, Target: targets[0], File: "evals/" + ds + ".eval.yaml", Line: 3 + 7*(i/len(datasets)),
			Score: score, DurationMS: int64(200 + r.IntN(20000)), Attempts: 1,
			CandidateAnswer:   "Answer " + sentence(r, 20+r.IntN(60)),
			LMProviderRequest: []byte(fmt.Sprintf(`{"question":%q}`, "Question "+sentence(r, 10+r.IntN(20)))),
		}
		if i%7 == 3 {
			rec.Target = targets[1]
		}
		cost, in, outTok := float64(r.IntN(5000))/100000, int64(100+r.IntN(3000)), int64(50+r.IntN(800))
		rec.TraceSummary = &results.TraceSummary{CostUSD: &cost, TokenUsage: &results.TokenUsage{Input: in, Output: outTok}, ToolNames: []string{}, ToolCallsByName: map[string]int{}}
		for k := range 1 + i%3 {
			g := graders[(i+k)%len(graders)]
			s := min(1, max(0, score+float64(r.IntN(200)-100)/1000))
			rec.EvaluatorResults = append(rec.EvaluatorResults, results.EvaluatorResult{
				Name: g, Type: g, Score: s, Weight: 1, Verdict: results.Band(s),
				Hits: []string{"mentions the refund policy"}, Misses: []string{"no account number"},
				Reasoning: "The answer " + sentence(r, 15+r.IntN(30)),
			})
		}
		switch {
		case i%23 == 5:
			rec.Error, rec.Score, rec.Verdict = "target timed out after 60s", 0, results.VerdictError
		case score >= 0.8:
			rec.Verdict = results.VerdictPass
		default:
			rec.Verdict = results.VerdictFail
			rec.Misses = []string{"the answer " + sentence(r, 6)}
		}
		if i%11 == 4 { // trials
			passed := 0
			for t := range 3 {
				s := float64(r.IntN(1001)) / 1000
				v := results.VerdictFail
				if s >= 0.8 {
					v, passed = results.VerdictPass, passed+1
				}
				c := cost / 3
				rec.Trials = append(rec.Trials, results.Trial{Trial: t + 1, Score: s, Verdict: v, CandidateAnswer: "Trial answer " + sentence(r, 12), DurationMS: rec.DurationMS / 3, CostUSD: &c})
			}
			rec.Flaky = passed > 0 && passed < 3
		}
		if i%13 == 6 { // a conversation
			for t := range 3 {
				rec.Turns = append(rec.Turns, results.Turn{Turn: t + 1, Input: "User turn " + sentence(r, 8), Answer: "Assistant turn " + sentence(r, 14),
					Score: score, Verdict: string(rec.Verdict), DurationMS: rec.DurationMS / 3})
			}
		}
		if hostile {
			rec.CandidateAnswer = h(i) + "\n" + rec.CandidateAnswer
			rec.Reasoning = h(i+1) + " reasoning"
			rec.EvaluatorResults[0].Reasoning = h(i + 2)
			rec.EvaluatorResults[0].Hits = []string{h(i + 3)}
			rec.LMProviderRequest = []byte(fmt.Sprintf(`{"question":%q}`, h(i+4)))
			if rec.Error != "" {
				rec.Error = h(i + 5)
			}
			if len(rec.Turns) > 0 {
				rec.Turns[0].Answer = h(i + 6)
			}
		}
		// The baseline: most cases a little off, every ninth case much higher (a regression),
		// every seventeenth missing (new).
		if i%17 != 16 {
			b := *rec
			b.Trials, b.Flaky = nil, false
			if i%9 == 2 {
				b.Score, b.Verdict, b.Error = 1, results.VerdictPass, ""
			} else {
				b.Score = min(1, max(0, score+float64(r.IntN(40)-20)/1000))
			}
			_ = bw.Write(&b)
		}
		if i%5 == 2 {
			var pts []htmlreport.Point
			for k := range 5 {
				name := fmt.Sprintf("run #%d", 100+k)
				if hostile && k == 0 {
					name = h(i)
				}
				s := min(1, max(0, score+float64(k-2)/10))
				pts = append(pts, htmlreport.Point{Run: name, URL: fmt.Sprintf("https://github.com/acme/evals/actions/runs/%d", 9000+k), Score: s, Status: map[bool]string{true: "pass", false: "fail"}[s >= 0.8]})
			}
			if hostile {
				pts[1].URL = "javascript:window.pwned=8"
			}
			out.History[key(rec)] = pts
		}
		out.Records = append(out.Records, rec)
	}
	// One removed case.
	_ = bw.Write(&results.Record{EvalID: "retired-case", Dataset: datasets[0], Score: 0.9, Verdict: results.VerdictPass, Target: targets[0]})
	_ = bw.Flush()
	bl, err := compare.Read(&base)
	if err != nil {
		panic(err) // generated data: a bug here
	}
	bl.Source = "main, run #104"
	cmpr := compare.NewComparer(bl, compare.DefaultMargin)
	var jsonl bytes.Buffer
	w := results.NewWriter(&jsonl)
	counts := gate.Counts{}
	sum := 0.0
	for _, rec := range out.Records {
		cmpr.Add(rec)
		_ = w.Write(rec)
		counts.Total++
		switch {
		case rec.Error != "" || rec.Verdict == results.VerdictError:
			counts.Errors++
		case rec.Verdict == results.VerdictPass:
			counts.Passed++
			sum += rec.Score
		default:
			counts.Failed++
			sum += rec.Score
		}
	}
	_ = w.Flush()
	out.JSONL = jsonl.Bytes()
	if counts.Total > 0 {
		counts.MeanScore = sum / float64(counts.Total)
	}
	g := gate.Defaults()
	out.Report = &report.Run{Records: out.Records, Counts: counts, Gate: g, Decision: gate.Decide(counts, g),
		Version: "0.0.0-test", Started: start, Duration: 95 * time.Second, Baseline: cmpr.Result(),
		Links: report.Links{RunURL: "https://github.com/acme/evals/actions/runs/9999"}}
	return out
}

func key(r *results.Record) string { return htmlreport.Key(r.Dataset, r.EvalID, r.Target) }
