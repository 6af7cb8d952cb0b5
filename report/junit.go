package report

import (
	"bufio"
	"cmp"
	"encoding/xml"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/jstemmer/go-junit-report/v2/junit"

	"github.com/agentv/action/gate"
	"github.com/agentv/action/internal/logtext"
	"github.com/agentv/action/results"
	"github.com/agentv/action/suite"
)

// junitTextLimit caps each piece of model text (reasoning, error, hits, misses) in the JUnit
// file, in characters. JUnit viewers show system-out whole; results.jsonl keeps the full text.
const junitTextLimit = 16 << 10

// junitTopMisses is how many misses the failure message lists.
const junitTopMisses = 3

// configSuiteName names the extra testsuite that carries load and configuration problems, so a
// run whose outcome is invalid is red in JUnit consumers too.
const configSuiteName = "agentv"

// junitDocument is junit.xml in go-junit-report's model. Its suites are *junitFileSuite, then
// at most one *junit.Testsuite for configuration problems.
type junitDocument struct {
	junit.Testsuites
	Suites []any `xml:"testsuite"`
}

// junitFileSuite is an eval file's testsuite. Its testcases are written when the document is
// encoded, mostly copied from the spool, not held (a 100,000-case run's XML would be). These
// fields stand in for the library's testcase and system-out fields (encoding/xml takes the
// shallower of two fields with one name), in the same order.
type junitFileSuite struct {
	junit.Testsuite
	Testcases junitCases    `xml:"testcase"`
	SystemOut *junit.Output `xml:"system-out,omitempty"`
}

// junitCases writes a file's testcases in report order.
type junitCases struct {
	w     *bufio.Writer // what the document's encoder writes to, for the spooled testcases
	run   *Run
	cases []*Case
}

// MarshalXML copies spooled testcases as they are and renders the others; both come out the
// same, byte for byte.
func (c junitCases) MarshalXML(e *xml.Encoder, start xml.StartElement) error {
	for i := 0; i < len(c.cases); {
		j := i
		for j < len(c.cases) && c.run.JUnitParts != nil && c.cases[j].part.n > 0 {
			j++
		}
		if j == i {
			tc := junitCase(c.run.Gate.CaseThreshold, c.cases[i].record(), c.run.severalTargets())
			if err := e.EncodeElement(&tc, start); err != nil {
				return err
			}
			i++
			continue
		}
		// The file suite's properties come first, so the encoder's indentation around the
		// copied testcases stays right.
		if err := e.Flush(); err != nil {
			return err
		}
		if err := c.run.JUnitParts.copyTo(c.w, c.cases[i:j], c.run.severalTargets()); err != nil {
			return err
		}
		i = j
	}
	return nil
}

// JUnit writes the run as JUnit XML: a testsuite per eval file (properties: targets and
// thresholds), a testcase per case (classname = dataset, name = eval id) with a failure below
// the case threshold or an error, and the details in system-out; load and configuration errors
// are error testcases of an extra "agentv" testsuite. All text is sanitised (logtext.Block)
// before it goes into the model, which writes element text as CDATA without checking it.
func JUnit(w io.Writer, run *Run) error {
	if run == nil {
		run = &Run{}
	}
	// EncodeElement flushes the encoder's buffer after every testcase, so bw is kept apart from it
	// (the encoder would adopt a *bufio.Writer as its own) and writes in large blocks.
	bw := bufio.NewWriterSize(w, 64<<10)
	enc := xml.NewEncoder(struct{ io.Writer }{bw})
	enc.Indent("", "  ")
	_, err := bw.WriteString(xml.Header)
	if err == nil {
		err = enc.Encode(junitDoc(run, bw))
	}
	if err == nil {
		_, err = bw.WriteString("\n")
	}
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		return fmt.Errorf("could not write JUnit XML: %w", err)
	}
	return nil
}

// junitDoc builds the document; its file suites write their testcases to w.
func junitDoc(run *Run, w *bufio.Writer) *junitDocument {
	recs := run.sortedCases()
	doc := &junitDocument{Testsuites: junit.Testsuites{Name: "agentv"}}
	// The totals are counted here: junit.Testsuites.AddSuite would also count skipped
	// testcases into an attribute the Jenkins xUnit schema does not allow on testsuites.
	add := func(t *junit.Testsuite, s any) {
		t.ID = len(doc.Suites)
		doc.Suites = append(doc.Suites, s)
		doc.Tests += t.Tests
		doc.Failures += t.Failures
		doc.Errors += t.Errors
	}
	var files []*junitFileSuite
	var totalMS int64
	// Records are sorted by file, so each file's cases are contiguous.
	for start := 0; start < len(recs); {
		end := start
		for end < len(recs) && recs[end].File == recs[start].File {
			totalMS += max(recs[end].DurationMS, 0)
			end++
		}
		s := fileSuite(run, recs[start:end])
		s.Testcases = junitCases{w: w, run: run, cases: recs[start:end]}
		add(&s.Testsuite, s)
		files = append(files, s)
		start = end
	}
	if cfg := attachWarnings(run, files); cfg != nil {
		add(cfg, cfg)
	}
	if run.Duration > 0 {
		doc.Time = seconds(run.Duration.Milliseconds())
	} else {
		doc.Time = seconds(totalMS)
	}
	return doc
}

// fileSuite makes a file's testsuite: counts, time and properties.
func fileSuite(run *Run, recs []*Case) *junitFileSuite {
	file := logtext.Block(recs[0].File)
	s := &junitFileSuite{Testsuite: junit.Testsuite{Name: cmp.Or(file, "(unknown file)"), File: file}}
	if !run.Started.IsZero() {
		s.SetTimestamp(run.Started.UTC())
	}
	var ms int64
	var targets []string
	for _, r := range recs {
		s.Tests++
		switch r.Verdict {
		case results.VerdictError:
			s.Errors++
		case results.VerdictFail:
			s.Failures++
		}
		ms += max(r.DurationMS, 0)
		if r.Target != "" && !slices.Contains(targets, r.Target) {
			targets = append(targets, r.Target)
		}
	}
	s.Time = seconds(ms)
	s.AddProperty("target", logtext.Block(strings.Join(targets, ", ")))
	s.AddProperty("case-threshold", formatFloat(run.Gate.CaseThreshold))
	if run.Gate.MinScore != nil {
		s.AddProperty("min-score", formatFloat(*run.Gate.MinScore))
	}
	s.AddProperty("max-failures", strconv.Itoa(run.Gate.MaxFailures))
	s.AddProperty("max-errors", strconv.Itoa(run.Gate.MaxErrors))
	if n := flakyIn(recs); n > 0 {
		s.AddProperty("flaky", strconv.Itoa(n))
	}
	if b := run.Budget; b != nil {
		s.AddProperty("budget-usd", formatFloat(b.LimitUSD))
		s.AddProperty("budget-spent-usd", formatFloat(b.SpentUSD))
		s.AddProperty("budget-exceeded", strconv.FormatBool(b.Exceeded))
		s.AddProperty("budget-not-run", strconv.Itoa(b.NotRun))
	}
	if run.Version != "" {
		s.AddProperty("agentv-version", logtext.Block(run.Version))
	}
	return s
}

// junitCase renders a record's testcase; threshold is the case threshold its failure message
// names. withTarget names the record's target after its id, "case-1 [gpt]".
func junitCase(threshold float64, r *results.Record, withTarget bool) junitTestcase {
	if r.CaseThreshold != nil {
		threshold = *r.CaseThreshold // the eval file's own threshold for this case
	}
	tc := junitTestcase{Testcase: junit.Testcase{
		Name:      logtext.Block(caseName(r.EvalID, r.Target, withTarget)),
		Classname: logtext.Block(r.Dataset),
		Time:      seconds(r.DurationMS),
		SystemOut: &junit.Output{Data: logtext.Block(junitSystemOut(threshold, r))},
	}}
	addFlaky(&tc, threshold, r)
	switch verdictOf(r) {
	case results.VerdictError:
		msg := cmp.Or(firstError(r), fmt.Sprintf("case has verdict %q", r.Verdict))
		tc.Error = &junit.Result{
			Message: logtext.Block(elide(oneLine(msg), 500)),
			Type:    "error",
			Data:    logtext.Block(truncate(errorText(r), junitTextLimit)),
		}
	case results.VerdictFail:
		tc.Failure = &junit.Result{
			Message: logtext.Block(failureMessage(threshold, r)),
			Type:    "below-threshold",
			Data:    logtext.Block(truncate(bulleted(explainedMisses(r)), junitTextLimit)),
		}
	}
	return tc
}

// failureMessage reads: score 0.420 below case threshold 0.800; misses: a; b; c (+2 more),
// or, for a case without misses, the score and the reason whyOf gives.
func failureMessage(threshold float64, r *results.Record) string {
	msg := fmt.Sprintf("score %.3f below case threshold %.3f", r.Score, threshold)
	if len(r.Misses) > 0 {
		var top []string
		for _, m := range explainedMisses(r)[:min(len(r.Misses), junitTopMisses)] {
			top = append(top, elide(m, 200))
		}
		msg += "; misses: " + strings.Join(top, "; ")
		if n := len(r.Misses) - junitTopMisses; n > 0 {
			msg += fmt.Sprintf(" (+%d more)", n)
		}
	} else {
		// Without misses of its own the case still has a reason (an evaluator's miss, or a
		// judge whose reply held no verdict): the message is what CI pages show first.
		msg += "; " + elide(whyOf(r), 300)
	}
	return msg
}

// explainedMisses are the record's misses on one line each, each with the judge's reason when
// it has one; a reason several misses share (a 2.x judge's one reasoning) follows the first.
func explainedMisses(r *results.Record) []string {
	out := make([]string, len(r.Misses))
	shown := map[string]bool{}
	for i, m := range r.Misses {
		out[i] = oneLine(m)
		if why := missReason(r.EvaluatorResults, m); why != "" && !shown[why] {
			shown[why] = true
			out[i] += reasonSep + why
		}
	}
	return out
}

// errorText holds the record's error and every evaluator error, one per line.
func errorText(r *results.Record) string {
	var lines []string
	if r.Error != "" {
		lines = append(lines, r.Error)
	}
	for e := range evaluators(r.EvaluatorResults) {
		if e.Error != "" {
			lines = append(lines, fmt.Sprintf("evaluator %s (%s): %s", e.Name, e.Type, e.Error))
		}
	}
	return strings.Join(lines, "\n")
}

// junitSystemOut is a testcase's system-out: score, verdict, source, target, duration, usage,
// evaluators with their findings, and warnings.
func junitSystemOut(threshold float64, r *results.Record) string {
	var b strings.Builder
	fmt.Fprintf(&b, "score: %.3f (case threshold %.3f)\nverdict: %s\nsource: %s\n",
		r.Score, threshold, verdictOf(r), position(r.File, r.Line))
	if r.Target != "" {
		fmt.Fprintf(&b, "target: %s\n", r.Target)
	}
	fmt.Fprintf(&b, "duration: %s\n", formatMS(r.DurationMS))
	if r.Attempts > max(1, len(r.Trials)) { // one invocation per trial is no retry
		fmt.Fprintf(&b, "attempts: %d\n", r.Attempts)
	}
	writeTrials(&b, r)
	if t := r.TraceSummary; t != nil && t.TokenUsage != nil {
		fmt.Fprintf(&b, "tokens: %d input, %d output\n", t.TokenUsage.Input, t.TokenUsage.Output)
	}
	if t := r.TraceSummary; t != nil && t.CostUSD != nil {
		fmt.Fprintf(&b, "cost: $%.4f\n", *t.CostUSD)
	}
	if len(r.EvaluatorResults) > 0 {
		b.WriteString("evaluators:\n")
		writeEvaluators(&b, r.EvaluatorResults, "  ")
	}
	if !evaluatorsHaveReasoning(r.EvaluatorResults) && strings.TrimSpace(r.Reasoning) != "" {
		b.WriteString("reasoning:\n")
		writeIndented(&b, truncate(r.Reasoning, junitTextLimit), "  ")
	}
	if len(r.Warnings) > 0 {
		b.WriteString("warnings:\n")
		for _, w := range r.Warnings {
			fmt.Fprintf(&b, "  - %s\n", suite.Diagnostic{File: w.File, Line: w.Line, Col: w.Col, Message: w.Message}.Error())
		}
	}
	return b.String()
}

func writeEvaluators(b *strings.Builder, ers []results.EvaluatorResult, pad string) {
	for _, e := range ers {
		fmt.Fprintf(b, "%s- %s (%s): %.3f %s", pad, e.Name, e.Type, e.Score, e.Verdict)
		if !e.NoWeight && e.Weight != 0 && e.Weight != 1 {
			fmt.Fprintf(b, ", weight %s", formatFloat(e.Weight))
		}
		b.WriteByte('\n')
		in := pad + "    "
		if e.Error != "" {
			fmt.Fprintf(b, "%serror: %s\n", in, truncate(oneLine(e.Error), junitTextLimit))
		}
		for _, h := range e.Hits {
			fmt.Fprintf(b, "%shit: %s\n", in, truncate(oneLine(h), 1000))
		}
		for _, m := range e.Misses {
			fmt.Fprintf(b, "%smiss: %s\n", in, truncate(oneLine(m), 1000))
		}
		if strings.TrimSpace(e.Reasoning) != "" {
			fmt.Fprintf(b, "%sreasoning:\n", in)
			writeIndented(b, truncate(e.Reasoning, junitTextLimit), in+"  ")
		}
		writeEvaluators(b, e.EvaluatorResults, in)
	}
}

// evaluatorsHaveReasoning walks by hand, not with evaluators: it runs for every record.
func evaluatorsHaveReasoning(ers []results.EvaluatorResult) bool {
	for _, e := range ers {
		if strings.TrimSpace(e.Reasoning) != "" || evaluatorsHaveReasoning(e.EvaluatorResults) {
			return true
		}
	}
	return false
}

// attachWarnings puts warnings in the system-out of their file's testsuite, and returns the
// "agentv" testsuite for errors, an invalid or skipped run (with the other warnings), or nil.
func attachWarnings(run *Run, files []*junitFileSuite) *junit.Testsuite {
	byFile := map[string]*junitFileSuite{}
	for _, s := range files {
		byFile[s.File] = s
	}
	cfg := &junit.Testsuite{Name: configSuiteName, Time: seconds(0)}
	var cfgOut strings.Builder
	for _, d := range run.Diagnostics {
		line := logtext.Block(d.Error())
		if d.Kind != "" {
			line += " [" + logtext.Block(d.Kind) + "]"
		}
		if d.IsError() {
			cfg.AddTestcase(junit.Testcase{Name: logtext.Block(position(d.File, d.Line)), Classname: "agentv.config", Time: seconds(0),
				Error: &junit.Result{Message: logtext.Block(elide(oneLine(d.Message), 500)), Type: "config", Data: line}})
			continue
		}
		if s, ok := byFile[logtext.Block(d.File)]; ok && d.File != "" {
			s.addOutput("warning: " + line + "\n")
			continue
		}
		cfgOut.WriteString("warning: " + line + "\n")
	}
	// An invalid run without a positioned error (a failed healthcheck, an unreadable results
	// file) and a skipped run still get a testcase, so JUnit consumers do not show green.
	reason := logtext.Block(truncate(oneLine(run.Decision.Reason), 500))
	switch run.Decision.Outcome {
	case gate.Invalid:
		if len(cfg.Testcases) == 0 {
			text := cmp.Or(logtext.Block(strings.Join(run.Counts.Problems, "\n")), reason)
			cfg.AddTestcase(junit.Testcase{Name: "run", Classname: "agentv.config", Time: seconds(0),
				Error: &junit.Result{Message: reason, Type: "invalid", Data: text}})
		}
	case gate.Skipped:
		cfg.AddTestcase(junit.Testcase{Name: "run", Classname: "agentv", Time: seconds(0),
			Skipped: &junit.Result{Message: reason, Type: "skipped"}})
	}
	if len(cfg.Testcases) == 0 && (cfgOut.Len() == 0 || len(files) > 0) {
		// Warnings alone make no testsuite (consumers would list an empty one): they go with
		// the first file's.
		if cfgOut.Len() > 0 {
			files[0].addOutput(cfgOut.String())
		}
		return nil
	}
	if cfgOut.Len() > 0 {
		cfg.SystemOut = &junit.Output{Data: cfgOut.String()}
	}
	return cfg
}

func (s *junitFileSuite) addOutput(text string) {
	if s.SystemOut == nil {
		s.SystemOut = &junit.Output{}
	}
	s.SystemOut.Data += text
}

// seconds formats milliseconds as seconds with three decimals (SUREFIRE_TIME allows it).
func seconds(ms int64) string {
	if ms < 0 {
		ms = 0
	}
	return fmt.Sprintf("%d.%03d", ms/1000, ms%1000)
}

// formatFloat prints a threshold without trailing zeros (0.8, 0.75, 1).
func formatFloat(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

func bulleted(items []string) string {
	var b strings.Builder
	for _, it := range items {
		b.WriteString("- " + oneLine(it) + "\n")
	}
	return b.String()
}

// writeIndented writes each line of s, trailing newlines left out, prefixed by pad.
func writeIndented(b *strings.Builder, s, pad string) {
	for line := range strings.Lines(strings.TrimRight(s, "\n")) {
		b.WriteString(pad)
		b.WriteString(strings.TrimSuffix(line, "\n"))
		b.WriteByte('\n')
	}
}
