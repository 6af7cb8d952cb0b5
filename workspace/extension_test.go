package workspace

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/agentv/action/suite"
)

// TestHostWorkdir prepares a 5.x host environment: the workdir is made and used in place, the
// setup runs once there with the environment's variables, the workdir on stdin, and in its own
// cwd; a failing setup leaves the user's folder alone, and Remove never deletes it.
func TestHostWorkdir(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("the setup is an sh script")
	}
	root := t.TempDir()
	evalDir := filepath.Join(root, "evals")
	writeFile(t, filepath.Join(evalDir, "keep.txt"), "")
	record := `cat > "$AGENTV_ENVIRONMENT_WORKDIR/stdin.json"; printf '%s|%s|%s' "$GREETING" "$PWD" "${GITHUB_TOKEN:-none}" > "$AGENTV_ENVIRONMENT_WORKDIR/seen.txt"`
	env := []string{"PATH=" + os.Getenv("PATH"), "GITHUB_TOKEN=secret", "GREETING=from-parent"}

	t.Run("setup", func(t *testing.T) {
		t.Parallel()
		work := filepath.Join(root, "a", "work")
		ws := &suite.Workspace{Workdir: work, Setup: &suite.Hook{Command: []string{"sh", "-c", record}, Cwd: evalDir,
			Env: []string{"GREETING=hello", "AGENTV_ENVIRONMENT_WORKDIR=" + work}, Stdin: []byte(`{"environment": {"type": "host"}}`)}}
		dir, err := Create(context.Background(), ws, evalDir, Options{Env: env})
		if err != nil {
			t.Fatal(err)
		}
		if dir != work {
			t.Errorf("dir %s, want the workdir %s", dir, work)
		}
		for f, want := range map[string]string{"stdin.json": `{"environment": {"type": "host"}}`, "seen.txt": "hello|" + evalDir + "|none"} {
			if b, err := os.ReadFile(filepath.Join(work, f)); err != nil || string(b) != want {
				t.Errorf("%s = %q (%v), want %q", f, b, err, want)
			}
		}
		if _, err := os.Stat(filepath.Join(work, ".git")); err == nil {
			t.Errorf("a Git baseline was made in the user's workdir")
		}
		if err := Remove(dir); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(work); err != nil {
			t.Errorf("Remove deleted the workdir: %v", err)
		}
	})
	t.Run("failing setup", func(t *testing.T) {
		t.Parallel()
		work := filepath.Join(root, "b")
		writeFile(t, filepath.Join(work, "mine.txt"), "user data")
		ws := &suite.Workspace{Workdir: work, Setup: &suite.Hook{Command: []string{"sh", "-c", "echo no network >&2; exit 3"}}}
		_, err := Create(context.Background(), ws, evalDir, Options{Env: env})
		if err == nil || !strings.Contains(err.Error(), "environment setup failed") || !strings.Contains(err.Error(), "no network") {
			t.Fatalf("err %v, want the setup's failure with its stderr", err)
		}
		if _, err := os.Stat(filepath.Join(work, "mine.txt")); err != nil {
			t.Errorf("the user's workdir was touched: %v", err)
		}
	})
	t.Run("setup timeout", func(t *testing.T) {
		t.Parallel()
		ws := &suite.Workspace{Workdir: filepath.Join(root, "c"), Setup: &suite.Hook{Command: []string{"sleep", "5"}, Timeout: 100 * time.Millisecond}}
		start := time.Now()
		if _, err := Create(context.Background(), ws, evalDir, Options{Env: env}); err == nil || time.Since(start) > 4*time.Second {
			t.Fatalf("err %v after %s, want a timeout", err, time.Since(start))
		}
	})
}

// TestExtensions runs 5.x extension hooks through the JavaScript wrapper with a real Node: the
// context they get, the state handed from beforeAll to later hooks, a missing export, a
// throwing hook, and an environment without the GitHub token.
func TestExtensions(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("needs node")
	}
	root := t.TempDir()
	evalDir := filepath.Join(root, "evals")
	mod := filepath.Join(evalDir, "hooks.mjs")
	writeFile(t, mod, `import { writeFileSync, appendFileSync } from 'node:fs';
import path from 'node:path';
export function beforeAll(ctx) {
  writeFileSync(path.join(ctx.workspace_path, 'all.json'), JSON.stringify({ ...ctx, token: process.env.GITHUB_TOKEN ?? null, cwd: process.cwd() }));
  console.log('noise on stdout');
  return { provider_context: { from: 'all' }, metadata: { a: 1 }, output: 'all' };
}
export async function beforeEach(ctx) {
  appendFileSync(path.join(ctx.workspace_path, 'each.txt'), JSON.stringify(ctx) + '\n');
  return { provider_context: { each: ctx.test_id }, output: 'each' };
}
export function afterEach(ctx) { throw new Error('boom in afterEach'); }
export default { afterAll() { return 'not an object'; } };
`)
	second := filepath.Join(evalDir, "second.mjs")
	writeFile(t, second, "export function beforeEach(ctx) { return { metadata: { second: ctx.provider_context.each ?? 'none' } }; }\n")
	env := []string{"PATH=" + os.Getenv("PATH"), "GITHUB_TOKEN=secret", "HOME=" + os.Getenv("HOME")}
	opts := Options{RunID: "run-1", Env: env}
	ws := &suite.Workspace{
		BeforeAll:  &suite.Hook{Name: "beforeAll", Extensions: []suite.Extension{{Module: mod}}},
		BeforeEach: &suite.Hook{Name: "beforeEach", Extensions: []suite.Extension{{Module: mod}, {Module: second}}},
		AfterEach:  &suite.Hook{Name: "afterEach", Extensions: []suite.Extension{{Module: mod}}},
		AfterAll:   &suite.Hook{Name: "afterAll", Extensions: []suite.Extension{{Module: mod}}},
	}
	dir, err := Create(context.Background(), ws, evalDir, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = Remove(dir) }()

	var all map[string]any
	if b, err := os.ReadFile(filepath.Join(dir, "all.json")); err != nil || json.Unmarshal(b, &all) != nil {
		t.Fatalf("all.json: %s %v", b, err)
	}
	want := map[string]any{"hook_name": "beforeAll", "workspace_path": dir, "test_id": "__before_all__", "eval_run_id": "run-1",
		"eval_dir": evalDir, "token": nil, "cwd": evalDir}
	for k, v := range want {
		if all[k] != v {
			t.Errorf("beforeAll %s = %v, want %v", k, all[k], v)
		}
	}
	if _, ok := all["case_input"]; ok {
		t.Errorf("beforeAll got a case_input: %v", all)
	}

	input := "What is 2+2?"
	st, err := RunHookState(context.Background(), ws.BeforeEach, dir, evalDir,
		HookRun{TestID: "t1", CaseInput: &input, CaseMetadata: json.RawMessage(`{"owner":"docs"}`)}, time.Minute, opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "each.txt"))
	var each map[string]any
	if err := json.Unmarshal(b, &each); err != nil {
		t.Fatalf("each.txt %s: %v", b, err)
	}
	if each["case_input"] != input || each["test_id"] != "t1" || each["hook_name"] != "beforeEach" ||
		each["provider_context"].(map[string]any)["from"] != "all" || each["case_metadata"].(map[string]any)["owner"] != "docs" {
		t.Errorf("beforeEach context %v", each)
	}
	// The state: beforeAll's, then each module's in order (the second saw the first's context).
	if st == nil || st.ProviderContext["from"] != "all" || st.ProviderContext["each"] != "t1" || st.Metadata["a"] != float64(1) ||
		st.Metadata["second"] != "t1" || st.Output != "all\neach" {
		t.Errorf("state %+v", st)
	}

	_, err = RunHookState(context.Background(), ws.AfterEach, dir, evalDir, HookRun{TestID: "t1"}, time.Minute, opts, st)
	if err == nil || !strings.Contains(err.Error(), "boom in afterEach") {
		t.Errorf("afterEach err %v, want the hook's error", err)
	}
	// A CommonJS-style default export is found; a return that is not an object is no state.
	if err := Finish(context.Background(), ws, dir, evalDir, opts); err != nil {
		t.Errorf("afterAll: %v", err)
	}

	missing := &suite.Hook{Name: "afterAll", Extensions: []suite.Extension{{Module: second}}}
	if _, err := RunHookState(context.Background(), missing, dir, evalDir, HookRun{TestID: "x"}, time.Minute, opts, nil); err == nil ||
		!strings.Contains(err.Error(), "does not export a function afterAll") {
		t.Errorf("missing export: %v", err)
	}
}

// TestExtensionTypeScript runs a TypeScript extension with whichever runtime jsruntime picks.
func TestExtensionTypeScript(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	mod := filepath.Join(root, "hook.ts")
	writeFile(t, mod, "type Ctx = { workspace_path: string; test_id: string };\nexport function beforeEach(ctx: Ctx): { output: string } {\n  return { output: `ts ${ctx.test_id}` };\n}\n")
	h := &suite.Hook{Name: "beforeEach", Extensions: []suite.Extension{{Module: mod}}}
	st, err := RunHookState(context.Background(), h, root, root, HookRun{TestID: "t"}, time.Minute, Options{}, nil)
	if err != nil {
		if strings.Contains(err.Error(), "cannot run TypeScript") {
			t.Skip(err)
		}
		t.Fatal(err)
	}
	if st.Output != "ts t" {
		t.Errorf("state %+v", st)
	}
}

func TestParseExtensionResult(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, out, wantErr, wantOutput string
	}{
		{name: "last marker wins", out: "AGENTV_EXTENSION_RESULT {\"output\":\"fake\"}\nhook text\n\nAGENTV_EXTENSION_RESULT {\"output\":\"real\"}\n", wantOutput: "real"},
		{name: "empty state", out: "\nAGENTV_EXTENSION_RESULT {}\n"},
		{name: "no marker", out: "just text", wantErr: "printed no result"},
		{name: "not JSON", out: "AGENTV_EXTENSION_RESULT {oops\n", wantErr: "not JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			st, err := parseExtensionResult([]byte(tt.out))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || st.Output != tt.wantOutput {
				t.Fatalf("state %+v, err %v", st, err)
			}
		})
	}
}
