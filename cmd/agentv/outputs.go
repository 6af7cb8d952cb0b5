package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/agentv/action/action"
	"github.com/agentv/action/internal/atomicfile"
	"github.com/agentv/action/internal/logtext"
	"github.com/agentv/action/internal/redact"
	"github.com/agentv/action/report"
	"github.com/agentv/action/report/htmlreport"
	"github.com/agentv/action/results"
	"github.com/agentv/action/suite"
	"github.com/agentv/action/targets"
)

// An output is one place a finished run goes: the report files, the console, AgentV 4.x's run
// layout, and under GitHub Actions the job summary, annotations, the PR comment and the step
// outputs. Each command lists the outputs of its mode in the order their side effects must
// happen and hands each the same finished run; a new output is one more implementation.
type output interface {
	deliver(ctx context.Context, f *finished)
}

// finished is what every output is fed: a decided run and the outcome that made it.
type finished struct {
	run *report.Run
	out *Outcome
	dir string // the folder of junit.xml, summary.md and comment.md
	// say tells the user what happened to an output: a line on stderr, or a workflow
	// command under GitHub Actions.
	say        func(level action.Level, title, msg string)
	commentURL string // set once the PR comment is posted, for the step outputs
}

// deliver hands f to each output in turn.
func deliver(ctx context.Context, f *finished, outs ...output) {
	for _, o := range outs {
		o.deliver(ctx, f)
	}
}

// localOutputs are the outputs outside GitHub Actions: the report files, then the console,
// ending with the results file the command wrote (written, if any).
func (c *Command) localOutputs(written string) []output {
	return []output{reportWriter{marker: localMarker},
		console{stdout: c.Stdout, stderr: c.Stderr, color: c.color(c.Stdout), colorErr: c.color(c.Stderr), cwd: c.Cwd, written: written}}
}

// sayLocal is say outside GitHub Actions: one line on stderr.
func (c *Command) sayLocal(_ action.Level, _, msg string) {
	fmt.Fprintf(c.Stderr, "agentv: %s\n", logtext.Line(msg))
}

// keptMessage says why a run wrote no files.
const keptMessage = "no results or reports written (invalid run that ran nothing, or an output that is also an input): the previous files are left as they were"

// reportWriter writes the reports (comment.md headed by marker) unless the previous files stay.
type reportWriter struct{ marker string }

func (o reportWriter) deliver(_ context.Context, f *finished) {
	if !f.out.keepOutputs(f.run) {
		f.say(action.LevelNotice, "", keptMessage)
		return
	}
	if err := writeReports(f.dir, f.run, o.marker); err != nil {
		f.say(action.LevelError, "", err.Error())
	}
	if err := writeHTML(f); err != nil {
		f.say(action.LevelError, "", err.Error())
	}
}

// writeHTML writes report.html into f.dir from the run's results file (read again, one record
// at a time), or from its records when it has no file.
func writeHTML(f *finished) error {
	recs := htmlreport.FromSlice(f.run.Records)
	if f.out.ResultsPath != "" {
		recs = htmlreport.FromFile(f.out.ResultsPath)
	}
	if err := atomicfile.WriteFile(filepath.Join(f.dir, htmlreport.FileName), func(w io.Writer) error {
		return htmlreport.Write(w, f.run, recs, htmlHistory(f.run))
	}); err != nil {
		return fmt.Errorf("could not write %s: %w", htmlreport.FileName, err)
	}
	return nil
}

// htmlHistory is the run's history (the history input, or report --history) as report.html
// draws it: each case's points over the earlier runs, nil without a history.
func htmlHistory(run *report.Run) htmlreport.History {
	pts := report.HistoryPoints(run)
	if len(pts) == 0 {
		return nil
	}
	h := make(htmlreport.History, len(pts))
	for k, ps := range pts {
		out := make([]htmlreport.Point, len(ps))
		for i, p := range ps {
			out[i] = htmlreport.Point{Run: p.Run, URL: p.URL, Score: p.Score, Status: p.Status}
		}
		h[htmlreport.Key(k.Dataset, k.ID, k.Target)] = out
	}
	return h
}

// writeReports writes junit.xml, summary.md and comment.md into dir, each in place once complete.
func writeReports(dir string, run *report.Run, marker string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("could not create %s: %w", dir, err)
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, "junit.xml"), func(w io.Writer) error { return report.JUnit(w, run) }); err != nil {
		return fmt.Errorf("could not write JUnit report: %w", err)
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, "summary.md"), func(w io.Writer) error {
		_, err := io.WriteString(w, report.Summary(run))
		return err
	}); err != nil {
		return fmt.Errorf("could not write summary: %w", err)
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, "comment.md"), func(w io.Writer) error {
		_, err := io.WriteString(w, report.Comment(run, marker))
		return err
	}); err != nil {
		return fmt.Errorf("could not write comment: %w", err)
	}
	return nil
}

// console prints the diagnostics, notices, the console report and the results file written.
type console struct {
	stdout, stderr  io.Writer
	color, colorErr bool
	cwd, written    string
}

func (o console) deliver(_ context.Context, f *finished) {
	printDiagnostics(o.stderr, f.out.Diagnostics, o.colorErr)
	for _, n := range f.out.Notices {
		f.say(action.LevelNotice, "agentv", n)
	}
	report.Console(o.stdout, f.run, o.color)
	if o.written != "" {
		fmt.Fprintf(o.stdout, "Results written to %s\n", logtext.Line(relTo(o.cwd, o.written)))
	}
}

// runDir writes AgentV 4.x's run layout (-o) from the results file just committed; it
// complains on stderr in every mode, as the run's own progress does.
type runDir struct {
	dir, cwd string
	opts     results.RunDirOptions
	stderr   io.Writer
	red      *redact.Redactor
}

func (o runDir) deliver(_ context.Context, f *finished) {
	if f.out.ResultsPath == "" {
		return
	}
	if err := results.WriteRunDir(f.out.ResultsPath, o.dir, o.opts); err != nil {
		fmt.Fprintf(o.stderr, "agentv: the AgentV 4.x run layout in %s: %s\n", logtext.Line(relTo(o.cwd, o.dir)), logtext.Line(o.red.String(err.Error())))
	}
}

// reportFiles are the reports written beside the results file.
var reportFiles = []string{"junit.xml", "summary.md", "comment.md", htmlreport.FileName}

// outputGuard knows the files a run will write and refuses any input that is one of them,
// compared as files (device and inode), so a symbolic link or another spelling of the same
// path is caught too: `--out cases.jsonl` must not replace the suite it reads.
type outputGuard struct {
	outs []outFile
	cwd  string // relative inputs are relative to it
	// outName is what the refused command lets the user change to write elsewhere: a flag
	// of the CLI command or an input of the Action.
	outName string

	mu      sync.Mutex
	checked map[string]error // input path → the collision found, nil if none
	hit     bool             // an input was found to be an output
}

type outFile struct {
	path string
	fi   os.FileInfo // nil: it does not exist yet, so no input can be it
}

// newOutputGuard guards the results file (if any) and the reports in dir (absolute paths).
func newOutputGuard(resultsPath, dir, cwd, outName string) *outputGuard {
	g := &outputGuard{checked: map[string]error{}, cwd: cwd, outName: outName}
	paths := []string{}
	if resultsPath != "" {
		paths = append(paths, resultsPath)
	}
	for _, name := range reportFiles {
		paths = append(paths, filepath.Join(dir, name))
	}
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			fi = nil
		}
		g.outs = append(g.outs, outFile{path: p, fi: fi})
	}
	return g
}

// check refuses the input at path (what names it) when it is an output. An input that cannot
// be read is not one: reading it reports that.
func (g *outputGuard) check(path, what string) error {
	if g == nil || path == "" {
		return nil
	}
	abs := absIn(g.cwd, path)
	g.mu.Lock()
	defer g.mu.Unlock()
	if err, ok := g.checked[abs]; ok {
		return err
	}
	var found error
	if fi, err := os.Stat(abs); err == nil && fi.Mode().IsRegular() {
		for _, o := range g.outs {
			if o.fi != nil && os.SameFile(fi, o.fi) {
				found = fmt.Errorf("%s is both an output and an input of this run (%s %s): refusing to overwrite it; write the results elsewhere (%s)",
					relTo(g.cwd, o.path), what, relTo(g.cwd, abs), g.outName)
				g.hit = true
				break
			}
		}
	}
	g.checked[abs] = found
	return found
}

// collided reports whether any input was found to be an output.
func (g *outputGuard) collided() bool {
	if g == nil {
		return false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.hit
}

// checkInputs checks what a run reads before its first case (eval files, JSONL sidecars,
// targets, .env and .agentv config files) against its outputs; each collision is a problem.
func (e *Engine) checkInputs(files []string, g *outputGuard) []string {
	cfg := &e.Cfg
	var problems []string
	add := func(path, what string) {
		if err := g.check(path, what); err != nil {
			problems = append(problems, err.Error())
		}
	}
	if cfg.TargetsPath != "" {
		if p, err := targets.FindFile(cfg.TargetsPath, "", "", ""); err == nil {
			add(p, "targets file")
		}
	}
	dirs := map[string]bool{}
	for _, f := range files {
		f = absIn(cfg.Cwd, f)
		add(f, "eval file")
		if ext := filepath.Ext(f); strings.EqualFold(ext, ".jsonl") {
			stem := strings.TrimSuffix(f, ext)
			add(stem+".yaml", "JSONL sidecar")
			add(stem+".yml", "JSONL sidecar")
		}
		dir := filepath.Dir(f)
		if dirs[dir] {
			continue
		}
		dirs[dir] = true
		root := suite.FindRepoRoot(dir, cfg.Workspace, cfg.Cwd)
		if cfg.TargetsPath == "" {
			if p, err := targets.FindFile("", dir, root, cfg.Cwd); err == nil {
				add(p, "targets file")
			}
		}
		add(filepath.Join(dir, ".agentv.yaml"), "config file")
		for _, env := range targets.EnvFiles(dir, root) {
			add(env, ".env file")
			add(filepath.Join(filepath.Dir(env), ".agentv", "config.yaml"), "config file")
		}
	}
	return problems
}

// ownHead tells, from the start of a file an agentv command writes, that agentv wrote it.
var ownHead = map[string]func(head string) bool{
	"junit.xml": func(h string) bool { return strings.Contains(h, `<testsuites name="agentv"`) },
	"summary.md": func(h string) bool {
		first, _, _ := strings.Cut(h, "\n")
		return strings.HasPrefix(first, "## ") && strings.Contains(first, " AgentV evals: ")
	},
	"comment.md":        func(h string) bool { return strings.HasPrefix(h, "<!-- agentv-action:v") },
	htmlreport.FileName: func(h string) bool { return strings.Contains(h, htmlreport.Generator) },
	// A run's start record, else (an older agentv's file) a case record as agentv orders it.
	"results.jsonl": func(h string) bool {
		first, _, _ := strings.Cut(h, "\n")
		return strings.HasPrefix(first, `{"record":"run_start"`) || strings.HasPrefix(first, `{"timestamp":`) && strings.Contains(first, `"eval_id":`)
	},
}

// foreignOutputs returns the files among names in dir that exist but were not written by
// agentv (a user's own summary.md): a folder agentv chose itself must not cost them. A file
// that cannot be read is foreign too.
func foreignOutputs(dir string, names []string) []string {
	var out []string
	for _, name := range names {
		p := filepath.Join(dir, name)
		f, err := os.Open(p)
		if err != nil {
			continue // none there (or unreadable: writing it fails and says so)
		}
		head := make([]byte, 512)
		n, _ := f.Read(head)
		f.Close()
		if own := ownHead[name]; own == nil || !own(string(head[:n])) {
			out = append(out, p)
		}
	}
	return out
}
