// Package jsworker runs JavaScript and TypeScript graders, prompt templates and custom
// assertions written with the define* runners of @agentv/eval or @agentv/sdk in long-lived
// workers: a worker loads the script once and calls the handler it registered for each payload,
// so a call costs a function call instead of starting node, bun or tsx.
//
// A call gives what proc.Run gives for the same command (stdout, stderr, exit code, the same
// *proc.Error, output caps and timeout): the handler writes to the worker's own stdout and
// stderr, and a fence after each call marks where its output ends. Everything else is spawned
// as before: a script that is not an SDK grader, a command with options this package does not
// know, a script whose imports would find the user's own @agentv package (the real @agentv/sdk
// 4.42.4 reads stdin itself, so it cannot be called per payload).
//
// What a worker keeps between calls is its module: module-level code runs once per worker and
// module-level variables keep their values, the point of a worker. A worker never serves two
// scripts, argument lists, environments or working directories, and it is replaced after a
// failed call (a non-zero exit, an error, a timeout: its process group is killed), after a call
// that added a global, changed the environment or the working directory, or printed after its
// end, and after MaxCalls calls.
package jsworker

import (
	"bytes"
	"context"
	"io/fs"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/agentv/action/internal/proc"
	"github.com/agentv/action/sdk"
)

// MaxCalls is how many calls a worker serves before a fresh one replaces it: a bound on what a
// handler's leaks (memory, module state) can grow to.
const MaxCalls = 1000

// plan is how a command runs in a worker: the runtime's argv before the script, the script's
// absolute path and the arguments after it.
type plan struct {
	runtime []string
	script  string
	args    []string
}

// shellSpecial are the characters that make an `sh -c` string more than a command and its words.
const shellSpecial = "|&;<>()$`\\\"'*?[]#~={}!\n\r"

// parse reads argv as [runtime, options…, script, args…] for node, bun or tsx with a
// JavaScript or TypeScript script; ok is false for anything else. Options are only those
// agentv's own commands use, whose meaning in a worker is the same (an --import runs before
// the worker as before the script).
func parse(argv []string, dir string) (p plan, ok bool) {
	if len(argv) == 3 && (argv[0] == "sh" || argv[0] == "/bin/sh") && argv[1] == "-c" {
		if strings.ContainsAny(argv[2], shellSpecial) {
			return plan{}, false
		}
		argv = strings.Fields(argv[2])
	}
	if len(argv) < 2 {
		return plan{}, false
	}
	base := filepath.Base(argv[0])
	i := 1
	switch base {
	case "bun":
		if argv[1] == "run" {
			i = 2
		}
	case "node", "nodejs", "tsx":
		for i < len(argv) && strings.HasPrefix(argv[i], "-") {
			switch a := argv[i]; {
			case a == "--import" && i+1 < len(argv):
				i += 2
			case strings.HasPrefix(a, "--import="), a == "--experimental-strip-types", a == "--no-warnings",
				strings.HasPrefix(a, "--disable-warning="), a == "--enable-source-maps":
				i++
			default:
				return plan{}, false
			}
		}
	default:
		return plan{}, false
	}
	if i >= len(argv) || !isJS(argv[i]) {
		return plan{}, false
	}
	script := argv[i]
	if !filepath.IsAbs(script) {
		script = filepath.Join(dir, script)
	}
	if !filepath.IsAbs(script) {
		abs, err := filepath.Abs(script)
		if err != nil {
			return plan{}, false
		}
		script = abs
	}
	runtime := slices.Clone(argv[:i])
	if base == "tsx" {
		// tsx runs the script in a child node process that gets none of the worker's descriptors:
		// the worker runs in node with tsx's loader, as tsx's child would.
		node, loader, ok := tsxLoader(argv[0])
		if !ok {
			return plan{}, false
		}
		runtime = append([]string{node, "--import", loader}, runtime[1:]...)
	}
	return plan{runtime: runtime, script: script, args: slices.Clone(argv[i+1:])}, true
}

// tsxLoader finds the node that runs tsx and the file URL of tsx's loader (the module `node
// --import tsx` loads) from the tsx command; ok is false when either is not found (a wrapper
// script, an unknown layout): the grader is then spawned.
func tsxLoader(tsx string) (node, loader string, ok bool) {
	path, err := exec.LookPath(tsx)
	if err != nil {
		return "", "", false
	}
	if path, err = filepath.EvalSymlinks(path); err != nil {
		return "", "", false
	}
	pkg := filepath.Dir(filepath.Dir(path)) // <tsx>/dist/cli.mjs
	meta, err := os.ReadFile(filepath.Join(pkg, "package.json"))
	if err != nil || !bytes.Contains(meta, []byte(`"name": "tsx"`)) {
		return "", "", false
	}
	mod := filepath.Join(pkg, "dist", "loader.mjs")
	if st, err := os.Stat(mod); err != nil || !st.Mode().IsRegular() {
		return "", "", false
	}
	if node, err = exec.LookPath("node"); err != nil {
		return "", "", false
	}
	return node, (&url.URL{Scheme: "file", Path: filepath.ToSlash(mod)}).String(), true
}

func isJS(path string) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".js", ".mjs", ".cjs", ".ts", ".mts":
		return !strings.HasPrefix(path, "-")
	}
	return false
}

// maxSource bounds how much of a script is read to tell whether it is an SDK grader.
const maxSource = 1 << 20

var (
	importsSDK = regexp.MustCompile(`['"]@agentv/(eval|sdk|core)(/sdk)?['"]`)
	definesOne = regexp.MustCompile(`\bdefine(CodeGrader|Assertion|PromptTemplate|CodeJudge)\s*\(`)
	// A script that reads stdin itself reads it once per process: it must be spawned per call.
	readsStdin = regexp.MustCompile(`process\.stdin|readCodeJudgePayload|/dev/stdin|(readSync|readFileSync)\(\s*0\b|Bun\.stdin`)
)

// sdkGrader reports whether the script's own source imports an agentv SDK, calls one of its
// define* runners and does not read stdin itself. A script that reaches the SDK only through
// another file of its own is not recognized, and is spawned.
func sdkGrader(script string) bool {
	f, err := os.Open(script)
	if err != nil {
		return false
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Size() > maxSource {
		return false
	}
	src := make([]byte, st.Size())
	if _, err := f.ReadAt(src, 0); err != nil && st.Size() > 0 {
		return false
	}
	return importsSDK.Match(src) && definesOne.Match(src) && !readsStdin.Match(src)
}

// ownPackages are the package.json files of the SDK agentv carries, by package name.
var ownPackages = func() map[string][]byte {
	out := map[string][]byte{}
	pkgs, err := sdk.Packages()
	if err != nil {
		return out
	}
	for _, p := range pkgs {
		if b, err := fs.ReadFile(p.FS, "package.json"); err == nil {
			out[p.Name] = b
		}
	}
	return out
}()

// foreignSDK reports whether resolving @agentv/eval, @agentv/sdk or @agentv/core from the
// script could find a copy that is not agentv's: in a node_modules folder of the script's
// folder or one above it, or in a NODE_PATH folder of env.
func foreignSDK(script string, env []string) bool {
	var dirs []string
	for d := filepath.Dir(script); ; d = filepath.Dir(d) {
		dirs = append(dirs, filepath.Join(d, "node_modules"))
		if filepath.Dir(d) == d {
			break
		}
	}
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "NODE_PATH="); ok {
			dirs = append(dirs, filepath.SplitList(v)...)
		}
	}
	for _, d := range dirs {
		for _, name := range []string{"@agentv/eval", "@agentv/sdk", "@agentv/core"} {
			b, err := os.ReadFile(filepath.Join(d, filepath.FromSlash(name), "package.json"))
			if err == nil && !bytes.Equal(b, ownPackages[name]) {
				return true
			}
		}
	}
	return false
}

// eligible reports how c runs in a worker, or false when it is spawned.
func eligible(c proc.Cmd) (plan, bool) {
	if c.StdoutTee != nil || c.Stdin == nil {
		return plan{}, false
	}
	if c.Dir != "" {
		if st, err := os.Stat(c.Dir); err != nil || !st.IsDir() {
			return plan{}, false // a spawn says what is wrong with it
		}
	}
	p, ok := parse(c.Argv, c.Dir)
	if !ok || !sdkGrader(p.script) {
		return plan{}, false
	}
	env := c.Env
	if env == nil {
		env = os.Environ()
	}
	if foreignSDK(p.script, env) {
		return plan{}, false
	}
	return p, true
}

// Run runs c like proc.Run, in a worker of Default when c is an SDK grader's command.
func Run(ctx context.Context, c proc.Cmd) (*proc.Result, error) {
	return Default.Run(ctx, c)
}
