package report

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/agentv/action/gate"
	"github.com/agentv/action/internal/logtext"
	"github.com/agentv/action/results"
	"github.com/agentv/action/suite"
)

// xsdPath is the JUnit schema reports must validate against (Jenkins xUnit, vendored).
var xsdPath = filepath.Join("testdata", "junit-10", "junit-10.xsd")

func writeJUnit(t *testing.T, run *Run) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := JUnit(&b, run); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestJUnitValidatesAgainstSchema(t *testing.T) {
	t.Parallel()
	xmllint, err := exec.LookPath("xmllint")
	if err != nil {
		t.Skip("xmllint is not installed (apt-get install libxml2-utils); JUnit schema validation skipped")
	}
	schema := xsdPath
	runs := map[string]*Run{
		"fixture": fixtureRun(t),
		"invalid": invalidRun(),
		"skipped": skippedRun(),
		"empty":   {},
		"invalid without diagnostics": {Decision: gate.Decision{Outcome: gate.Invalid, Reason: "healthcheck failed"},
			Counts: gate.Counts{Problems: []string{"healthcheck failed", "could not read results: \x00"}}},
		"all-bytes": {Records: []*results.Record{allBytesRecord()}},
	}
	for name, run := range runs {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "junit.xml")
			if err := os.WriteFile(path, writeJUnit(t, run), 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := exec.CommandContext(t.Context(), xmllint, "--noout", "--schema", schema, path).CombinedOutput()
			if err != nil {
				t.Fatalf("xmllint rejected the JUnit file: %v\n%s", err, out)
			}
		})
	}
}

// allBytesRecord carries every byte value and some awkward runes in every text field.
func allBytesRecord() *results.Record {
	var all strings.Builder
	for i := range 256 {
		all.WriteByte(byte(i))
	}
	all.WriteString("\ufffe\uffff\u0085\u2028]]><![CDATA[\xed\xa0\x80")
	s := all.String()
	return &results.Record{
		EvalID: s, Dataset: s, File: s, Line: 1, Target: s, Score: 0.5, Verdict: results.VerdictFail,
		Hits: []string{s}, Misses: []string{s}, Reasoning: s, CandidateAnswer: s,
		EvaluatorResults: []results.EvaluatorResult{{Name: s, Type: s, Verdict: s, Reasoning: s, Error: s, Hits: []string{s}, Misses: []string{s}}},
		Warnings:         []suite.Diagnostic{{File: s, Message: s}},
	}
}

// parsed mirrors the JUnit structure for reading the file back.
type parsed struct {
	Tests    int `xml:"tests,attr"`
	Failures int `xml:"failures,attr"`
	Errors   int `xml:"errors,attr"`
	Suites   []struct {
		Name       string `xml:"name,attr"`
		Tests      int    `xml:"tests,attr"`
		Failures   int    `xml:"failures,attr"`
		Errors     int    `xml:"errors,attr"`
		SystemOut  string `xml:"system-out"`
		Properties []struct {
			Name  string `xml:"name,attr"`
			Value string `xml:"value,attr"`
		} `xml:"properties>property"`
		Cases []struct {
			Name      string `xml:"name,attr"`
			Classname string `xml:"classname,attr"`
			Time      string `xml:"time,attr"`
			Failure   *struct {
				Message string `xml:"message,attr"`
			} `xml:"failure"`
			Error *struct {
				Message string `xml:"message,attr"`
			} `xml:"error"`
			SystemOut string `xml:"system-out"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

func parseJUnit(t testing.TB, data []byte) parsed {
	t.Helper()
	var p parsed
	if err := xml.Unmarshal(data, &p); err != nil {
		t.Fatalf("JUnit output does not parse: %v", err)
	}
	return p
}

func TestJUnitStructure(t *testing.T) {
	t.Parallel()
	p := parseJUnit(t, writeJUnit(t, fixtureRun(t)))
	if p.Tests != 7 || p.Failures != 2 || p.Errors != 2 {
		t.Errorf("totals: tests %d failures %d errors %d; want 7, 2, 2", p.Tests, p.Failures, p.Errors)
	}
	type tc struct{ Suite, Class, Name, Time, Kind string }
	var got []tc
	for _, s := range p.Suites {
		for _, c := range s.Cases {
			kind := "pass"
			if c.Failure != nil {
				kind = "failure: " + c.Failure.Message[:min(40, len(c.Failure.Message))]
			}
			if c.Error != nil {
				kind = "error: " + c.Error.Message[:min(40, len(c.Error.Message))]
			}
			got = append(got, tc{s.Name, c.Classname, c.Name, c.Time, kind})
		}
	}
	want := []tc{
		{"evals/agent/tools.jsonl", "tools", "greeting", "0.640", "pass"},
		{"evals/agent/tools.jsonl", "tools", "hostile|case @org/team", "15.200", "failure: score 0.100 below case threshold 0.800; "},
		{"evals/agent/tools.jsonl", "tools", "edge-0.8", "0.090", "pass"},
		{"evals/smoke.yaml", "smoke", "greeting", "1.234", "pass"},
		{"evals/smoke.yaml", "smoke", "refund-policy", "2.350", "failure: score 0.400 below case threshold 0.800; "},
		{"evals/smoke.yaml", "smoke", "timeout-case", "360.500", `error: target "default" timed out after 120s (3`},
		{"evals/smoke.yaml", "smoke", "judge-crash", "3.100", "error: format: script exited with status 1: Tra"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("testcases (-want +got):\n%s", diff)
	}
	props := map[string]string{}
	for _, pr := range p.Suites[1].Properties {
		props[pr.Name] = pr.Value
	}
	if props["target"] != "default" || props["case-threshold"] != "0.8" || props["max-errors"] != "0" {
		t.Errorf("suite properties = %v", props)
	}
	out := p.Suites[1].Cases[1].SystemOut
	for _, want := range []string{"score: 0.400", "verdict: fail", "source: evals/smoke.yaml:14", "rubric (llm_judge): 0.300 fail",
		"format (code_judge): 0.600 borderline, weight 0.5", "It invents a fee", "tokens: 310 input, 88 output"} {
		if !strings.Contains(out, want) {
			t.Errorf("system-out of refund-policy lacks %q:\n%s", want, out)
		}
	}
}

func TestJUnitStripsControlsAndANSI(t *testing.T) {
	t.Parallel()
	data := writeJUnit(t, fixtureRun(t))
	for _, bad := range []string{"\x00", "\x1b", "\u0085", "\ufffe", "\uffff", "[31m"} {
		if bytes.Contains(data, []byte(bad)) {
			t.Errorf("JUnit output contains %q", bad)
		}
	}
	if !utf8.Valid(data) {
		t.Error("JUnit output is not valid UTF-8")
	}
	// The hostile reasoning is capped, not copied whole.
	if len(data) > 4*junitTextLimit*4 {
		t.Errorf("JUnit output is %d bytes; model text should be capped at %d characters a field", len(data), junitTextLimit)
	}
}

// hostilePieces are what model output and user files can hold that XML cannot, or that
// could end a CDATA section, a comment or an attribute early.
var hostilePieces = []string{
	"\x00", "\x01", "\x08", "\x0b", "\x0c", "\x1f", "\x7f", "\x1b", "\x1b[31m", "\x1b[0m", "\x1b]8;;http://x\x07",
	"\x1b]0;title\x1b\\", "\x1bP", "\u009b2J", "\u0085", "\r", "\r\n", "\n", "\t", "]]>", "]]", "]", ">", "<![CDATA[",
	"<", "&", "&amp;", "\"", "'", "-->", "<!--", "?>", "\xff", "\xc3", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\ufffe",
	"\uffff", "\ufffd", "\U0010FFFF", "é", "日本", "🚀", "a", "b c", " ",
}

// hostileText strings together n pieces chosen by rng.
func hostileText(rng *rand.Rand, n int) string {
	var b strings.Builder
	for range n {
		b.WriteString(hostilePieces[rng.IntN(len(hostilePieces))])
	}
	return b.String()
}

// hostileRecord puts text in every field JUnit writes.
func hostileRecord(id, text string, line int, v results.Verdict) *results.Record {
	r := &results.Record{
		EvalID: id, Dataset: text, File: "evals/" + text, Line: line, Target: text, Score: 0.25, Verdict: v,
		Reasoning: text, Hits: []string{text}, Misses: []string{text, text, text, text}, DurationMS: int64(line),
		EvaluatorResults: []results.EvaluatorResult{{Name: text, Type: text, Verdict: text, Reasoning: text, Error: text,
			Hits: []string{text}, Misses: []string{text}, EvaluatorResults: []results.EvaluatorResult{{Name: text, Reasoning: text}}}},
		Warnings: []suite.Diagnostic{{File: text, Line: 1, Message: text}},
	}
	if v == results.VerdictError {
		r.Error = text
	}
	return r
}

// hostileRun is a run whose every text is hostile: records, diagnostics, version and reason.
func hostileRun(rng *rand.Rand, cases int) *Run {
	run := &Run{Version: hostileText(rng, 3), Started: time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)}
	verdicts := []results.Verdict{results.VerdictPass, results.VerdictFail, results.VerdictError, "weird"}
	for i := range cases {
		text := hostileText(rng, 1+rng.IntN(12))
		// Every id is distinct, so testcases can be matched to records.
		id := fmt.Sprintf("%s#%d", hostileText(rng, rng.IntN(4)), i)
		run.Records = append(run.Records, hostileRecord(id, text, i+1, verdicts[rng.IntN(len(verdicts))]))
	}
	file := ""
	if len(run.Records) > 0 {
		file = run.Records[0].File
	}
	for i := range 3 {
		sev := suite.SeverityWarning
		if i == 2 && rng.IntN(2) == 0 {
			sev = suite.SeverityError
		}
		run.Diagnostics = append(run.Diagnostics, suite.Diagnostic{File: []string{file, hostileText(rng, 3), ""}[i],
			Line: i, Severity: sev, Kind: hostileText(rng, 2), Message: hostileText(rng, 5)})
	}
	switch rng.IntN(3) {
	case 1:
		run.Decision = gate.Decision{Outcome: gate.Invalid, Reason: hostileText(rng, 5)}
		run.Counts.Problems = []string{hostileText(rng, 5)}
	case 2:
		run.Decision = gate.Decision{Outcome: gate.Skipped, Reason: hostileText(rng, 5)}
	}
	return run
}

// checkWellFormed decodes every token of data and checks that each record's testcase reads
// back as its cleaned id, dataset and system-out.
func checkWellFormed(t testing.TB, data []byte, run *Run) {
	t.Helper()
	if !utf8.Valid(data) {
		t.Fatalf("output is not valid UTF-8:\n%q", data)
	}
	if i := bytes.IndexFunc(data, func(r rune) bool { return r < 0x20 && r != '\n' && r != '\t' }); i >= 0 {
		t.Fatalf("output holds control character %q at %d:\n%q", data[i], i, data)
	}
	for _, ansi := range []string{"[31m", "[0m", "]8;;", "]0;title"} {
		if bytes.Contains(data, []byte(ansi)) {
			t.Fatalf("output holds what is left of an ANSI sequence, %q:\n%q", ansi, data)
		}
	}
	d := xml.NewDecoder(bytes.NewReader(data))
	for {
		_, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed: %v\n%q", err, data)
		}
	}
	p := parseJUnit(t, data)
	got := map[string]string{}
	for _, s := range p.Suites {
		for _, c := range s.Cases {
			got[c.Name+"\x00"+c.Classname] = c.SystemOut
		}
	}
	for _, r := range run.Records {
		out, ok := got[logtext.Block(r.EvalID)+"\x00"+logtext.Block(r.Dataset)]
		if !ok {
			t.Fatalf("no testcase named %q (classname %q)", logtext.Block(r.EvalID), logtext.Block(r.Dataset))
		}
		if want := logtext.Block(junitSystemOut(run.Gate.CaseThreshold, r)); out != want {
			t.Fatalf("system-out of %q does not read back:\n%s", r.EvalID, cmp.Diff(want, out))
		}
	}
}

// Hostile text in every field always gives well-formed JUnit that reads back as the cleaned
// text, rendered from records and from the collector's spool alike, and valid against the
// schema when xmllint is installed.
func TestJUnitHostileTextIsWellFormed(t *testing.T) {
	t.Parallel()
	var files []string
	dir := t.TempDir()
	for seed := range uint64(60) {
		rng := rand.New(rand.NewPCG(seed, 7))
		run := hostileRun(rng, int(seed%9))
		direct := writeJUnit(t, run)
		checkWellFormed(t, direct, run)
		spooled, col := collected(t, run, seed)
		if col.Parts() == nil {
			t.Fatal("no JUnit spool")
		}
		if got := writeJUnit(t, spooled); !bytes.Equal(got, direct) {
			t.Fatalf("seed %d: spooled JUnit differs from rendered:\n%s", seed, cmp.Diff(string(direct), string(got)))
		}
		path := filepath.Join(dir, fmt.Sprintf("junit-%d.xml", seed))
		if err := os.WriteFile(path, direct, 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, path)
	}
	xmllint, err := exec.LookPath("xmllint")
	if err != nil {
		t.Skip("xmllint is not installed (apt-get install libxml2-utils); schema validation skipped")
	}
	args := append([]string{"--noout", "--schema", xsdPath}, files...)
	if out, err := exec.CommandContext(t.Context(), xmllint, args...).CombinedOutput(); err != nil {
		t.Fatalf("xmllint rejected a JUnit file: %v\n%s", err, out)
	}
}

func FuzzJUnitWellFormed(f *testing.F) {
	f.Add("plain", "reason", uint8(0))
	f.Add("\x00\x1b[31mred\x1b[0m", "]]>&<\"'", uint8(1))
	f.Add("\xed\xa0\x80\xff", "\ufffe\uffff\u0085", uint8(2))
	f.Add("\x1b]8;;http://x\x07link\x1b]8;;\x07", "\r\n\r", uint8(3))
	f.Add("]]]]><![CDATA[>", "]]>]]>\x00]]>", uint8(2))
	f.Fuzz(func(t *testing.T, id, text string, v uint8) {
		verdict := []results.Verdict{results.VerdictPass, results.VerdictFail, results.VerdictError, "?"}[v%4]
		run := &Run{Records: []*results.Record{hostileRecord(id, text, 3, verdict)},
			Diagnostics: []suite.Diagnostic{{File: text, Message: id}, {File: "evals/" + text, Message: text, Kind: id}}}
		direct := writeJUnit(t, run)
		checkWellFormed(t, direct, run)
		spooled, _ := collected(t, run, 0)
		if got := writeJUnit(t, spooled); !bytes.Equal(got, direct) {
			t.Fatalf("spooled JUnit differs from rendered:\n%s", cmp.Diff(string(direct), string(got)))
		}
	})
}

// Warnings alone do not make a testsuite: they go with the first file's testsuite. The extra
// "agentv" testsuite is there for errors, or when there is no file to hold them.
func TestJUnitWarningsWithoutSuite(t *testing.T) {
	t.Parallel()
	rec := &results.Record{EvalID: "a", Dataset: "d", File: "evals/a.yaml", Line: 1, Score: 1, Verdict: results.VerdictPass}
	warn := suite.Diagnostic{File: "targets.yaml", Line: 2, Message: "unknown setting"}
	own := suite.Diagnostic{File: "evals/a.yaml", Line: 1, Message: "unknown key"}
	bad := suite.Diagnostic{File: "evals/b.yaml", Line: 3, Severity: suite.SeverityError, Message: "no id"}
	type suiteOut struct{ Name, Out string }
	tests := []struct {
		name string
		run  *Run
		want []suiteOut
	}{
		{"warnings with cases", &Run{Records: []*results.Record{rec}, Diagnostics: []suite.Diagnostic{warn, own}},
			[]suiteOut{{"evals/a.yaml", "warning: evals/a.yaml:1: unknown key\nwarning: targets.yaml:2: unknown setting\n"}}},
		{"warnings without cases", &Run{Diagnostics: []suite.Diagnostic{warn}},
			[]suiteOut{{"agentv", "warning: targets.yaml:2: unknown setting\n"}}},
		{"warnings and an error", &Run{Records: []*results.Record{rec}, Diagnostics: []suite.Diagnostic{warn, bad}},
			[]suiteOut{{"evals/a.yaml", ""}, {"agentv", "warning: targets.yaml:2: unknown setting\n"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got []suiteOut
			for _, s := range parseJUnit(t, writeJUnit(t, tt.run)).Suites {
				got = append(got, suiteOut{s.Name, s.SystemOut})
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("testsuites (-want +got):\n%s", diff)
			}
		})
	}
}

// BenchmarkJUnit100k streams a 100,000-case run as JUnit XML.
func BenchmarkJUnit100k(b *testing.B) {
	run := syntheticRun(100_000, 0, 2000, DetailsFailures)
	b.ReportAllocs()
	for b.Loop() {
		if err := JUnit(io.Discard, run); err != nil {
			b.Fatal(err)
		}
	}
}

// A failed case without misses of its own still says why in the failure message, the line CI
// pages show first: here a judge whose reply held no verdict.
func TestJUnitFailureMessageCarriesWhy(t *testing.T) {
	t.Parallel()
	rec := &results.Record{EvalID: "c", Verdict: results.VerdictFail, Score: 0,
		EvaluatorResults: []results.EvaluatorResult{{Name: "rubric", Type: "llm_judge", Verdict: "fail",
			Reasoning: "judge reply held no JSON verdict: Looks right to me."}}}
	tc := junitCase(0.8, rec, false)
	want := "score 0.000 below case threshold 0.800; rubric: judge reply held no JSON verdict: Looks right to me."
	if tc.Failure == nil || tc.Failure.Message != want {
		t.Errorf("failure message %+v, want %q", tc.Failure, want)
	}
}

// TestJUnitSeveralTargets checks that the testcases of one id run on two targets have
// distinct names, whether rendered from records or from a spool that learnt it after the
// first record; a run where each id has one target keeps bare ids.
func TestJUnitSeveralTargets(t *testing.T) {
	t.Parallel()
	rec := func(id, target string) *results.Record {
		return &results.Record{EvalID: id, Target: target, File: "m.yaml", Line: 3, Score: 1, Verdict: results.VerdictPass}
	}
	matrix := []*results.Record{rec("c", "b\"<x>"), rec("c", "alpha"), rec("d", "alpha")}
	tests := []struct {
		name  string
		recs  []*results.Record
		spool bool
		want  []string
	}{
		{"records", matrix, false, []string{`c [alpha]`, `c [b"<x>]`, `d [alpha]`}},
		{"spool learning", matrix, true, []string{`c [alpha]`, `c [b"<x>]`, `d [alpha]`}},
		{"one target per id", []*results.Record{rec("c", "alpha"), rec("d", "beta")}, true, []string{"c", "d"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			run := &Run{Records: tt.recs}
			if tt.spool {
				col := NewCollector(DetailsFailures, 0.8, 0)
				defer col.Close()
				for _, r := range tt.recs {
					col.Add(r)
				}
				run = &Run{Cases: col.Cases(), JUnitParts: col.Parts()}
			}
			var b bytes.Buffer
			if err := JUnit(&b, run); err != nil {
				t.Fatal(err)
			}
			var doc struct {
				Cases []struct {
					Name string `xml:"name,attr"`
				} `xml:"testsuite>testcase"`
			}
			if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
				t.Fatalf("%v\n%s", err, b.String())
			}
			var got []string
			for _, c := range doc.Cases {
				got = append(got, c.Name)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("testcase names (-want +got):\n%s", diff)
			}
		})
	}
}
