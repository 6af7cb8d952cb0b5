package report

import (
	"bufio"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentv/action/gate"
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

// The structs follow ../testdata/junit-10.xsd (Jenkins xUnit): testcase takes only name,
// classname, time and group, so the source position goes into system-out. They are written by
// hand because go-junit-report writes control characters unescaped (deps.md).
type junitTestsuites struct {
	XMLName  xml.Name         `xml:"testsuites"`
	Name     string           `xml:"name,attr,omitempty"`
	Tests    int              `xml:"tests,attr"`
	Failures int              `xml:"failures,attr"`
	Errors   int              `xml:"errors,attr"`
	Time     string           `xml:"time,attr"`
	Suites   []junitTestsuite `xml:"testsuite"`
}

type junitTestsuite struct {
	Name       string           `xml:"name,attr"`
	Tests      int              `xml:"tests,attr"`
	Failures   int              `xml:"failures,attr"`
	Errors     int              `xml:"errors,attr"`
	Skipped    int              `xml:"skipped,attr"`
	Time       string           `xml:"time,attr"`
	Timestamp  string           `xml:"timestamp,attr,omitempty"`
	File       string           `xml:"file,attr,omitempty"`
	Properties *junitProperties `xml:"properties,omitempty"`
	Testcases  []junitTestcase  `xml:"testcase"`
	SystemOut  xmlBody          `xml:"system-out,omitempty"`
}

type junitProperties struct {
	Property []junitProperty `xml:"property"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitTestcase struct {
	Name      string       `xml:"name,attr"`
	Classname string       `xml:"classname,attr"`
	Time      string       `xml:"time,attr"`
	Failure   *junitResult `xml:"failure,omitempty"`
	Error     *junitResult `xml:"error,omitempty"`
	Skipped   *junitResult `xml:"skipped,omitempty"`
	SystemOut xmlBody      `xml:"system-out,omitempty"`
}

type junitResult struct {
	Message string  `xml:"message,attr"`
	Type    string  `xml:"type,attr,omitempty"`
	Text    xmlBody `xml:",chardata"`
}

// MarshalXML writes the element with its text as raw lines (see xmlBody).
func (r junitResult) MarshalXML(e *xml.Encoder, start xml.StartElement) error {
	start.Attr = append(start.Attr, xml.Attr{Name: xml.Name{Local: "message"}, Value: r.Message})
	if r.Type != "" {
		start.Attr = append(start.Attr, xml.Attr{Name: xml.Name{Local: "type"}, Value: r.Type})
	}
	return r.Text.encode(e, start)
}

// xmlBody is element text written with real newlines: encoding/xml escapes newlines in
// chardata fields as &#xA;, which leaves a multi-line reasoning unreadable in the file.
type xmlBody string

// MarshalXML writes the text through EncodeToken, which escapes markup but keeps newlines.
func (b xmlBody) MarshalXML(e *xml.Encoder, start xml.StartElement) error { return b.encode(e, start) }

func (b xmlBody) encode(e *xml.Encoder, start xml.StartElement) error {
	if err := e.EncodeToken(start); err != nil {
		return err
	}
	if b != "" {
		if err := e.EncodeToken(xml.CharData(b)); err != nil {
			return err
		}
	}
	return e.EncodeToken(start.End())
}

// JUnit writes the run as JUnit XML: one testsuite per eval file (properties: targets and
// thresholds), one testcase per case (classname = dataset, name = eval id, time in seconds), a
// failure for a case below the case threshold, an error for an errored case, and the score,
// verdict, evaluator scores, source position and judge reasoning in system-out. Load and
// configuration errors become error testcases of an extra "agentv" testsuite. All text is
// stripped of ANSI escapes and characters XML 1.0 cannot hold, so the file is always
// well-formed.
func JUnit(w io.Writer, run *Run) error {
	if run == nil {
		run = &Run{}
	}
	// The testcases are rendered and written one at a time: a 100,000-case run would
	// otherwise hold its whole XML model in memory. Each EncodeElement flushes the encoder,
	// so writes are buffered here.
	bw := bufio.NewWriterSize(w, 64<<10)
	if err := encodeJUnit(bw, run); err != nil {
		return fmt.Errorf("could not write JUnit XML: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("could not write JUnit XML: %w", err)
	}
	return nil
}

func encodeJUnit(w *bufio.Writer, run *Run) error {
	doc, groups := junitDocument(run)
	if _, err := w.WriteString(xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	// Same elements and attributes, in the same order, as encoding the junitTestsuites model
	// whole: the encoder keeps its indentation state across tokens.
	root := xml.StartElement{Name: xml.Name{Local: "testsuites"}}
	if doc.Name != "" {
		root.Attr = append(root.Attr, attr("name", doc.Name))
	}
	root.Attr = append(root.Attr, attr("tests", strconv.Itoa(doc.Tests)), attr("failures", strconv.Itoa(doc.Failures)),
		attr("errors", strconv.Itoa(doc.Errors)), attr("time", doc.Time))
	if err := enc.EncodeToken(root); err != nil {
		return err
	}
	for i := range doc.Suites {
		var cases []*Case
		if i < len(groups) {
			cases = groups[i]
		}
		if err := writeSuite(w, enc, run, &doc.Suites[i], cases); err != nil {
			return err
		}
	}
	if err := enc.EncodeToken(root.End()); err != nil {
		return err
	}
	if err := enc.Flush(); err != nil {
		return err
	}
	_, err := w.WriteString("\n")
	return err
}

func attr(name, value string) xml.Attr { return xml.Attr{Name: xml.Name{Local: name}, Value: value} }

// writeSuite writes one testsuite: its own testcases (the config suite) and then one
// testcase per case, copied from the spool or rendered as it is written.
func writeSuite(w *bufio.Writer, enc *xml.Encoder, run *Run, s *junitTestsuite, cases []*Case) error {
	start := xml.StartElement{Name: xml.Name{Local: "testsuite"}, Attr: []xml.Attr{
		attr("name", s.Name), attr("tests", strconv.Itoa(s.Tests)), attr("failures", strconv.Itoa(s.Failures)),
		attr("errors", strconv.Itoa(s.Errors)), attr("skipped", strconv.Itoa(s.Skipped)), attr("time", s.Time)}}
	if s.Timestamp != "" {
		start.Attr = append(start.Attr, attr("timestamp", s.Timestamp))
	}
	if s.File != "" {
		start.Attr = append(start.Attr, attr("file", s.File))
	}
	if err := enc.EncodeToken(start); err != nil {
		return err
	}
	if s.Properties != nil {
		if err := enc.EncodeElement(s.Properties, xml.StartElement{Name: xml.Name{Local: "properties"}}); err != nil {
			return err
		}
	}
	tcStart := xml.StartElement{Name: xml.Name{Local: "testcase"}}
	for i := range s.Testcases {
		if err := enc.EncodeElement(&s.Testcases[i], tcStart); err != nil {
			return err
		}
	}
	if len(cases) > 0 {
		// File suites always have properties, so the encoder is past the suite's start tag
		// and its indentation state stays right around the hand-written testcases.
		if s.Properties == nil {
			return errors.New("internal error: file testsuite without properties")
		}
		if err := enc.Flush(); err != nil {
			return err
		}
		if err := writeTestcases(w, run, cases); err != nil {
			return err
		}
	}
	if s.SystemOut != "" {
		if err := s.SystemOut.encode(enc, xml.StartElement{Name: xml.Name{Local: "system-out"}}); err != nil {
			return err
		}
	}
	return enc.EncodeToken(start.End())
}

// junitDocument builds the XML model of a run without the testcases of its cases: those
// are written afterwards, from the returned case groups (one per file suite, in the order of
// doc.Suites).
func junitDocument(run *Run) (junitTestsuites, [][]*Case) {
	recs := run.sortedCases()
	doc := junitTestsuites{Name: "agentv"}
	var groups [][]*Case
	var totalMS int64

	// Group by file; records are sorted by file, so each group is contiguous.
	for start := 0; start < len(recs); {
		end := start
		for end < len(recs) && recs[end].File == recs[start].File {
			end++
		}
		s := junitSuite(run, recs[start:end])
		doc.Suites = append(doc.Suites, s)
		groups = append(groups, recs[start:end])
		for _, r := range recs[start:end] {
			totalMS += max(r.DurationMS, 0)
		}
		start = end
	}
	attachWarnings(run, &doc)
	for _, s := range doc.Suites {
		doc.Tests += s.Tests
		doc.Failures += s.Failures
		doc.Errors += s.Errors
	}
	if run.Duration > 0 {
		doc.Time = seconds(run.Duration.Milliseconds())
	} else {
		doc.Time = seconds(totalMS)
	}
	return doc, groups
}

// junitSuite fills a file's testsuite header: counts, time and properties.
func junitSuite(run *Run, recs []*Case) junitTestsuite {
	file := recs[0].File
	s := junitTestsuite{Name: xmlText(file), File: xmlText(file)}
	if s.Name == "" {
		s.Name = "(unknown file)"
	}
	if !run.Started.IsZero() {
		s.Timestamp = run.Started.UTC().Format(time.RFC3339)
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
	props := []junitProperty{{"target", strings.Join(targets, ", ")}}
	props = append(props, thresholdProperties(run)...)
	for i := range props {
		props[i].Value = xmlText(props[i].Value)
	}
	s.Properties = &junitProperties{Property: props}
	return s
}

func thresholdProperties(run *Run) []junitProperty {
	p := []junitProperty{{"case-threshold", formatFloat(run.Gate.CaseThreshold)}}
	if run.Gate.MinScore != nil {
		p = append(p, junitProperty{"min-score", formatFloat(*run.Gate.MinScore)})
	}
	p = append(p,
		junitProperty{"max-failures", strconv.Itoa(run.Gate.MaxFailures)},
		junitProperty{"max-errors", strconv.Itoa(run.Gate.MaxErrors)},
	)
	if run.Version != "" {
		p = append(p, junitProperty{"agentv-version", run.Version})
	}
	return p
}

// junitCase renders a record's testcase; threshold is the case threshold its failure
// message names.
func junitCase(threshold float64, r *results.Record) junitTestcase {
	tc := junitTestcase{
		Name:      xmlText(r.EvalID),
		Classname: xmlText(r.Dataset),
		Time:      seconds(r.DurationMS),
	}
	switch verdictOf(r) {
	case results.VerdictError:
		msg := firstError(r)
		if msg == "" {
			msg = fmt.Sprintf("case has verdict %q", r.Verdict)
		}
		tc.Error = &junitResult{
			Message: xmlText(truncate(oneLine(msg), 500)),
			Type:    "error",
			Text:    xmlBody(xmlText(truncate(errorText(r), junitTextLimit))),
		}
	case results.VerdictFail:
		tc.Failure = &junitResult{
			Message: xmlText(failureMessage(threshold, r)),
			Type:    "below-threshold",
			Text:    xmlBody(xmlText(truncate(bulleted(r.Misses), junitTextLimit))),
		}
	}
	tc.SystemOut = xmlBody(xmlText(junitSystemOut(threshold, r)))
	return tc
}

// failureMessage reads: score 0.420 below case threshold 0.800; misses: a; b; c (+2 more).
func failureMessage(threshold float64, r *results.Record) string {
	msg := fmt.Sprintf("score %.3f below case threshold %.3f", r.Score, threshold)
	if len(r.Misses) > 0 {
		var top []string
		for _, m := range r.Misses[:min(len(r.Misses), junitTopMisses)] {
			top = append(top, truncate(oneLine(m), 200))
		}
		msg += "; misses: " + strings.Join(top, "; ")
		if n := len(r.Misses) - junitTopMisses; n > 0 {
			msg += fmt.Sprintf(" (+%d more)", n)
		}
	}
	return msg
}

// errorText holds the record's error and every evaluator error, one per line.
func errorText(r *results.Record) string {
	var lines []string
	if r.Error != "" {
		lines = append(lines, r.Error)
	}
	var walk func([]results.EvaluatorResult)
	walk = func(ers []results.EvaluatorResult) {
		for _, e := range ers {
			if e.Error != "" {
				lines = append(lines, fmt.Sprintf("evaluator %s (%s): %s", e.Name, e.Type, e.Error))
			}
			walk(e.EvaluatorResults)
		}
	}
	walk(r.EvaluatorResults)
	return strings.Join(lines, "\n")
}

func junitSystemOut(threshold float64, r *results.Record) string {
	// Appended with strconv rather than fmt: this runs once per case of the run.
	b := make([]byte, 0, 256)
	b = append(b, "score: "...)
	b = strconv.AppendFloat(b, r.Score, 'f', 3, 64)
	b = append(b, " (case threshold "...)
	b = strconv.AppendFloat(b, threshold, 'f', 3, 64)
	b = append(b, ")\nverdict: "...)
	b = append(b, verdictOf(r)...)
	b = append(b, "\nsource: "...)
	b = append(b, position(r.File, r.Line)...)
	b = append(b, '\n')
	if r.Target != "" {
		b = append(b, "target: "...)
		b = append(b, r.Target...)
		b = append(b, '\n')
	}
	b = append(b, "duration: "...)
	b = append(b, formatMS(r.DurationMS)...)
	b = append(b, '\n')
	if r.Attempts > 1 {
		b = append(b, "attempts: "...)
		b = strconv.AppendInt(b, int64(r.Attempts), 10)
		b = append(b, '\n')
	}
	if t := r.TraceSummary; t != nil && t.TokenUsage != nil {
		in, out := t.TokenUsage.Input, t.TokenUsage.Output
		b = append(b, "tokens: "...)
		b = strconv.AppendInt(b, in, 10)
		b = append(b, " input, "...)
		b = strconv.AppendInt(b, out, 10)
		b = append(b, " output\n"...)
	}
	if t := r.TraceSummary; t != nil && t.CostUSD != nil {
		c := *t.CostUSD
		b = append(b, "cost: $"...)
		b = strconv.AppendFloat(b, c, 'f', 4, 64)
		b = append(b, '\n')
	}
	if len(r.EvaluatorResults) > 0 {
		b = append(b, "evaluators:\n"...)
		b = appendEvaluators(b, r.EvaluatorResults, "  ")
	}
	if !evaluatorsHaveReasoning(r.EvaluatorResults) && strings.TrimSpace(r.Reasoning) != "" {
		b = append(b, "reasoning:\n"...)
		b = appendIndented(b, truncate(r.Reasoning, junitTextLimit), "  ")
	}
	if len(r.Warnings) > 0 {
		b = append(b, "warnings:\n"...)
		for _, w := range r.Warnings {
			b = append(b, "  - "...)
			b = append(b, suite.Diagnostic{File: w.File, Line: w.Line, Col: w.Col, Message: w.Message}.Error()...)
			b = append(b, '\n')
		}
	}
	return string(b)
}

// writeTestcases writes the cases' testcases in order: spooled parts are copied, runs of them
// at once; a case without one is rendered from its record.
func writeTestcases(w *bufio.Writer, run *Run, cases []*Case) error {
	var parts []spoolPart
	flush := func() error {
		if len(parts) == 0 {
			return nil
		}
		err := run.JUnitParts.copyTo(w, parts)
		parts = parts[:0]
		return err
	}
	for _, c := range cases {
		if c.part.n > 0 && run.JUnitParts != nil {
			parts = append(parts, c.part)
			continue
		}
		if err := flush(); err != nil {
			return err
		}
		tc := junitCase(run.Gate.CaseThreshold, c.record())
		writeTestcase(w, &tc)
	}
	return flush()
}

func appendEvaluators(b []byte, ers []results.EvaluatorResult, pad string) []byte {
	for _, e := range ers {
		b = append(b, pad...)
		b = append(b, "- "...)
		b = append(b, e.Name...)
		b = append(b, " ("...)
		b = append(b, e.Type...)
		b = append(b, "): "...)
		b = strconv.AppendFloat(b, e.Score, 'f', 3, 64)
		b = append(b, ' ')
		b = append(b, e.Verdict...)
		if e.Weight != 0 && e.Weight != 1 {
			b = append(b, ", weight "...)
			b = append(b, formatFloat(e.Weight)...)
		}
		b = append(b, '\n')
		in := pad + "    "
		if e.Error != "" {
			b = append(b, in...)
			b = append(b, "error: "...)
			b = append(b, truncate(oneLine(e.Error), junitTextLimit)...)
			b = append(b, '\n')
		}
		for _, h := range e.Hits {
			b = append(b, in...)
			b = append(b, "hit: "...)
			b = append(b, truncate(oneLine(h), 1000)...)
			b = append(b, '\n')
		}
		for _, m := range e.Misses {
			b = append(b, in...)
			b = append(b, "miss: "...)
			b = append(b, truncate(oneLine(m), 1000)...)
			b = append(b, '\n')
		}
		if strings.TrimSpace(e.Reasoning) != "" {
			b = append(b, in...)
			b = append(b, "reasoning:\n"...)
			b = appendIndented(b, truncate(e.Reasoning, junitTextLimit), in, "  ")
		}
		if len(e.EvaluatorResults) > 0 {
			b = appendEvaluators(b, e.EvaluatorResults, in)
		}
	}
	return b
}

func evaluatorsHaveReasoning(ers []results.EvaluatorResult) bool {
	for _, e := range ers {
		if strings.TrimSpace(e.Reasoning) != "" || evaluatorsHaveReasoning(e.EvaluatorResults) {
			return true
		}
	}
	return false
}

// attachWarnings puts warnings in the system-out of their eval file's testsuite, and errors
// (plus warnings about other files, an invalid run's reason, a skipped run) in the extra
// "agentv" testsuite.
func attachWarnings(run *Run, doc *junitTestsuites) {
	byFile := map[string]int{}
	for i, s := range doc.Suites {
		byFile[s.File] = i
	}
	var cfg junitTestsuite
	var cfgOut strings.Builder
	for _, d := range run.Diagnostics {
		line := xmlText(d.Error())
		if d.Kind != "" {
			line += " [" + xmlText(d.Kind) + "]"
		}
		if d.IsError() {
			cfg.Testcases = append(cfg.Testcases, junitTestcase{
				Name:      xmlText(position(d.File, d.Line)),
				Classname: "agentv.config",
				Time:      seconds(0),
				Error:     &junitResult{Message: xmlText(truncate(oneLine(d.Message), 500)), Type: "config", Text: xmlBody(line)},
			})
			continue
		}
		if i, ok := byFile[xmlText(d.File)]; ok && d.File != "" {
			doc.Suites[i].SystemOut += xmlBody("warning: " + line + "\n")
			continue
		}
		cfgOut.WriteString("warning: " + line + "\n")
	}
	// An invalid run without a positioned error (a failed healthcheck, an unreadable results
	// file) and a skipped run still get a testcase, so JUnit consumers do not show green.
	reason := xmlText(truncate(oneLine(run.Decision.Reason), 500))
	switch run.Decision.Outcome {
	case gate.Invalid:
		if len(cfg.Testcases) == 0 {
			text := xmlText(strings.Join(run.Counts.Problems, "\n"))
			if text == "" {
				text = reason
			}
			cfg.Testcases = append(cfg.Testcases, junitTestcase{Name: "run", Classname: "agentv.config", Time: seconds(0),
				Error: &junitResult{Message: reason, Type: "invalid", Text: xmlBody(text)}})
		}
	case gate.Skipped:
		cfg.Testcases = append(cfg.Testcases, junitTestcase{Name: "run", Classname: "agentv", Time: seconds(0),
			Skipped: &junitResult{Message: reason, Type: "skipped"}})
		cfg.Skipped = 1
	}
	if len(cfg.Testcases) == 0 && cfgOut.Len() == 0 {
		return
	}
	cfg.Name = configSuiteName
	cfg.Tests = len(cfg.Testcases)
	cfg.Errors = len(cfg.Testcases) - cfg.Skipped
	cfg.Time = seconds(0)
	cfg.SystemOut = xmlBody(cfgOut.String())
	doc.Suites = append(doc.Suites, cfg)
}

// xmlText is clean for XML; encoding/xml escapes the markup characters itself.
func xmlText(s string) string { return clean(s) }

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

// appendIndented appends s with every line prefixed by the pads and ended with a newline,
// leaving out trailing newlines; nothing for an empty s.
func appendIndented(b []byte, s string, pads ...string) []byte {
	s = strings.TrimRight(s, "\n")
	for s != "" {
		line, rest, found := strings.Cut(s, "\n")
		for _, p := range pads {
			b = append(b, p...)
		}
		b = append(b, line...)
		b = append(b, '\n')
		if !found {
			break
		}
		s = rest
	}
	return b
}
