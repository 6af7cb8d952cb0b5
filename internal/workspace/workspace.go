// Package workspace makes the directory the tests of an AgentV 4.x suite run in: a new
// temporary directory holding a copy of the suite's template, set up by its before_all
// command, removed when the run ends.
package workspace

import (
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

// DefaultHookTimeout bounds a hook without its own timeout_ms.
const DefaultHookTimeout = 60 * time.Second

// beforeAllID is the test id a before_all hook is told, as AgentV 4.x tells it.
const beforeAllID = "__before_all__"

// Options are the run's settings a workspace needs.
type Options struct {
	RunID string   // the run's id, told to hooks as eval_run_id
	Env   []string // environment of hook processes (the GitHub token already removed)
	Root  string   // where workspaces are made; "" is the system's temporary directory
}

// Create makes the workspace of ws: a new temporary directory with a copy of the template
// (without .git), where the before_all hook then runs. evalDir is the eval file's directory,
// the hook's default working directory. On failure nothing is left behind.
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
		if err := runHook(ctx, h, dir, evalDir, opts); err != nil {
			_ = os.RemoveAll(dir)
			return "", fmt.Errorf("workspace before_all hook failed: %w", err)
		}
	}
	_ = initBaseline(ctx, dir, opts.Env) // best effort: without it graders see no file changes
	return dir, nil
}

// hookVar is a {{name}} placeholder in a hook's arguments.
var hookVar = regexp.MustCompile(`\{\{(\w+)\}\}`)

// runHook runs h with the workspace context as JSON on stdin ({workspace_path, test_id,
// eval_run_id, case_input, case_metadata}) and {{workspace_path}}, {{test_id}} and
// {{eval_run_id}} replaced in its arguments.
func runHook(ctx context.Context, h *suite.Hook, dir, evalDir string, opts Options) error {
	vars := map[string]string{"workspace_path": dir, "test_id": beforeAllID, "eval_run_id": opts.RunID,
		"case_input": "", "case_metadata": ""}
	argv := make([]string, len(h.Command))
	for i, a := range h.Command {
		argv[i] = hookVar.ReplaceAllStringFunc(a, func(m string) string {
			if v, ok := vars[m[2:len(m)-2]]; ok {
				return v
			}
			return m
		})
	}
	stdin, err := json.Marshal(map[string]any{"workspace_path": dir, "test_id": beforeAllID, "eval_run_id": opts.RunID,
		"case_input": nil, "case_metadata": nil})
	if err != nil {
		return err
	}
	cwd := h.Cwd
	if cwd == "" {
		cwd = evalDir
	}
	timeout := h.Timeout
	if timeout <= 0 {
		timeout = DefaultHookTimeout
	}
	_, err = proc.Run(ctx, proc.Cmd{Argv: argv, Dir: cwd, Env: proc.ChildEnv(opts.Env, nil), Stdin: stdin, Timeout: timeout})
	return err
}

// copyTree copies the directories, regular files and symbolic links under src into dst,
// leaving out .git directories.
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
