package workspace

import (
	"bytes"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/agentv/action/internal/jsruntime"
	"github.com/agentv/action/internal/proc"
	"github.com/agentv/action/suite"
)

// extensionJS calls a 5.x extension's hook in a JavaScript runtime (see its header).
//
//go:embed extension.mjs
var extensionJS []byte

// extensionMarker starts the line extension.mjs prints its merged result on.
const extensionMarker = "AGENTV_EXTENSION_RESULT "

// ExtensionState is what 5.x extension hooks returned, merged: provider_context is handed to
// the hooks that run after them (AgentV's ExtensionRuntimeState). metadata and output are kept
// for the hooks' callers.
type ExtensionState struct {
	ProviderContext map[string]any `json:"provider_context,omitempty"`
	Metadata        map[string]any `json:"metadata,omitempty"`
	Output          string         `json:"output,omitempty"`
}

// wrapper writes extension.mjs and its TypeScript-named copy once per process, into the user's
// cache folder (named after its content) or else a temporary folder.
var wrapper = sync.OnceValues(func() (string, error) {
	sum := sha256.Sum256(extensionJS)
	name := hex.EncodeToString(sum[:])[:16]
	var dirs []string
	if base, err := os.UserCacheDir(); err == nil {
		dirs = append(dirs, filepath.Join(base, "agentv", "extension", name))
	}
	var lastErr error
	for _, dir := range append(dirs, "") {
		if dir == "" {
			tmp, err := os.MkdirTemp("", "agentv-extension-")
			if err != nil {
				return "", fmt.Errorf("could not write the extension runner: %w", err)
			}
			dir = tmp
		}
		if lastErr = writeWrapper(dir); lastErr == nil {
			return filepath.Join(dir, "extension"), nil
		}
	}
	return "", fmt.Errorf("could not write the extension runner: %w", lastErr)
})

func writeWrapper(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, ext := range []string{".mjs", ".mts"} {
		path := filepath.Join(dir, "extension"+ext)
		if b, err := os.ReadFile(path); err == nil && bytes.Equal(b, extensionJS) {
			continue
		}
		// Written aside and renamed, so a concurrent agentv never runs half a file.
		tmp, err := os.CreateTemp(dir, ".extension-*")
		if err != nil {
			return err
		}
		_, werr := tmp.Write(extensionJS)
		cerr := tmp.Close()
		if werr != nil || cerr != nil {
			_ = os.Remove(tmp.Name())
			return fmt.Errorf("%s: %w", path, cmpErr(werr, cerr))
		}
		if err := os.Rename(tmp.Name(), path); err != nil {
			_ = os.Remove(tmp.Name())
			return err
		}
	}
	return nil
}

func cmpErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// extensionCommand returns the argv and extra environment that call hook h's extensions: the
// runtime jsruntime picks for the first module's kind (bun, tsx or Node 22.6+ for TypeScript;
// Node, else bun, for JavaScript), with @agentv/eval importable as for code graders.
func extensionCommand(h *suite.Hook, env []string) ([]string, []string, error) {
	base, err := wrapper()
	if err != nil {
		return nil, nil, err
	}
	script := base + ".mjs"
	for _, x := range h.Extensions {
		switch strings.ToLower(filepath.Ext(x.Module)) {
		case ".ts", ".mts", ".cts":
			script = base + ".mts"
		}
	}
	argv, extra, err := jsruntime.Resolver{Env: env}.Command(script)
	if err != nil {
		return nil, nil, fmt.Errorf("extension %s: %w", h.Name, err)
	}
	argv = append(argv, h.Name)
	for _, x := range h.Extensions {
		argv = append(argv, x.Module)
	}
	return argv, extra, nil
}

// extensionInput is what extension.mjs reads on stdin: the hook context 5.x passes
// (hook_name is added by the runner) and the state earlier hooks returned.
func extensionInput(dir, evalDir string, run HookRun, opts Options, state *ExtensionState) ([]byte, error) {
	ctx := map[string]any{"workspace_path": dir, "test_id": run.TestID, "eval_run_id": opts.RunID, "eval_dir": evalDir}
	if run.CaseInput != nil {
		ctx["case_input"] = *run.CaseInput
	}
	if len(run.CaseMetadata) > 0 {
		ctx["case_metadata"] = run.CaseMetadata
	}
	in := map[string]any{"context": ctx}
	if state != nil {
		in["state"] = state
	}
	return json.Marshal(in)
}

// parseExtensionResult reads the merged state from the last marker line of the runner's
// output (a hook may print lines of its own before it).
func parseExtensionResult(stdout []byte) (*ExtensionState, error) {
	i := bytes.LastIndex(stdout, []byte(extensionMarker))
	if i < 0 {
		return nil, fmt.Errorf("the extension runner printed no result")
	}
	line, _, _ := bytes.Cut(stdout[i+len(extensionMarker):], []byte("\n"))
	var st ExtensionState
	if err := json.Unmarshal(line, &st); err != nil {
		return nil, fmt.Errorf("the extension runner printed a result that is not JSON: %w", err)
	}
	return &st, nil
}

// states keeps each workspace's beforeAll result for the hooks that run after it, as 5.x hands
// the shared extension state to every test of the suite.
var states sync.Map // dir → *ExtensionState

// runExtensions calls the extensions of hook h through extension.mjs, in evalDir, with the
// hook context and state (without one, its workspace's beforeAll result) on stdin, and returns
// the state they leave.
func runExtensions(ctx context.Context, h *suite.Hook, dir, evalDir string, run HookRun, timeout time.Duration, opts Options, env []string, state *ExtensionState) (*ExtensionState, error) {
	if state == nil {
		if st, ok := states.Load(dir); ok {
			state = st.(*ExtensionState)
		}
	}
	argv, extra, err := extensionCommand(h, env)
	if err != nil {
		return nil, err
	}
	stdin, err := extensionInput(dir, evalDir, run, opts, state)
	if err != nil {
		return nil, err
	}
	res, err := proc.Run(ctx, proc.Cmd{Argv: argv, Dir: evalDir, Env: proc.ChildEnv(env, append(extra, h.Env...)),
		Stdin: stdin, Timeout: timeout})
	var pe *proc.Error
	if errors.As(err, &pe) {
		// Name the user's modules, not the runtime and our wrapper.
		names := make([]string, len(h.Extensions))
		for i, x := range h.Extensions {
			names[i] = "file://" + x.Module + ":" + h.Name
		}
		pe.Argv = []string{strings.Join(names, ", ")}
	}
	if err != nil {
		return nil, err
	}
	return parseExtensionResult(res.Stdout)
}
