package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/agentv/action/action"
	"github.com/agentv/action/config"
	"github.com/agentv/action/internal/logtext"
	"github.com/agentv/action/internal/redact"
	"github.com/agentv/action/otlp"
)

// otelFile writes the run as OTLP JSON traces (--otel-file, the otel-file input), read back
// from the results file once it is committed: its records are already redacted and capped.
type otelFile struct {
	path, cwd string // path is absolute
	capture   bool
	stdout    io.Writer
	red       *redact.Redactor
}

// otelOutputs are the outputs of the OpenTelemetry settings: the --otel-file output when a
// file is set (relative to cwd), the --export-otel output when asked. The exporter's header
// values and endpoint credentials are secrets from here on, so call it before the run; an
// error (no endpoint) is the user's to fix before anything runs.
func otelOutputs(st *config.Settings, cwd string, getenv func(string) string, stdout io.Writer, red *redact.Redactor) ([]output, error) {
	var outs []output
	if st.OtelFile != "" {
		outs = append(outs, otelFile{path: absIn(cwd, st.OtelFile), cwd: cwd, capture: st.OtelCaptureContent, stdout: stdout, red: red})
	}
	if st.ExportOtel {
		endpoint, headers, err := otlp.EndpointFromEnv(getenv)
		if err != nil {
			return nil, fmt.Errorf("--export-otel (export-otel input): %w", err)
		}
		for _, v := range headers {
			red.Add(v)
			// And the credential of "Bearer <token>", which a tool may print alone.
			if _, cred, ok := strings.Cut(strings.TrimSpace(v), " "); ok && len(strings.TrimSpace(cred)) >= 8 {
				red.Add(strings.TrimSpace(cred))
			}
		}
		if u, err := url.Parse(endpoint); err == nil && u.User != nil {
			if pw, ok := u.User.Password(); ok {
				red.Add(pw)
			}
		}
		outs = append(outs, otelExport{sender: otlp.Sender{URL: endpoint, Headers: headers}, capture: st.OtelCaptureContent, stdout: stdout, red: red})
	}
	return outs, nil
}

func (o otelFile) deliver(_ context.Context, f *finished) {
	if f.out.ResultsPath == "" {
		f.say(action.LevelWarning, "agentv", "no OTLP traces written: the run wrote no results file")
		return
	}
	if err := notOurs(o.path); err != nil {
		f.say(action.LevelError, "agentv", err.Error())
		return
	}
	if err := otlp.WriteFile(o.path, []string{f.out.ResultsPath}, otlp.Options{CaptureContent: o.capture, Version: version()}); err != nil {
		f.say(action.LevelError, "agentv", "could not write the OTLP traces: "+o.red.String(err.Error()))
		return
	}
	fmt.Fprintf(o.stdout, "OTLP traces written to %s\n", logtext.Line(relTo(o.cwd, o.path)))
}

// notOurs refuses to replace a file that is not OTLP JSON (an eval file, the results file, a
// user's own data given as --otel-file by mistake); an empty or missing file is fine.
func notOurs(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return nil // none there (or unreadable: writing it fails and says so)
	}
	defer f.Close()
	head := make([]byte, 256)
	n, _ := io.ReadFull(f, head)
	h := bytes.Join(bytes.Fields(head[:n]), nil)
	if len(h) == 0 || bytes.HasPrefix(h, []byte(`{"resourceSpans"`)) {
		return nil
	}
	return fmt.Errorf("%s is not an OTLP JSON file: refusing to replace it with the OTLP traces; choose another --otel-file (otel-file input)", path)
}

// otelFlags binds --otel-file, --otel-capture-content and --export-otel, as the settings table
// says them, to st: agentv report writes or sends the traces of the results it reads.
func otelFlags(fs *flag.FlagSet, st *config.Settings) {
	for _, s := range st.Table() {
		switch p := s.Ptr.(type) {
		case *string:
			if p == &st.OtelFile {
				fs.StringVar(p, s.Flag, "", s.Help)
			}
		case *bool:
			if p == &st.OtelCaptureContent || p == &st.ExportOtel {
				fs.BoolVar(p, s.Flag, false, s.Help)
			}
		}
	}
}

// otelExport sends the run's traces to an OTLP/HTTP endpoint (--export-otel), from the
// results file once it is committed.
type otelExport struct {
	sender  otlp.Sender
	capture bool
	stdout  io.Writer
	red     *redact.Redactor
}

// exportTime bounds the whole export: a receiver that hangs must not hold the job.
const exportTime = 5 * time.Minute

func (o otelExport) deliver(ctx context.Context, f *finished) {
	if f.out.ResultsPath == "" {
		f.say(action.LevelWarning, "agentv", "no OTLP traces sent: the run wrote no results file")
		return
	}
	// An interrupted run still sends what it recorded, within exportTime.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), exportTime)
	defer cancel()
	n, err := o.sender.Send(ctx, []string{f.out.ResultsPath}, otlp.Options{CaptureContent: o.capture, Version: version()})
	if err != nil {
		f.say(action.LevelError, "agentv", "could not send the OTLP traces: "+o.red.String(err.Error()))
		return
	}
	fmt.Fprintf(o.stdout, "OTLP traces of %d %s sent to %s\n", n, map[bool]string{true: "case", false: "cases"}[n == 1], logtext.Line(o.red.String(otlpURL(o.sender.URL))))
}

// otlpURL is an endpoint as messages show it: without user information or query.
func otlpURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "the endpoint"
	}
	u.User, u.RawQuery, u.Fragment = nil, "", ""
	return u.String()
}
