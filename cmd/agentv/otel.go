package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"

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

// otelOutputs is the --otel-file output when path is set (relative to cwd), else none.
func otelOutputs(path string, capture bool, cwd string, stdout io.Writer, red *redact.Redactor) []output {
	if path == "" {
		return nil
	}
	return []output{otelFile{path: absIn(cwd, path), cwd: cwd, capture: capture, stdout: stdout, red: red}}
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

// otelFlags binds --otel-file and --otel-capture-content, as the settings table says them, to
// st: agentv report writes the traces of the results it reads.
func otelFlags(fs *flag.FlagSet, st *config.Settings) {
	for _, s := range st.Table() {
		switch p := s.Ptr.(type) {
		case *string:
			if p == &st.OtelFile {
				fs.StringVar(p, s.Flag, "", s.Help)
			}
		case *bool:
			if p == &st.OtelCaptureContent {
				fs.BoolVar(p, s.Flag, false, s.Help)
			}
		}
	}
}
