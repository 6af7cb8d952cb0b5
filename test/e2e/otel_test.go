package e2e_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agentv/action/action/actiontest"
)

// otelSpans decodes an --otel-file with the collector's OTLP JSON decoder and returns its
// span names and how many traces it holds.
func otelSpans(t *testing.T, path string) (names []string, traces int) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var u ptrace.JSONUnmarshaler
	td, err := u.UnmarshalTraces(b)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	seen := map[string]bool{}
	for i := 0; i < td.ResourceSpans().Len(); i++ {
		spans := td.ResourceSpans().At(i).ScopeSpans().At(0).Spans()
		for j := 0; j < spans.Len(); j++ {
			names = append(names, spans.At(j).Name())
			seen[spans.At(j).TraceID().String()] = true
		}
	}
	return names, len(seen)
}

// TestOtelFileKeepsSecretsOut: with content captured, what a target and a grader print goes
// into the traces, but a secret they print, in any common encoding, does not.
func TestOtelFileKeepsSecretsOut(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	requireTools(t, "python3")
	const key = unusedKey
	dir := leakSuite(t)
	for _, capture := range []bool{true, false} {
		args := []string{"eval", "s.yaml", "--otel-file", "traces/otel.json"}
		if capture {
			args = append(args, "--otel-capture-content")
		}
		res := agentv(t, dir, []string{"AGENTV_E2E_UNUSED_KEY=" + key}, args...)
		if len(res.records) != 1 || !strings.Contains(res.stdout, "OTLP traces written to traces/otel.json") {
			t.Fatalf("exit %d, %d records\nstdout:\n%s\nstderr:\n%s", res.code, len(res.records), res.stdout, res.stderr)
		}
		path := filepath.Join(dir, "traces", "otel.json")
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		if strings.Contains(text, "embedded") != capture {
			t.Errorf("capture %v: the script's output in the traces: %v", capture, !capture)
		}
		for _, form := range secretForms(key) {
			if strings.Contains(text, form) || strings.Contains(unwrap(text), form) {
				t.Errorf("capture %v: the traces hold %q", capture, form)
			}
		}
		names, traces := otelSpans(t, path)
		if traces != 1 || strings.Join(names, ",") != "agentv.eval,invoke_agent default,execute_tool call_***,agentv.grader j" {
			t.Errorf("capture %v: %d traces, spans %q", capture, traces, names)
		}
	}
}

// TestOtelFileFromReport: agentv report writes the same traces from the results file as the
// run did, and neither replaces a file that is not OTLP JSON.
func TestOtelFileFromReport(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	dir := t.TempDir()
	const suite = "evalcases:\n  - id: a\n    input: what is 2+2?\n    evaluators: [{name: four, type: contains, value: \"4\"}]\n  - id: b\n    input: and 3+3?\n    evaluators: [{name: six, type: contains, value: \"6\"}]\n"
	writeFiles(t, dir, map[string]string{
		"targets.yaml": "targets:\n  - name: default\n    provider: mock\n    response: \"It is 4\"\n",
		"s.yaml":       suite,
	})
	run := agentv(t, dir, nil, "eval", "s.yaml", "--otel-file", "run.json")
	if len(run.records) != 2 {
		t.Fatalf("exit %d\n%s\n%s", run.code, run.stdout, run.stderr)
	}
	rep := agentv(t, dir, nil, "report", "--results", filepath.Join(run.outDir, "results.jsonl"), "--out-dir", t.TempDir(), "--otel-file", "report.json")
	a, errA := os.ReadFile(filepath.Join(dir, "run.json"))
	b, errB := os.ReadFile(filepath.Join(dir, "report.json"))
	if errA != nil || errB != nil || !bytes.Equal(a, b) {
		t.Fatalf("the report's traces differ from the run's (%v, %v)\nreport stderr:\n%s", errA, errB, rep.stderr)
	}
	if _, traces := otelSpans(t, filepath.Join(dir, "run.json")); traces != 2 {
		t.Errorf("%d traces, want 2", traces)
	}

	bad := agentv(t, dir, nil, "eval", "s.yaml", "--otel-file", "s.yaml")
	if got, _ := os.ReadFile(filepath.Join(dir, "s.yaml")); string(got) != suite {
		t.Fatalf("--otel-file replaced the eval file:\n%s", got)
	}
	if !strings.Contains(bad.stderr, "s.yaml is not an OTLP JSON file: refusing to replace it") {
		t.Errorf("stderr:\n%s", bad.stderr)
	}
}

// TestActionOtelFile: the otel-file input writes the traces relative to the workspace.
func TestActionOtelFile(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	requireTools(t, "python3")
	gh := actiontest.StartGitHub(t)
	ws := actionWorkspace(t)
	res := runAction(t, ws, "event-pull_request.json", gh, map[string]string{"evals": "evals/*.yaml", "max-failures": "1",
		"comment": "off", "otel-file": "agentv-results/otel.json"})
	if res.code != 0 {
		t.Fatalf("exit %d\n%s", res.code, res.stdout)
	}
	names, traces := otelSpans(t, filepath.Join(ws, "agentv-results", "otel.json"))
	if traces != 3 || len(names) < 6 {
		t.Errorf("%d traces, spans %q", traces, names)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "agentv-results", "otel.json")); bytes.Contains(b, []byte("six times seven")) {
		t.Error("the traces hold content without otel-capture-content")
	}
}

// TestExportOtel: --export-otel sends the run's traces to a loopback OTLP/HTTP receiver with
// the headers of OTEL_EXPORTER_OTLP_HEADERS, whose values are secrets from the start: a target
// that prints its environment leaves them in no output.
func TestExportOtel(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	requireTools(t, "python3")
	const token = "lf-e2e-Token+0123456789abcdef"
	var (
		mu      sync.Mutex
		auth    []string
		spans   int
		decoded error
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var u ptrace.ProtoUnmarshaler
		td, err := u.UnmarshalTraces(body)
		mu.Lock()
		defer mu.Unlock()
		auth = append(auth, r.Header.Get("Authorization"))
		if err != nil || r.URL.Path != "/v1/traces" {
			decoded = fmt.Errorf("%s: %w", r.URL.Path, err)
			http.Error(w, "bad", http.StatusBadRequest)
			return
		}
		spans += td.SpanCount()
	}))
	defer srv.Close()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"env.py":       "import json, os, sys\njson.dump({'output_messages': [{'role': 'assistant', 'content': 'headers: ' + os.environ['OTEL_EXPORTER_OTLP_HEADERS']}]}, open(sys.argv[1], 'w'))\n",
		"targets.yaml": "targets:\n  - name: default\n    provider: cli\n    command_template: python3 env.py {OUTPUT_FILE}\n",
		"s.yaml":       "evalcases:\n  - id: env\n    input: hi\n    evaluators: [{name: any, type: contains, value: headers}]\n",
	})
	env := []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + srv.URL, "OTEL_EXPORTER_OTLP_HEADERS=Authorization=Bearer%20" + url.PathEscape(token)}
	res := agentv(t, dir, env, "eval", "s.yaml", "--export-otel", "--otel-capture-content", "--otel-file", "otel.json")
	if len(res.records) != 1 || !strings.Contains(res.stdout, "OTLP traces of 1 case sent to "+srv.URL+"/v1/traces") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	mu.Lock()
	defer mu.Unlock()
	if decoded != nil || len(auth) != 1 || auth[0] != "Bearer "+token || spans != 3 {
		t.Errorf("receiver: %v, auth %q, %d spans", decoded, auth, spans)
	}
	texts := map[string]string{"stdout": res.stdout, "stderr": res.stderr}
	for _, f := range []string{filepath.Join(res.outDir, "results.jsonl"), filepath.Join(dir, "otel.json")} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		texts[filepath.Base(f)] = string(b)
	}
	if !strings.Contains(texts["results.jsonl"], "headers: ") {
		t.Fatalf("the target's answer is not recorded:\n%s", texts["results.jsonl"])
	}
	for name, text := range texts {
		if strings.Contains(text, token) || strings.Contains(text, url.PathEscape(token)) {
			t.Errorf("%s holds the header's value", name)
		}
	}

	// No endpoint: refused before anything runs.
	bad := agentv(t, dir, nil, "eval", "s.yaml", "--export-otel")
	if bad.code != 2 || len(bad.records) != 0 || !strings.Contains(bad.stderr, "set OTEL_EXPORTER_OTLP_ENDPOINT") {
		t.Errorf("without an endpoint: exit %d, %d records\n%s", bad.code, len(bad.records), bad.stderr)
	}
}
