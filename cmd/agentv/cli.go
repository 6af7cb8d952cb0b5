// Package cli is the agentv command: `agentv eval`, `agentv validate`, `agentv report`,
// and, with no subcommand under GitHub Actions, the Action itself.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"golang.org/x/term"

	"github.com/agentv/action/config"
	"github.com/agentv/action/gate"
	"github.com/agentv/action/internal/logtext"
	"github.com/agentv/action/internal/redact"
)

// Version is set at build time with -ldflags "-X main.Version=v1.2.3".
var Version = ""

// version returns the build version, falling back to the module version.
func version() string {
	if Version != "" {
		return Version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// Command is one invocation of the program with its streams and environment injected.
type Command struct {
	Stdout, Stderr io.Writer
	Environ        []string
	Getenv         func(string) string
	Cwd            string
}

// New returns a Command using the process's streams and environment.
func New() *Command {
	cwd, _ := os.Getwd()
	return &Command{Stdout: os.Stdout, Stderr: os.Stderr, Environ: os.Environ(), Getenv: os.Getenv, Cwd: cwd}
}

const usage = `agentv evaluates AI agents: it runs eval suites against targets, judges the answers and reports.

Usage:
  agentv eval [flags] <eval files, directories or globs...>
  agentv validate <eval files, directories or globs...> [--targets FILE]
  agentv report --results FILE [flags]
  agentv migrate [--write | -o OUT] FILE
  agentv --version

Run 'agentv <command> -h' for a command's flags.
Exit codes: 0 pass, 1 fail (scores below the gate), 2 invalid (configuration or input problem),
3 error (cases that could not be evaluated).
`

// Main runs the program and returns its exit code.
func (c *Command) Main(ctx context.Context, args []string) int {
	if len(args) == 0 {
		if c.Getenv("GITHUB_ACTIONS") == "true" {
			return c.runAction(ctx)
		}
		fmt.Fprint(c.Stderr, usage)
		return gate.ExitInvalid
	}
	switch args[0] {
	case "eval", "run":
		return c.evalCmd(ctx, args[1:])
	case "validate":
		return c.validateCmd(args[1:])
	case "report":
		return c.reportCmd(args[1:])
	case "migrate":
		return c.migrateCmd(args[1:])
	case "--version", "-version", "version", "-v":
		fmt.Fprintf(c.Stdout, "agentv %s\n", version())
		return 0
	case "-h", "--help", "help":
		fmt.Fprint(c.Stdout, usage)
		return 0
	}
	// One line, not the whole usage: the mistake is easier to see.
	if strings.HasPrefix(args[0], "-") {
		fmt.Fprintf(c.Stderr, "agentv: unknown flag %s: flags go after a command (agentv eval [flags] <paths>); 'agentv -h' lists the commands\n", logtext.Line(args[0]))
		return gate.ExitInvalid
	}
	msg := fmt.Sprintf("agentv: unknown command %q", args[0])
	if near := closestWord(args[0], []string{"eval", "validate", "report", "migrate"}); near != "" {
		msg += " (did you mean " + near + "?)"
	}
	fmt.Fprintln(c.Stderr, logtext.Line(msg)+"; 'agentv -h' lists the commands")
	return gate.ExitInvalid
}

// evalFlags binds the eval flags to a config.
func evalFlags(fs *flag.FlagSet, cfg *EvalConfig, comment *bool) {
	settingFlags(fs, &cfg.Settings)
	fs.Var(targetFlag(&cfg.Target, &cfg.Targets), "target", "run every case against this target (default: the case's or suite's target, else 'default'); repeated, every case runs on each (AgentV 4.x's matrix)")
	fs.StringVar(&cfg.Out, "out", filepath.Join(config.DefaultResultsDir, "results.jsonl"), "results JSONL file; junit.xml, summary.md and comment.md go beside it")
	fs.Var(trialsFlag(&cfg.Trials.Count), "trials", "run each case this many times, overriding the eval files' execution.trials count (1 runs each case once)")
	fs.Var(millisFlag(&cfg.DryRunDelay), "dry-run-delay", "milliseconds each dry-run answer takes")
	fs.Var(millisFlag(&cfg.DryRunMin), "dry-run-delay-min", "minimum random dry-run delay in milliseconds")
	fs.Var(millisFlag(&cfg.DryRunMax), "dry-run-delay-max", "maximum random dry-run delay in milliseconds")
	baselineFlags(fs, &cfg.BaselinePath, &cfg.Gate)
	if comment != nil {
		fs.BoolVar(comment, "comment", false, "under GitHub Actions, also post or update the sticky PR comment")
	}
}

func (c *Command) evalCmd(ctx context.Context, args []string) int {
	cfg := EvalConfig{Settings: config.Defaults()}
	var comment bool
	fs := flag.NewFlagSet("agentv eval", flag.ContinueOnError)
	evalFlags(fs, &cfg, &comment)
	var v4 v4Flags
	bindV4Flags(fs, &v4, &cfg)
	paths, code, ok := parseCommand(fs, "agentv eval [flags] <eval files, directories or globs...>", args, c.Stdout, c.Stderr)
	if !ok {
		return code
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if err := v4.apply(&cfg, set, c.Cwd); err != nil {
		fmt.Fprintf(c.Stderr, "agentv eval: %s\n", logtext.Line(err.Error()))
		return gate.ExitInvalid
	}
	// AgentV 4.x spells the command `agentv eval run <paths>`: "run" is a path only when
	// there is one by that name.
	if len(paths) > 0 && paths[0] == "run" {
		if _, err := os.Stat(filepath.Join(c.Cwd, "run")); err != nil {
			paths = paths[1:]
		}
	}
	if len(paths) == 0 {
		fmt.Fprintln(c.Stderr, "agentv eval: no eval paths given (files, directories or globs)")
		return gate.ExitInvalid
	}
	cfg.Paths = paths
	cfg.Cwd = c.Cwd
	cfg.Workspace = c.Getenv("GITHUB_WORKSPACE")
	cfg.Environ = c.Environ
	cfg.Out = absIn(c.Cwd, cfg.Out)
	underActions := c.Getenv("GITHUB_ACTIONS") == "true"
	cfg.NoDotenv = underActions
	return c.runEval(ctx, cfg, &redact.Redactor{}, underActions, comment)
}

// color reports whether output to w gets ANSI colors: only on a terminal, and not when
// NO_COLOR is set to anything but "" (no-color.org).
func (c *Command) color(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd())) && c.Getenv("NO_COLOR") == ""
}
