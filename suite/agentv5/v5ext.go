package agentv5

import (
	"github.com/agentv/action/suite"
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
func (l *reader) v5Extensions(e *suite.Entry) bool {
	if e.Value.Kind != yaml.SequenceNode {
		l.Errorf(e.Value, suite.KindStructure, "", "%q must be a list of file://path/to/hook.ts:HOOK entries, got %s", "extensions", suite.KindName(e.Value))
		return false
	}
	byHook := map[string][]suite.Extension{}
	lines := map[string]int{}
	ok := true
	for i, it := range e.Value.Content {
		it = suite.Deref(it)
		where := "extensions[" + strconv.Itoa(i) + "]"
		switch {
		case it != nil && it.Kind == yaml.MappingNode && !v5AgentRules(it):
			l.Errorf(it, suite.KindStructure, "", "%s: a mapping entry must be {id: agentv:agent-rules, …}, the built-in extension; a module is written file://path/to/hook.ts:HOOK", where)
			ok = false
		case it != nil && it.Kind == yaml.MappingNode, suite.IsString(it) && strings.HasPrefix(strings.TrimSpace(it.Value), "agentv:agent-rules"):
			l.Errorf(it, suite.KindStructure, "", "%s: the built-in extension agentv:agent-rules is not supported yet: it stages skills, hooks, agents and rules files for AgentV's own agent providers, which agentv's targets do not read; copy the files into the workspace with a beforeAll extension or the environment's setup", where)
			ok = false
		case !suite.IsString(it):
			l.Errorf(it, suite.KindStructure, "", "%s must be a string file://path/to/hook.ts:HOOK, got %s", where, suite.Describe(it))
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
	for hook, dst := range map[string]**suite.Hook{"beforeAll": &ws.BeforeAll, "beforeEach": &ws.BeforeEach,
		"afterEach": &ws.AfterEach, "afterAll": &ws.AfterAll} {
		if xs := byHook[hook]; len(xs) > 0 {
			*dst = &suite.Hook{Line: lines[hook], Name: hook, Extensions: xs}
		}
	}
	return true
}

// v5Extension reads one `file://path:HOOK` entry: the path is the eval file's when relative,
// and must be a JavaScript or TypeScript module.
func (l *reader) v5Extension(it *yaml.Node, where string) (string, suite.Extension, bool) {
	raw := strings.TrimSpace(it.Value)
	if !strings.HasPrefix(raw, "file://") {
		l.Errorf(it, suite.KindStructure, "", "%s must start with file:// (file://path/to/hook.ts:beforeAll), got %q", where, it.Value)
		return "", suite.Extension{}, false
	}
	colon := strings.LastIndex(raw, ":")
	if colon <= len("file://") {
		l.Errorf(it, suite.KindStructure, "", "%s must name the hook after the path: file://path/to/hook.ts:beforeAll, got %q", where, it.Value)
		return "", suite.Extension{}, false
	}
	hook, file := raw[colon+1:], raw[len("file://"):colon]
	valid := false
	for _, h := range v5ExtensionHooks {
		valid = valid || h == hook
	}
	if !valid {
		l.Errorf(it, suite.KindStructure, "", "%s: hook %q must be one of %s", where, hook, strings.Join(v5ExtensionHooks, ", "))
		return "", suite.Extension{}, false
	}
	if file == "" {
		l.Errorf(it, suite.KindStructure, "", "%s must include a file path before :%s", where, hook)
		return "", suite.Extension{}, false
	}
	abs := suite.AbsPath(l.Suite.Dir, file)
	switch strings.ToLower(filepath.Ext(abs)) {
	case ".ts", ".mts", ".cts", ".js", ".mjs", ".cjs":
	default:
		l.Errorf(it, suite.KindStructure, "", "%s: %s is not a JavaScript or TypeScript module (.ts, .mts, .cts, .js, .mjs or .cjs)", where, file)
		return "", suite.Extension{}, false
	}
	if st, err := os.Stat(abs); err != nil || !st.Mode().IsRegular() {
		l.Errorf(it, suite.KindFile, "", "%s: extension file %s not found", where, suite.DisplayPath(abs, l.Cwd))
		return "", suite.Extension{}, false
	}
	_, line := l.Where(it.Line)
	return hook, suite.Extension{Module: abs, Line: line}, true
}

// v5AgentRules reports whether a mapping entry of `extensions` is {id: agentv:agent-rules, …}.
func v5AgentRules(m *yaml.Node) bool {
	for _, x := range suite.MapEntries(m) {
		if x.Key == "id" {
			return suite.IsString(x.Value) && x.Value.Value == "agentv:agent-rules"
		}
	}
	return false
}
