// Package jsruntime picks the interpreter for executable user scripts (prompt templates
// and judges given as a file path) and arranges for `@agentv/eval` to resolve.
//
// The binary carries the compiled SDK (package sdk). Before the first script of a run it is
// written to a cache folder (os.UserCacheDir()/agentv/sdk/<content hash>/node_modules), and each
// command is pointed at it: NODE_PATH for bun and for require(), and for Node and tsx a
// `--import` of a resolve hook, since Node ignores NODE_PATH for ESM imports. Both only apply
// when the script's own resolution finds no `@agentv/eval`, so a user's node_modules copy wins.
//
//	argv, env, err := jsruntime.Resolver{}.Command("judges/risk.ts")
//	// argv: [/usr/bin/bun run /abs/judges/risk.ts], env: [NODE_PATH=.../node_modules]
package jsruntime

import (
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// LookPath finds an executable; tests replace it through Resolver.
type LookPath func(file string) (string, error)

// Resolver turns a script path into an argv.
type Resolver struct {
	LookPath LookPath // nil: exec.LookPath
	// CacheDir is the folder the embedded SDK is written to, once per SDK version. "": the user's
	// cache folder (os.UserCacheDir()/agentv/sdk), or a temporary folder when that is not writable.
	CacheDir string
	// Env is the environment the script will get. NODE_PATH and NODE_OPTIONS found there are
	// extended, not replaced. nil: os.Environ().
	Env []string
}

// IsScript reports whether a path's extension makes it an executable template.
func IsScript(path string) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".ts", ".mts", ".js", ".mjs", ".cjs", ".py":
		return true
	}
	return false
}

// Command returns the argv and extra environment (NAME=value) to run script, which may be
// relative to the working directory (argv holds its absolute path, so the caller may run it in
// any folder). Runtimes: .ts/.mts: bun run, else tsx, else node >= 22.6 with type
// stripping; .js/.mjs/.cjs: node, else bun; .py: python3 (no SDK needed: the payload is JSON on
// stdin). For JavaScript and TypeScript the environment makes `@agentv/eval`, `@agentv/core`
// and `@agentv/sdk` importable without the user installing them.
func (r Resolver) Command(script string) (argv []string, env []string, err error) {
	argv, err = r.runtime(script)
	if err != nil {
		return nil, nil, err
	}
	if len(argv) > 0 && strings.HasPrefix(filepath.Base(argv[0]), "python") {
		return argv, nil, nil // no SDK needed: the payload is JSON on stdin
	}
	return r.withSDK(argv, false)
}

// runtime picks the interpreter of script, as Command does, without preparing the SDK: argv
// holds hookMarker where the resolve hook goes.
func (r Resolver) runtime(script string) ([]string, error) {
	abs, err := filepath.Abs(script)
	if err != nil {
		return nil, fmt.Errorf("could not resolve script path %q: %w", script, err)
	}
	switch ext := strings.ToLower(filepath.Ext(script)); ext {
	case ".ts", ".mts":
		if p, ok := r.has("bun"); ok {
			return []string{p, "run", abs}, nil
		}
		if p, ok := r.has("tsx"); ok {
			return []string{p, "--import", hookMarker, abs}, nil
		}
		found := ""
		if node, ok := r.has("node"); ok {
			v := versionOf(node)
			if v.atLeast(22, 6) {
				args := []string{node}
				if !v.atLeast(23, 6) { // stripping is on by default from 23.6
					args = append(args, "--experimental-strip-types")
				}
				return append(args, "--disable-warning=ExperimentalWarning", "--import", hookMarker, abs), nil
			}
			found = fmt.Sprintf(" (the node on PATH is %s, which cannot run TypeScript)", v)
		}
		return nil, fmt.Errorf("cannot run TypeScript script %s: install bun (https://bun.sh, or npm install -g bun), tsx (npm install -g tsx) or Node.js 22.6 or newer%s", script, found)
	case ".js", ".mjs", ".cjs":
		if p, ok := r.has("node"); ok {
			return []string{p, "--import", hookMarker, abs}, nil
		}
		if p, ok := r.has("bun"); ok {
			return []string{p, "run", abs}, nil
		}
		return nil, fmt.Errorf("cannot run JavaScript script %s: install Node.js or bun (https://bun.sh)", script)
	case ".py":
		for _, name := range []string{"python3", "python"} {
			if p, ok := r.has(name); ok {
				return []string{p, abs}, nil
			}
		}
		return nil, fmt.Errorf("cannot run Python script %s: install python3", script)
	default:
		return nil, fmt.Errorf("%s is not an executable script (want .ts, .mts, .js, .mjs, .cjs or .py)", script)
	}
}

// SDKEnv returns environment entries (NAME=value) that make `@agentv/eval`, `@agentv/core` and
// `@agentv/sdk` importable by a command whose runtime the user chose (a code_judge `script:`
// list or string, a prompt `{script: [...]}`): NODE_OPTIONS gains an --import of the resolve
// hook (node, tsx, npx tsx) and NODE_PATH the SDK folder (bun, require()).
func (r Resolver) SDKEnv() ([]string, error) {
	_, env, err := r.withSDK(nil, true)
	return env, err
}

// hookMarker stands in argv for the resolve hook's URL until the SDK folder is known.
const hookMarker = "\x00agentv-sdk-hook\x00"

// withSDK materializes the SDK and returns argv (hookMarker replaced) with the environment that
// points the runtime at it; viaOptions puts the hook into NODE_OPTIONS instead of argv.
func (r Resolver) withSDK(argv []string, viaOptions bool) ([]string, []string, error) {
	d, err := prepareSDK(r.CacheDir)
	if err != nil {
		return nil, nil, fmt.Errorf("%w (set XDG_CACHE_HOME to a writable folder)", err)
	}
	hook := fileURL(d.register())
	for i, a := range argv {
		if a == hookMarker {
			argv[i] = hook
		}
	}
	env := []string{"NODE_PATH=" + joinList(r.getenv("NODE_PATH"), d.nodeModules(), string(os.PathListSeparator))}
	if viaOptions {
		env = append(env, "NODE_OPTIONS="+joinList(r.getenv("NODE_OPTIONS"), "--import="+hook, " "))
	}
	return argv, env, nil
}

// fileURL turns an absolute path into a file: URL (percent-encoded, so spaces survive NODE_OPTIONS).
func fileURL(path string) string {
	p := filepath.ToSlash(path)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // C:/x → file:///C:/x
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}

// joinList appends item to a sep-separated list unless it is already there.
func joinList(list, item, sep string) string {
	switch {
	case list == "":
		return item
	case slices.Contains(strings.Split(list, sep), item):
		return list
	}
	return list + sep + item
}

func (r Resolver) getenv(name string) string {
	env := r.Env
	if env == nil {
		env = os.Environ()
	}
	val := ""
	for _, kv := range env {
		if n, v, ok := strings.Cut(kv, "="); ok && n == name {
			val = v // the last one wins, as in exec.Cmd
		}
	}
	return val
}

func (r Resolver) has(name string) (string, bool) {
	look := r.LookPath
	if look == nil {
		look = exec.LookPath
	}
	p, err := look(name)
	return p, err == nil
}

// nodeVersion is a parsed `node --version`; the zero value means unknown.
type nodeVersion struct{ major, minor, patch int }

func (v nodeVersion) atLeast(major, minor int) bool {
	return v.major > major || (v.major == major && v.minor >= minor)
}

func (v nodeVersion) String() string {
	if v == (nodeVersion{}) {
		return "of unknown version"
	}
	return fmt.Sprintf("v%d.%d.%d", v.major, v.minor, v.patch)
}

var versions sync.Map // node path → nodeVersion

// versionOf runs `node --version` once per binary path and process.
func versionOf(node string) nodeVersion {
	if v, ok := versions.Load(node); ok {
		return v.(nodeVersion)
	}
	var v nodeVersion
	if out, err := exec.Command(node, "--version").Output(); err == nil {
		v = parseNodeVersion(string(out))
	}
	versions.Store(node, v)
	return v
}

func parseNodeVersion(s string) nodeVersion {
	var v nodeVersion
	if _, err := fmt.Sscanf(strings.TrimSpace(s), "v%d.%d.%d", &v.major, &v.minor, &v.patch); err != nil {
		return nodeVersion{}
	}
	return v
}
