package workspace

import (
	"context"
	"os"
	"slices"
	"strings"

	"time"

	"github.com/agentv/action/internal/proc"
)

// baselineRef names the commit of the workspace as it was before any test ran.
const baselineRef = "refs/agentv/baseline"

// gitTimeout bounds one git command on a workspace.
const gitTimeout = 60 * time.Second

// initBaseline makes the workspace a git repository and commits everything in it as the
// baseline that FileChanges diffs against, as AgentV 4.42.4 does after setting a workspace up
// (workspace/file-changes.ts, initializeBaseline). Best effort: without git there is no baseline
// and graders see no file changes.
func initBaseline(ctx context.Context, dir string, env []string) error {
	for _, args := range [][]string{
		{"init", "-q"},
		{"add", "-A"},
		{"-c", "user.email=agentv@localhost", "-c", "user.name=agentv", "commit", "-q", "--allow-empty", "--no-verify", "-m", "agentv-baseline"},
		{"update-ref", baselineRef, "HEAD"},
	} {
		if _, err := git(ctx, dir, env, args...); err != nil {
			return err
		}
	}
	return nil
}

// FileChanges is the unified diff of the workspace dir against its baseline, as AgentV 4.42.4
// gives graders in `file_changes` (workspace/file-changes.ts, captureFileChanges), nested
// repositories' changes expanded; "" when nothing changed, without a baseline or on failure.
func FileChanges(ctx context.Context, dir string) string {
	return fileChanges(ctx, dir, os.Environ())
}

func fileChanges(ctx context.Context, dir string, env []string) string {
	if dir == "" {
		return ""
	}
	if _, err := git(ctx, dir, env, "rev-parse", "-q", "--verify", baselineRef); err != nil {
		return ""
	}
	stageNested(ctx, dir, env)
	if _, err := git(ctx, dir, env, "add", "-A"); err != nil {
		return ""
	}
	out, err := git(ctx, dir, env, "diff", baselineRef, "--submodule=diff")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(out)
}

// stageNested stages the changes of repositories directly inside dir (cloned dependencies), so
// that the diff shows their files rather than a commit id.
func stageNested(ctx context.Context, dir string, env []string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.IsDir() || e.Name() == ".git" || e.Name() == "node_modules" {
			continue
		}
		sub := dir + string(os.PathSeparator) + e.Name()
		if st, err := os.Stat(sub + string(os.PathSeparator) + ".git"); err != nil || !st.IsDir() {
			continue
		}
		_, _ = git(ctx, sub, env, "add", "-A")
	}
}

// git runs git in dir. GIT_DIR and GIT_WORK_TREE are dropped so that a hook's or CI's setting
// cannot point it at another repository.
func git(ctx context.Context, dir string, env []string, args ...string) (string, error) {
	if env == nil {
		env = os.Environ()
	}
	clean := slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		return strings.HasPrefix(kv, "GIT_DIR=") || strings.HasPrefix(kv, "GIT_WORK_TREE=")
	})
	res, err := proc.Run(ctx, proc.Cmd{Argv: append([]string{"git"}, args...), Dir: dir, Env: clean, Timeout: gitTimeout})
	if err != nil {
		return "", err
	}
	return string(res.Stdout), nil
}
