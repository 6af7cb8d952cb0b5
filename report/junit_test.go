package report

import (
	"bytes"
	"encoding/xml"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/agentv/action/gate"
	"github.com/agentv/action/results"
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
		Warnings:         []results.Warning{{File: s, Message: s}},
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

func FuzzJUnitWellFormed(f *testing.F) {
	f.Add("plain", "reason")
	f.Add("\x00\x1b[31mred\x1b[0m", "]]>&<\"'")
	f.Add("\xed\xa0\x80\xff", "\ufffe\uffff\u0085")
	f.Add("\x1b]8;;http://x\x07link\x1b]8;;\x07", "\r\n\r")
	f.Fuzz(func(t *testing.T, id, text string) {
		rec := &results.Record{
			EvalID: id, Dataset: text, File: id, Line: 3, Score: 0.2, Verdict: results.VerdictError,
			Error: text, Reasoning: text, Misses: []string{text}, Target: id,
			EvaluatorResults: []results.EvaluatorResult{{Name: id, Type: "code_judge", Error: text, Reasoning: text}},
		}
		data := writeJUnit(t, &Run{Records: []*results.Record{rec}})
		p := parseJUnit(t, data)
		if p.Tests != 1 || p.Errors != 1 {
			t.Fatalf("tests %d errors %d; want 1, 1", p.Tests, p.Errors)
		}
		if bytes.ContainsAny(data, "\x00\x1b") {
			t.Fatalf("output holds a raw control character:\n%q", data)
		}
	})
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
