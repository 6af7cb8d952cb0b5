package suite

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v4"
)

// Custom assertion types of AgentV 4.x: an assertion whose type is not built in names a script
// found by convention, `.agentv/assertions/<type>.ts` (or .js, .mts, .mjs), usually written with
// `defineAssertion` from `@agentv/sdk`. It runs as a code judge: the payload on stdin, a
// {score, assertions} object on stdout.

var (
	// customDirs are the folders below `.agentv` searched for custom types, in order: every
	// `assertions` folder from the eval file's up to the repository root, then `graders`, ...
	customDirs = []string{"assertions", "graders", "judges"}
	customExts = []string{".ts", ".js", ".mts", ".mjs"} // tried in this order within a folder
	// customMeta are the keys of a custom assertion that are its own settings, not its config.
	customMeta = []string{"type", "name", "weight", "required", "min_score", "negate", "preprocessors"}
)

// customScript returns the absolute path of the script of custom type typ (kebab-cased), or ""
// with the folders searched.
func (l *Reader) customScript(typ string) (string, []string) {
	if typ == "" || typ == "." || typ == ".." || strings.ContainsAny(typ, `/\:`+"\x00") {
		return "", nil
	}
	if p, ok := l.custom[typ]; ok {
		return p, nil
	}
	var searched []string
	for _, sub := range customDirs {
		// Scripts run: a folder above the repository (outside the checkout) is never searched.
		for _, d := range upTo(l.Suite.Dir, l.Suite.RepoRoot) {
			dir := filepath.Join(d, ".agentv", sub)
			searched = append(searched, dir)
			for _, ext := range customExts {
				p := filepath.Join(dir, typ+ext)
				if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
					if l.custom == nil {
						l.custom = map[string]string{}
					}
					l.custom[typ] = p
					return p, nil
				}
			}
		}
	}
	return "", searched
}

// customAssertion rewrites assertion n of custom type typ into a code-grader entry: the script
// as its command, the keys that are not its own settings as its config, the type as its name.
func customAssertion(n *yaml.Node, typ, script string) *yaml.Node {
	out, cfg := Mapping(n), Mapping(n)
	for _, e := range MapEntries(n) {
		switch {
		case e.Key == "type":
			out.Content = append(out.Content, e.KeyNode, StrNode(e.Value, "code-grader"))
		case slices.Contains(customMeta, e.Key):
			out.Content = append(out.Content, e.KeyNode, e.Value)
		default:
			cfg.Content = append(cfg.Content, e.KeyNode, e.Value)
		}
	}
	if ValueOf(n, "name") == nil {
		out.Content = append(out.Content, StrNode(n, "name"), StrNode(n, typ))
	}
	out.Content = append(out.Content, StrNode(n, "command"), SeqNode(n, StrNode(n, script)))
	if len(cfg.Content) > 0 {
		out.Content = append(out.Content, StrNode(n, "config"), cfg)
	}
	return out
}

// unknownType is the error for an assertion type that is neither built in nor a custom script.
func (l *Reader) unknownType(written, typ string, searched []string) string {
	msg := fmt.Sprintf("unknown evaluator type %q%s: not a built-in type", written, DidYouMean(l.suggestType(written)))
	if len(searched) > 0 {
		msg += fmt.Sprintf(", and no custom assertion script %s.ts (or .js, .mts, .mjs) in the .agentv/assertions, .agentv/graders or .agentv/judges folder of %s or of a folder above it",
			typ, DisplayPath(l.Suite.Dir, l.Cwd))
	}
	return msg
}

func IsEvaluatorType(name string) bool {
	_, ok := LookupEvaluator(name)
	return ok
}
