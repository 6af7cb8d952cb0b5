package agentv5

import (
	"path/filepath"
	"strings"

	"github.com/agentv/action/suite"

	yaml "go.yaml.in/yaml/v4"
)

// v5WorkspaceRemoved are the `workspace` keys 5.3.1-next.1 refuses, with its advice
// (yaml-parser.ts, parseWorkspaceConfig).
var v5WorkspaceRemoved = map[string]string{
	"static_path": "give an existing folder with --workspace-path",
	"static":      "give an existing folder with --workspace-path",
	"path":        "give an existing folder with --workspace-path",
	"pool":        `use "environment" for a portable testbed`,
	"mode":        `use "environment" for a portable testbed`,
	"template":    "use environment.workdir and environment.setup",
	"repos":       "clone the repositories in environment.setup.command",
	"docker":      "use environment with type: docker",
	"scope":       `use "environment" at the top level or in a test`,
	"isolation":   `use "environment" at the top level or in a test`,
}

// v5SuiteWorkspace reads the top-level `workspace`, inline or a file (relative to the eval
// file): 5.x keeps only its command hooks and `env` (parseWorkspaceConfig). The hooks run
// as 4.x's in the suite's workspace: the environment's workdir, else an empty folder
// (workspace/setup.ts, prepareSharedWorkspaceSetup); v5SettleWorkspace adds them to it.
func (l *reader) v5SuiteWorkspace(sx *v5Suite, e *suite.Entry) bool {
	m := e.Value
	if suite.IsNull(m) {
		return true
	}
	base := "" // the workspace file's folder, which its relative cwd values are in
	if m.Kind == yaml.ScalarNode {
		rel := strings.TrimPrefix(strings.TrimSpace(m.Value), "file://")
		if m = l.v5ReadMapping(e.Value, rel, "workspace"); m == nil {
			return false
		}
		if r := l.Resolve(rel, false); r.Abs != "" {
			base = filepath.Dir(r.Abs)
		}
		if suite.HasKey(m, "workspace") {
			l.Errorf(m, suite.KindStructure, "", "workspace file %q holds a %q mapping: write the workspace's keys at its top level", rel, "workspace")
			return false
		}
	}
	if m.Kind != yaml.MappingNode {
		l.Errorf(m, suite.KindStructure, "", "%q must be a mapping with hooks, or a workspace file, got %s", "workspace", suite.KindName(m))
		return false
	}
	ok := true
	ws := &suite.Workspace{}
	for _, x := range suite.MapEntries(m) {
		switch hint, removed := v5WorkspaceRemoved[x.Key]; {
		case removed:
			l.Errorf(x.KeyNode, suite.KindStructure, "", "workspace %q has been removed in AgentV 5.x: %s", x.Key, hint)
			ok = false
		case x.Key == "hooks":
			h, good := l.v5Hooks(x, base)
			ok = good && ok
			if h != nil {
				l.WorkspaceHooks(&suite.Entry{Key: x.Key, KeyNode: x.KeyNode, Value: h}, ws)
			}
		case x.Key == "env":
			// Preflight checks of required commands and Python modules before any test.
			l.Errorf(x.KeyNode, suite.KindStructure, "", "workspace %q (required_commands, required_python_modules) is not supported yet: check the commands in environment.setup", x.Key)
			ok = false
		default:
			l.UnknownKey(x, "in workspace", "", []string{"hooks", "env"})
		}
	}
	if ok && (ws.BeforeAll != nil || ws.BeforeEach != nil || ws.AfterEach != nil || ws.AfterAll != nil) {
		sx.hooks = ws
		sx.hooksAt = e.KeyNode
	}
	return ok
}

// v5Hooks checks a workspace's `hooks` for what 5.x refuses or ignores and returns them as
// 4.x reads them: `script` is an error; `reset` is not supported (ignored); a hook without
// `command` does nothing (parseWorkspaceHookConfig). A relative cwd of a workspace file is in
// base, the file's folder, when base is not "" (resolveWorkspaceConfig).
func (l *reader) v5Hooks(e suite.Entry, base string) (*yaml.Node, bool) {
	if e.Value.Kind != yaml.MappingNode {
		return e.Value, true // WorkspaceHooks says what is wrong
	}
	out := suite.Mapping(e.Value)
	ok := true
	for _, x := range suite.MapEntries(e.Value) {
		h := suite.Deref(x.Value)
		if x.Key == "enabled" || h == nil || h.Kind != yaml.MappingNode {
			out.Content = append(out.Content, x.KeyNode, x.Value)
			continue
		}
		kept := suite.Mapping(h)
		for _, y := range suite.MapEntries(h) {
			switch y.Key {
			case "script":
				l.Errorf(y.KeyNode, suite.KindStructure, "", "hook %q: %q has been removed in AgentV 5.x: write %q", x.Key, y.Key, "command")
				ok = false
			case "reset":
				l.Warnf(y.KeyNode, suite.KindIgnored, "", "hook %q: %q is not supported yet (ignored)", x.Key, y.Key)
			case "cwd":
				v := y.Value
				if c := suite.Deref(v); base != "" && c != nil && suite.IsString(c) && c.Value != "" && !filepath.IsAbs(c.Value) {
					v = suite.StrNode(c, filepath.Join(base, c.Value))
				}
				kept.Content = append(kept.Content, y.KeyNode, v)
			default:
				kept.Content = append(kept.Content, y.KeyNode, y.Value)
			}
		}
		if !suite.HasKey(kept, "command") {
			continue // 5.x runs nothing for it
		}
		out.Content = append(out.Content, x.KeyNode, kept)
	}
	return out, ok
}

// v5SettleWorkspace adds the top-level workspace's hooks to the suite's workspace, after the
// environment and extensions have made it. A hook that an extension also fills is refused:
// agentv runs one command per hook.
func (l *reader) v5SettleWorkspace(sx *v5Suite) {
	if sx.hooks == nil {
		return
	}
	ws := l.v5Workspace()
	for _, p := range []struct {
		name     string
		dst, src **suite.Hook
	}{{"before_all", &ws.BeforeAll, &sx.hooks.BeforeAll}, {"before_each", &ws.BeforeEach, &sx.hooks.BeforeEach},
		{"after_each", &ws.AfterEach, &sx.hooks.AfterEach}, {"after_all", &ws.AfterAll, &sx.hooks.AfterAll}} {
		switch {
		case *p.src == nil:
		case *p.dst != nil:
			l.Errorf(sx.hooksAt, suite.KindStructure, "", "workspace hook %q beside an extension of the same hook is not supported yet: move the command into the extension", p.name)
		default:
			*p.dst = *p.src
		}
	}
}
