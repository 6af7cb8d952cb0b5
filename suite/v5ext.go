package suite

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v4"
)

// v5ExtensionHooks are the lifecycle hooks a 5.x extension may name, with the workspace hook
// each becomes.
var v5ExtensionHooks = []string{"beforeAll", "beforeEach", "afterEach", "afterAll"}

// v5Extensions reads the top-level `extensions` (yaml-parser.ts, parseExtensions at
// v5.3.1-next.1): each `file://path/hook.ts:HOOK` calls that module's exported function HOOK at
// that point of the run, in the order written. They become the suite's workspace hooks, run by
// the runner as commands of the project's JavaScript runtime (see workspace/extension.mjs).
func (l *Reader) v5Extensions(e *Entry) bool {
	if e.Value.Kind != yaml.SequenceNode {
		l.Errorf(e.Value, KindStructure, "", "%q must be a list of file://path/to/hook.ts:HOOK entries, got %s", "extensions", KindName(e.Value))
		return false
	}
	byHook := map[string][]Extension{}
	lines := map[string]int{}
	ok := true
	for i, it := range e.Value.Content {
		it = Deref(it)
		where := "extensions[" + strconv.Itoa(i) + "]"
		switch {
		case it != nil && it.Kind == yaml.MappingNode && !v5AgentRules(it):
			l.Errorf(it, KindStructure, "", "%s: a mapping entry must be {id: agentv:agent-rules, …}, the built-in extension; a module is written file://path/to/hook.ts:HOOK", where)
			ok = false
		case it != nil && it.Kind == yaml.MappingNode, IsString(it) && strings.HasPrefix(strings.TrimSpace(it.Value), "agentv:agent-rules"):
			l.Errorf(it, KindStructure, "", "%s: the built-in extension agentv:agent-rules is not supported yet: it stages skills, hooks, agents and rules files for AgentV's own agent providers, which agentv's targets do not read; copy the files into the workspace with a beforeAll extension or the environment's setup", where)
			ok = false
		case !IsString(it):
			l.Errorf(it, KindStructure, "", "%s must be a string file://path/to/hook.ts:HOOK, got %s", where, Describe(it))
			ok = false
		default:
			hook, x, good := l.v5Extension(it, where)
			if !good {
				ok = false
				continue
			}
			if _, seen := lines[hook]; !seen {
				lines[hook] = it.Line
			}
			byHook[hook] = append(byHook[hook], x)
		}
	}
	if !ok || len(byHook) == 0 {
		return ok
	}
	ws := l.v5Workspace()
	for hook, dst := range map[string]**Hook{"beforeAll": &ws.BeforeAll, "beforeEach": &ws.BeforeEach,
		"afterEach": &ws.AfterEach, "afterAll": &ws.AfterAll} {
		if xs := byHook[hook]; len(xs) > 0 {
			*dst = &Hook{Line: lines[hook], Name: hook, Extensions: xs}
		}
	}
	return true
}

// v5Extension reads one `file://path:HOOK` entry: the path is the eval file's when relative,
// and must be a JavaScript or TypeScript module.
func (l *Reader) v5Extension(it *yaml.Node, where string) (string, Extension, bool) {
	raw := strings.TrimSpace(it.Value)
	if !strings.HasPrefix(raw, "file://") {
		l.Errorf(it, KindStructure, "", "%s must start with file:// (file://path/to/hook.ts:beforeAll), got %q", where, it.Value)
		return "", Extension{}, false
	}
	colon := strings.LastIndex(raw, ":")
	if colon <= len("file://") {
		l.Errorf(it, KindStructure, "", "%s must name the hook after the path: file://path/to/hook.ts:beforeAll, got %q", where, it.Value)
		return "", Extension{}, false
	}
	hook, file := raw[colon+1:], raw[len("file://"):colon]
	valid := false
	for _, h := range v5ExtensionHooks {
		valid = valid || h == hook
	}
	if !valid {
		l.Errorf(it, KindStructure, "", "%s: hook %q must be one of %s", where, hook, strings.Join(v5ExtensionHooks, ", "))
		return "", Extension{}, false
	}
	if file == "" {
		l.Errorf(it, KindStructure, "", "%s must include a file path before :%s", where, hook)
		return "", Extension{}, false
	}
	abs := AbsPath(l.Suite.Dir, file)
	switch strings.ToLower(filepath.Ext(abs)) {
	case ".ts", ".mts", ".cts", ".js", ".mjs", ".cjs":
	default:
		l.Errorf(it, KindStructure, "", "%s: %s is not a JavaScript or TypeScript module (.ts, .mts, .cts, .js, .mjs or .cjs)", where, file)
		return "", Extension{}, false
	}
	if st, err := os.Stat(abs); err != nil || !st.Mode().IsRegular() {
		l.Errorf(it, KindFile, "", "%s: extension file %s not found", where, DisplayPath(abs, l.Cwd))
		return "", Extension{}, false
	}
	_, line := l.Where(it.Line)
	return hook, Extension{Module: abs, Line: line}, true
}

// v5AgentRules reports whether a mapping entry of `extensions` is {id: agentv:agent-rules, …}.
func v5AgentRules(m *yaml.Node) bool {
	for _, x := range MapEntries(m) {
		if x.Key == "id" {
			return IsString(x.Value) && x.Value.Value == "agentv:agent-rules"
		}
	}
	return false
}
