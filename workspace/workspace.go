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
}

// Options are the run's settings a workspace needs.
type Options struct {
	RunID string   // the run's id, told to hooks as eval_run_id
	Env   []string // environment of hook processes (the GitHub token removed); nil: os.Environ()
	Root  string   // where workspaces are made; "" is the system's temporary directory
}

// Create makes the workspace of ws: a temporary copy of the template (without .git) where
// the before_all hook then runs, in evalDir by default. On failure nothing is left behind.
func Create(ctx context.Context, ws *suite.Workspace, evalDir string, opts Options) (string, error) {
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
	if h := ws.BeforeAll; h != nil {
		if err := RunHook(ctx, h, dir, evalDir, HookRun{TestID: beforeAllID}, DefaultHookTimeout, opts); err != nil {
			_ = os.RemoveAll(dir)
			return "", fmt.Errorf("workspace before_all hook failed: %w", err)
		}
	}
	_ = initBaseline(ctx, dir, opts.Env) // best effort: without it graders see no file changes
	return dir, nil
}

// hookVar is a {{name}} placeholder in a hook's arguments.
var hookVar = regexp.MustCompile(`\{\{(\w+)\}\}`)

// RunHook runs h for the workspace dir with the context as JSON on stdin and as {{name}}
// placeholders in its arguments, in evalDir unless the hook names its cwd, for its
// timeout_ms or else timeout. A non-zero exit is an error carrying the command's stderr.
func RunHook(ctx context.Context, h *suite.Hook, dir, evalDir string, run HookRun, timeout time.Duration, opts Options) error {
	input := ""
	if run.CaseInput != nil {
		input = *run.CaseInput
	}
	vars := map[string]string{"workspace_path": dir, "test_id": run.TestID, "eval_run_id": opts.RunID,
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
	stdin, err := json.Marshal(map[string]any{"workspace_path": dir, "test_id": run.TestID, "eval_run_id": opts.RunID,
		"case_input": run.CaseInput, "case_metadata": nil})
	if err != nil {
		return err
	}
	if h.Timeout > 0 {
		timeout = h.Timeout
	}
	env := opts.Env
	if env == nil {
		env = os.Environ()
	}
	_, err = proc.Run(ctx, proc.Cmd{Argv: argv, Dir: cmp.Or(h.Cwd, evalDir), Env: proc.ChildEnv(env, nil),

		Stdin: stdin, Timeout: timeout})
	return err
}

// Finish runs the after_all hook of ws, if any, in dir; its failure is returned for a warning
// (AgentV 4.42.4 carries on). Remove the workspace afterwards.
func Finish(ctx context.Context, ws *suite.Workspace, dir, evalDir string, opts Options) error {
	if ws == nil || ws.AfterAll == nil || dir == "" {
		return nil
	}
	if err := RunHook(ctx, ws.AfterAll, dir, evalDir, HookRun{TestID: afterAllID}, DefaultLateHookTimeout, opts); err != nil {
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
	if dir == "" || !strings.Contains(filepath.Base(dir), "agentv-workspace-") {
		return nil
	}
	return os.RemoveAll(dir)
}
