// Package jsruntime picks the interpreter for executable user scripts (prompt templates
// and judges given as a file path) and arranges for `@agentv/eval` to resolve.
package jsruntime

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
)

// LookPath finds an executable; tests replace it through Resolver.
type LookPath func(file string) (string, error)

// Resolver turns a script path into an argv.
type Resolver struct {
	LookPath LookPath // nil: exec.LookPath
}

// IsScript reports whether a path's extension makes it an executable template.
func IsScript(path string) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".ts", ".mts", ".js", ".mjs", ".cjs", ".py":
		return true
	}
	return false
}

// Command returns the argv and extra environment (NAME=value) to run script.
// .ts/.mts: bun run, else tsx, else node >= 22.6 with type stripping;
// .js/.mjs/.cjs: node, else bun; .py: python3.
func (r Resolver) Command(script string) (argv []string, env []string, err error) {
	look := r.LookPath
	if look == nil {
		look = exec.LookPath
	}
	has := func(name string) (string, bool) {
		p, err := look(name)
		return p, err == nil
	}
	switch ext := strings.ToLower(filepath.Ext(script)); ext {
	case ".ts", ".mts":
		if p, ok := has("bun"); ok {
			return []string{p, "run", script}, nil, nil
		}
		if p, ok := has("tsx"); ok {
			return []string{p, script}, nil, nil
		}
		if p, ok := has("node"); ok && nodeStripsTypes(p) {
			return []string{p, "--experimental-strip-types", "--no-warnings", script}, nil, nil
		}
		return nil, nil, fmt.Errorf("cannot run TypeScript template %s: install bun (https://bun.sh), or tsx (npm install -g tsx), or Node.js 22.6 or newer", script)
	case ".js", ".mjs", ".cjs":
		if p, ok := has("node"); ok {
			return []string{p, script}, nil, nil
		}
		if p, ok := has("bun"); ok {
			return []string{p, "run", script}, nil, nil
		}
		return nil, nil, fmt.Errorf("cannot run JavaScript template %s: install Node.js or bun", script)
	case ".py":
		if p, ok := has("python3"); ok {
			return []string{p, script}, nil, nil
		}
		return nil, nil, fmt.Errorf("cannot run Python template %s: install python3", script)
	default:
		return nil, nil, fmt.Errorf("%s is not an executable template (want .ts, .mts, .js, .mjs, .cjs or .py)", script)
	}
}

// nodeStripsTypes reports whether node supports --experimental-strip-types (>= 22.6).
func nodeStripsTypes(node string) bool {
	out, err := exec.Command(node, "--version").Output()
	if err != nil {
		return false
	}
	var major, minor int
	if _, err := fmt.Sscanf(strings.TrimSpace(string(out)), "v%d.%d", &major, &minor); err != nil {
		return false
	}
	return major > 22 || (major == 22 && minor >= 6)
}
