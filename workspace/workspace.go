// Package workspace makes the directory the tests of an AgentV 4.x suite run in: a temporary
// copy of the suite's template, set up by its before_all command, removed when the run ends.
package workspace

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/agentv/action/internal/proc"
	"github.com/agentv/action/suite"
)

// Hook timeouts without the hook's own timeout_ms, as in AgentV 4.42.4: a hook whose failure
// stops the test or suite (before_all, before_each) gets a minute, one whose failure is only
// a warning (after_each, after_all) half that.
const (
	DefaultHookTimeout     = 60 * time.Second
	DefaultLateHookTimeout = 30 * time.Second
	// DefaultSetupTimeout bounds a 5.x environment's setup without timeout_ms, which
	// 5.3.1-next.1 waits for without a limit (it may install dependencies).
	DefaultSetupTimeout = 10 * time.Minute
)

// The test ids the suite-wide hooks are told, as AgentV 4.x tells them.
const (
	beforeAllID = "__before_all__"
	afterAllID  = "__after_all__"
)

// HookRun is what a hook is told about the test it runs for.
type HookRun struct {
	TestID    string
	CaseInput *string // nil: null on stdin, "" in arguments
	// CaseMetadata is the test's metadata, told to extension hooks only (4.x hooks get null).
	CaseMetadata json.RawMessage
}

// Options are the run's settings a workspace needs.
type Options struct {
	RunID string   // the run's id, told to hooks as eval_run_id
	Env   []string // environment of hook processes (the GitHub token removed); nil: os.Environ()
	Root  string   // where workspaces are made; "" is the system's temporary directory
}

// env is the environment of hook processes before proc.ChildEnv filters it.
func (o Options) env() []string {
	if o.Env == nil {
		return os.Environ()
	}
	return o.Env
}

// Create makes the workspace of ws: a temporary copy of the template (without .git) where
// the before_all hook then runs, in evalDir by default. On failure nothing is left behind.
func Create(ctx context.Context, ws *suite.Workspace, evalDir string, opts Options) (string, error) {
	if ws.Workdir != "" {
		return prepareWorkdir(ctx, ws, evalDir, opts)
	}
	dir, err := os.MkdirTemp(opts.Root, "agentv-workspace-")
	if err != nil {
		return "", fmt.Errorf("creating the workspace: %w", err)
	}
	if ws.Template != "" {
		if err := copyTree(ws.Template, dir); err != nil {
			_ = os.RemoveAll(dir)
			return "", fmt.Errorf("copying the workspace template %s: %w", ws.Template, err)
		}
	}
	if err := beforeAll(ctx, ws, dir, evalDir, opts); err != nil {
		_ = os.RemoveAll(dir)
		return "", err
	}
	_ = initBaseline(ctx, dir, opts.Env) // best effort: without it graders see no file changes
	return dir, nil
}

// CreateCase makes the directory of one test of a workspace whose tests each run in their own
// (suite.Workspace.PerCase): empty, its file changes counted from empty, and the hooks run in
// it seeing the beforeAll result of the shared workspace. Remove deletes it.
func CreateCase(ctx context.Context, shared string, opts Options) (string, error) {
	dir, err := os.MkdirTemp(opts.Root, "agentv-workspace-")
	if err != nil {
		return "", fmt.Errorf("creating the test's workspace: %w", err)
	}
	if st, ok := states.Load(shared); ok {
		states.Store(dir, st)
	}
	_ = initBaseline(ctx, dir, opts.Env)
	return dir, nil
}

// beforeAll runs the before_all hook (5.x: the beforeAll extensions) of ws in dir; an
// extension's result is kept for the hooks that run after it.
func beforeAll(ctx context.Context, ws *suite.Workspace, dir, evalDir string, opts Options) error {
	h := ws.BeforeAll
	if h == nil {
		return nil
	}
	st, err := RunHookState(ctx, h, dir, evalDir, HookRun{TestID: beforeAllID}, DefaultHookTimeout, opts, nil)
	if err != nil {
		if len(h.Extensions) > 0 {
			return fmt.Errorf("beforeAll extension failed: %w", err)
		}
		return fmt.Errorf("workspace before_all hook failed: %w", err)
	}
	if st != nil {
		states.Store(dir, st)
	}
	return nil
}

// hookVar is a {{name}} placeholder in a hook's arguments.
var hookVar = regexp.MustCompile(`\{\{(\w+)\}\}`)

// RunHook runs h for the workspace dir with the context as JSON on stdin and as {{name}}
// placeholders in its arguments, in evalDir unless the hook names its cwd, for its
// timeout_ms or else timeout. A non-zero exit is an error carrying the command's stderr.
func RunHook(ctx context.Context, h *suite.Hook, dir, evalDir string, run HookRun, timeout time.Duration, opts Options) error {
	_, err := RunHookState(ctx, h, dir, evalDir, run, timeout, opts, nil)
	return err
}

// RunHookState runs h as RunHook does and returns what an extension hook returned (nil for a
// command hook). An extension hook starts from state, or without one from the beforeAll
// extensions' result of its workspace.
func RunHookState(ctx context.Context, h *suite.Hook, dir, evalDir string, run HookRun, timeout time.Duration, opts Options, state *ExtensionState) (*ExtensionState, error) {
	if h.Timeout > 0 {
		timeout = h.Timeout
	}
	env := opts.env()
	if len(h.Extensions) > 0 {
		return runExtensions(ctx, h, dir, evalDir, run, timeout, opts, env, state)
	}
	return nil, runCommandHook(ctx, h, dir, evalDir, opts.RunID, run, timeout, env)
}

// runCommandHook runs a command hook (4.x workspace hooks, a 5.x environment's setup).
func runCommandHook(ctx context.Context, h *suite.Hook, dir, evalDir, runID string, run HookRun, timeout time.Duration, env []string) error {
	if h.Timeout > 0 {
		timeout = h.Timeout
	}
	input := ""
	if run.CaseInput != nil {
		input = *run.CaseInput
	}
	vars := map[string]string{"workspace_path": dir, "test_id": run.TestID, "eval_run_id": runID,
		"case_input": input, "case_metadata": ""}
	argv := make([]string, len(h.Command))
	for i, a := range h.Command {
		argv[i] = hookVar.ReplaceAllStringFunc(a, func(m string) string {
			if v, ok := vars[m[2:len(m)-2]]; ok {
				return v
			}
			return m
		})
	}
	stdin := h.Stdin
	if stdin == nil {
		var err error
		if stdin, err = json.Marshal(map[string]any{"workspace_path": dir, "test_id": run.TestID, "eval_run_id": runID,
			"case_input": run.CaseInput, "case_metadata": nil}); err != nil {
			return err
		}
	}
	_, err := proc.Run(ctx, proc.Cmd{Argv: argv, Dir: cmp.Or(h.Cwd, evalDir), Env: proc.ChildEnv(env, h.Env),
		Stdin: stdin, Timeout: timeout})
	return err
}

// Finish runs the after_all hook of ws, if any, in dir; its failure is returned for a warning
// (AgentV 4.42.4 carries on). Remove the workspace afterwards.
func Finish(ctx context.Context, ws *suite.Workspace, dir, evalDir string, opts Options) error {
	if ws == nil || ws.AfterAll == nil || dir == "" {
		return nil
	}
	defer states.Delete(dir)
	if err := RunHook(ctx, ws.AfterAll, dir, evalDir, HookRun{TestID: afterAllID}, DefaultLateHookTimeout, opts); err != nil {
		if len(ws.AfterAll.Extensions) > 0 {
			return fmt.Errorf("afterAll extension failed: %w", err)
		}
		return fmt.Errorf("workspace after_all hook failed: %w", err)
	}
	return nil
}

// copyTree copies the directories, regular files and symbolic links under src into dst,
// leaving out .git directories (which os.CopyFS cannot).
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		if rel == "." {
			return nil
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case d.Type()&fs.ModeSymlink != 0:
			link, err := os.Readlink(path)
			if err != nil {
				return err
			}
			return os.Symlink(link, target)
		case d.Type().IsRegular():
			return copyFile(path, target)
		}
		return nil // sockets, devices and pipes are not copied
	})
}

func copyFile(src, dst string) (err error) {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	st, err := in.Stat()
	if err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, st.Mode().Perm()|0o200)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, out.Close()) }()
	_, err = io.Copy(out, in)
	return err
}

// Remove deletes a workspace made by Create.
func Remove(dir string) error {
	states.Delete(dir)
	if _, user := inPlace.Load(dir); user {
		return nil // a host environment's workdir is the user's
	}
	if dir == "" || !strings.Contains(filepath.Base(dir), "agentv-workspace-") {
		return nil
	}
	return os.RemoveAll(dir)
}
