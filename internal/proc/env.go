package proc

import (
	"slices"
	"strings"
)

// tokenVars are environment variables that carry the GitHub token. Child processes
// (judges, templates, CLI targets) do not get them unless a target references one.
var tokenVars = []string{"GITHUB_TOKEN", "GH_TOKEN", "INPUT_GITHUB-TOKEN", "INPUT_GITHUB_TOKEN", "ACTIONS_RUNTIME_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_TOKEN"}

// IsTokenVar reports whether name carries the GitHub token or a token of the Actions
// runtime (ACTIONS_*_TOKEN: artifacts, caches, OIDC).
func IsTokenVar(name string) bool {
	return slices.Contains(tokenVars, name) || strings.HasPrefix(name, "ACTIONS_") && strings.HasSuffix(name, "_TOKEN")
}

// ChildEnv returns env without the GitHub token variables, plus extra (NAME=value) entries,
// which win over existing ones. keep names token variables a target explicitly references.
func ChildEnv(env []string, extra []string, keep ...string) []string {
	out := make([]string, 0, len(env)+len(extra))
	drop := func(name string) bool {
		return !slices.Contains(keep, name) && (IsTokenVar(name) || slices.ContainsFunc(extra, func(e string) bool {
			n, _, _ := strings.Cut(e, "=")
			return n == name
		}))
	}
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if !drop(name) {
			out = append(out, kv)
		}
	}
	return append(out, extra...)
}
