package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/agentv/action/suite"
	"github.com/agentv/action/targets"
)

// reportFiles are the reports written beside the results file (or into the report's
// directory).
var reportFiles = []string{"junit.xml", "summary.md", "comment.md"}

// outputGuard knows the files a run will write and refuses any input that is one of them,
// compared as files (device and inode), so a symbolic link or another spelling of the same
// path is caught too: `--out cases.jsonl` must not replace the suite it reads.
type outputGuard struct {
	outs []output
	cwd  string // relative inputs are relative to it
	// outName is what the refused command lets the user change to write elsewhere: a flag
	// of the CLI command or an input of the Action.
	outName string

	mu      sync.Mutex
	checked map[string]error // input path → the collision found, nil if none
	hit     bool             // an input was found to be an output
}

type output struct {
	path string
	fi   os.FileInfo // nil: it does not exist yet, so no input can be it
}

// newOutputGuard returns a guard of the results file (if any) and the reports in dir; both
// paths are absolute. outName names the flag or input that moves them, for the refusal.
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
		g.outs = append(g.outs, output{path: p, fi: fi})
	}
	return g
}

// check returns an error when the input at path (what names it, for the message) is one of
// the outputs. An input that cannot be read is not an output: reading it reports that.
func (g *outputGuard) check(path, what string) error {
	if g == nil || path == "" {
		return nil
	}
	abs := path
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(g.cwd, abs)
	}
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

// checkInputs checks the inputs a run reads before its first case (eval files, JSONL
// sidecars, targets files, .env and .agentv config files) against its outputs; each
// collision is a problem.
func (e *Engine) checkInputs(files []string, g *outputGuard) []string {
	cfg := &e.Cfg
	var problems []string
	add := func(path, what string) {
		if err := g.check(path, what); err != nil {
			problems = append(problems, err.Error())
		}
	}
	if cfg.TargetsPath != "" {
		if p, err := targets.ResolveFlag(cfg.TargetsPath); err == nil {
			add(p, "targets file")
		}
	}
	dirs := map[string]bool{}
	for _, f := range files {
		if !filepath.IsAbs(f) {
			f = filepath.Join(cfg.Cwd, f)
		}
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
			if p, err := targets.FindFile(dir, root, cfg.Cwd); err == nil {
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
	"comment.md": func(h string) bool { return strings.HasPrefix(h, "<!-- agentv-action:v") },
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
