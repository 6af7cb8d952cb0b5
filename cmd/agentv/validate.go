package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentv/action/gate"
	"github.com/agentv/action/internal/logtext"
	"github.com/agentv/action/internal/redact"
	"github.com/agentv/action/internal/safefile"
	"github.com/agentv/action/internal/textfmt"
	"github.com/agentv/action/migrate"
	"github.com/agentv/action/providers"
	"github.com/agentv/action/suite"
	"github.com/agentv/action/targets"
)

// validateCmd checks eval files and their targets files and prints every problem.
func (c *Command) validateCmd(args []string) int {
	fs := flag.NewFlagSet("agentv validate", flag.ContinueOnError)
	targetsPath := fs.String("targets", "", "targets file or directory (default: discovered per eval file)")
	paths, code, ok := parseCommand(fs, "agentv validate [flags] <eval files, directories or globs...>", args, c.Stdout, c.Stderr)
	if !ok {
		return code
	}
	if len(paths) == 0 {
		fmt.Fprintln(c.Stderr, "agentv validate: no eval paths given")
		return gate.ExitInvalid
	}
	found, diags := suite.Expand(paths, c.Cwd)
	red := &redact.Redactor{}
	checked := map[string]bool{}
	cases := 0
	// A targets file among the paths (`agentv validate evals .agentv/targets.yaml`, as
	// AgentV 4.x users write) is validated as one, not read as an eval file.
	var files, targetsFiles []string
	for _, f := range found {
		if isTargetsFile(f) {
			targetsFiles = append(targetsFiles, f)
		} else {
			files = append(files, f)
		}
	}
	checkTargets := func(tpath, dir, root string) {
		if checked[tpath] {
			return
		}
		checked[tpath] = true
		if c.Getenv("GITHUB_ACTIONS") == "true" {
			dir = "" // .env files are for local runs
		}
		tf := targets.LoadWithEnv(tpath, c.Environ, dir, root, red)
		diags = append(diags, tf.Diagnostics...)
		for _, t := range tf.Targets {
			if _, err := tf.Find(t.Name); err != nil || t.Kind == "" {
				continue // the loader has reported what makes this target unusable
			}
			_, warns, err := providers.New(t, providers.Options{})
			diags = append(diags, warns...)
			for _, d := range targetDiagnostics(err, tf.Path, red) {
				if !slices.ContainsFunc(diags, func(o suite.Diagnostic) bool { return sameProblem(o, d) }) {
					diags = append(diags, d)
				}
			}
		}
	}
	for _, f := range targetsFiles {
		dir := filepath.Dir(f)
		checkTargets(f, dir, suite.FindRepoRoot(dir, c.Getenv("GITHUB_WORKSPACE"), c.Cwd))
	}
	var read []string // each eval file with the dialect it was read in, and how to migrate it
	for _, f := range files {
		s := suite.Load(f, loadOptions(c.Cwd, c.Getenv("GITHUB_WORKSPACE"), c.Environ, c.Getenv("GITHUB_ACTIONS") == "true", red))
		diags = append(diags, s.Diagnostics...)
		cases += len(s.Cases)
		read = append(read, fmt.Sprintf("%s: %s, %d %s", s.Path, dialectOf(s), len(s.Cases), textfmt.Plural(len(s.Cases), "case", "cases")))
		if s.Format == "yaml" { // migrate rewrites YAML files only
			if h := migrate.Hint(s.Path, s.Dialect); h != "" {
				read = append(read, h)
			}
		}
		if len(s.TargetDefs) > 0 { // targets the file defines itself
			diags = append(diags, targets.Inline(s, nil, red).Diagnostics...)
		}
		if s.OwnTargets { // a promptfoo config: its providers are its only targets
			continue
		}
		tpath, err := targets.FindFile(*targetsPath, s.Dir, s.RepoRoot, c.Cwd)
		if err != nil {
			diags = append(diags, suite.Diagnostic{File: s.Path, Severity: suite.SeverityError, Message: err.Error()})
			continue
		}
		checkTargets(tpath, s.Dir, s.RepoRoot)
	}
	printDiagnostics(c.Stdout, diags, c.color(c.Stdout))
	for _, r := range read {
		fmt.Fprintln(c.Stdout, logtext.Line(r)) // a path may hold anything, workflow commands too
	}
	errs := 0
	for _, d := range diags {
		if d.IsError() {
			errs++
		}
	}
	tfs := ""
	if n := len(targetsFiles); n > 0 {
		tfs = fmt.Sprintf(", %d targets %s", n, textfmt.Plural(n, "file", "files"))
	}
	warns := len(diags) - errs
	fmt.Fprintf(c.Stdout, "%d eval %s%s, %d %s, %d %s, %d %s\n", len(files), textfmt.Plural(len(files), "file", "files"), tfs,
		cases, textfmt.Plural(cases, "case", "cases"), errs, textfmt.Plural(errs, "error", "errors"),
		warns, textfmt.Plural(warns, "warning", "warnings"))
	if errs > 0 {
		return gate.ExitInvalid
	}
	return 0
}

// targetDiagnostics turns the error of building a target's provider into diagnostics at the
// setting's position: an unset variable is a warning here (the run may have it), anything
// else an error.
func targetDiagnostics(err error, file string, red *redact.Redactor) []suite.Diagnostic {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var ds []suite.Diagnostic
		for _, e := range j.Unwrap() {
			ds = append(ds, targetDiagnostics(e, file, red)...)
		}
		return ds
	}
	var uv *targets.UnsetVarError
	var se *targets.SettingError
	switch {
	case errors.As(err, &uv):
		return []suite.Diagnostic{{File: uv.Pos.File, Line: uv.Pos.Line, Col: uv.Pos.Col,
			Severity: suite.SeverityWarning, Kind: "unset-variable",
			Message: fmt.Sprintf("target %q: %s: environment variable %s is not set here", uv.Target, uv.Field, uv.Var)}}
	case errors.As(err, &se) && se.Pos.File != "":
		return []suite.Diagnostic{{File: se.Pos.File, Line: se.Pos.Line, Col: se.Pos.Col, Severity: suite.SeverityError,
			Message: red.String(fmt.Sprintf("target %q: %s: %s", se.Target, se.Field, se.Msg))}}
	}
	return []suite.Diagnostic{{File: file, Severity: suite.SeverityError, Message: red.String(err.Error())}}
}

// sameProblem reports whether two diagnostics say the same thing at the same place, whatever
// their kinds.
func sameProblem(a, b suite.Diagnostic) bool {
	return a.File == b.File && a.Line == b.Line && a.Col == b.Col && a.Severity == b.Severity && a.Message == b.Message
}

// isTargetsFile reports whether a YAML file given to validate is a targets file: a top-level
// `targets` key and no case list (tests, evalcases, cases, eval_cases). Only the lines that
// start a top-level key are looked at, so a large eval file is not parsed twice (the loader
// parses it next). A file with no top-level key found this way (flow style, unreadable) is
// one when it is named targets.yaml or targets.yml, so the targets loader reports its problem.
func isTargetsFile(path string) bool {
	ext := strings.ToLower(filepath.Ext(path))
	if ext != ".yaml" && ext != ".yml" {
		return false
	}
	named := strings.EqualFold(strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)), "targets")
	f, err := safefile.Open(path)
	if err != nil {
		return named
	}
	defer f.Close()
	sc := bufio.NewScanner(io.LimitReader(f, 4<<20))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	keys, targetsKey := 0, false
	for sc.Scan() {
		key, ok := topLevelKey(sc.Text())
		if !ok {
			continue
		}
		keys++
		switch key {
		case "targets":
			targetsKey = true
		case "tests", "evalcases", "cases", "eval_cases":
			return false
		}
	}
	if keys == 0 {
		return named
	}
	return targetsKey
}

// topLevelKey returns the key a line starts at column 0 (`key:` or `"key":`), if any.
func topLevelKey(line string) (string, bool) {
	if line == "" || strings.ContainsRune(" \t#-[{%&*!|>?", rune(line[0])) {
		return "", false
	}
	k, _, found := strings.Cut(line, ":")
	if !found {
		return "", false
	}
	k = strings.TrimSpace(k)
	if len(k) >= 2 && (k[0] == '"' || k[0] == '\'') && k[len(k)-1] == k[0] {
		k = k[1 : len(k)-1]
	}
	return k, k != ""
}

// dialectOf names the format a file was read as, for validate's list of files.
func dialectOf(s *suite.Suite) string {
	switch {
	case s.Format == "json":
		return "Agent Skills evals.json"
	case suite.DialectName(s.Dialect) != "":
		return suite.DialectName(s.Dialect)
	}
	return "not read (see the errors above)"
}
