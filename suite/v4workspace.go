package suite

import (
	"cmp"
	"os"
	"slices"
	"strings"
	"time"

	yaml "go.yaml.in/yaml/v4"
)

// Keys of a 4.x `workspace`, and those read but not supported yet.
var (
	v4WorkspaceKeys   = []string{"template", "hooks", "isolation", "repos", "mode", "path", "docker", "env"}
	v4WorkspaceLater  = []string{"isolation", "repos", "mode", "path", "docker", "env"}
	v4HookKeys        = []string{"enabled", "before_all", "before_each", "after_each", "after_all"}
	v4HookCommandKeys = []string{"command", "script", "cwd", "timeout_ms"}
)

// v4Workspace reads the suite's `workspace`: a template directory (relative to the eval file)
// and its before_all, before_each, after_each and after_all hooks. The other keys of 4.x are
// warned about and left alone.
func (l *loader) v4Workspace(e *kv) {
	if e.v.Kind == yaml.ScalarNode && !isNull(e.v) {
		l.warnf(e.v, KindIgnored, "", "a workspace file (%q) is not supported yet (ignored): write the workspace mapping in the eval file", e.v.Value)
		return
	}
	es, ok := l.mappingEntries(e, "%q must be a mapping with template and hooks", "workspace")
	if !ok {
		return
	}
	ws := &Workspace{}
	for i := range es {
		x := &es[i]
		switch {
		case x.key == "template":
			t := l.scalar(x)
			if t == "" {
				continue
			}
			if st, err := os.Stat(absPath(l.s.Dir, t)); err != nil || !st.IsDir() {
				l.errorf(x.v, KindStructure, "", "workspace template %q is not a directory", x.v.Value)
				continue
			}
			ws.Template = absPath(l.s.Dir, t)
		case x.key == "hooks":
			l.v4Hooks(x, ws)
		case slices.Contains(v4WorkspaceLater, x.key):
			l.warnf(x.kn, KindIgnored, "", "workspace %q is not supported yet (ignored)", x.key)
		default:
			l.unknownKey(*x, "in workspace", "", v4WorkspaceKeys)
		}
	}
	if *ws != (Workspace{}) {
		l.s.Workspace = ws
	}
}

// v4Hooks reads `hooks` into h (none with `enabled: false`).
func (l *loader) v4Hooks(e *kv, h *Workspace) {
	es, ok := l.mappingEntries(e, "workspace %q must be a mapping of hooks (before_all, before_each, after_each, after_all)", "hooks")
	if !ok {
		return
	}
	hooks := map[string]**Hook{"before_all": &h.BeforeAll, "before_each": &h.BeforeEach,
		"after_each": &h.AfterEach, "after_all": &h.AfterAll}
	enabled := true
	for i := range es {
		x := &es[i]
		switch dst := hooks[x.key]; {
		case x.key == "enabled" && (x.v.Kind != yaml.ScalarNode || classify(x.v) != scalarBool):
			l.errorf(x.v, KindStructure, "", "hooks %q must be true or false, got %s", "enabled", describe(x.v))
		case x.key == "enabled":
			enabled = strings.EqualFold(x.v.Value, "true")
		case dst != nil:
			*dst = l.v4Hook(x)
		default:
			l.unknownKey(*x, "in workspace hooks", "", v4HookKeys)
		}
	}
	if !enabled {
		h.BeforeAll, h.BeforeEach, h.AfterEach, h.AfterAll = nil, nil, nil, nil
	}
}

// v4Hook reads one hook: `command` (a list, or a string split on white space; `script` is its
// old name), `cwd` (relative to the eval file) and `timeout_ms`.
func (l *loader) v4Hook(e *kv) *Hook {
	es, ok := l.mappingEntries(e, "hook %q must be a mapping with command", e.key)
	if !ok {
		return nil
	}
	h := &Hook{Line: e.kn.Line}
	f := kvs(es)
	cmd := cmp.Or(f.get("command"), f.get("script"))
	for i := range es {
		x := &es[i]
		switch x.key {
		case "command", "script":
		case "cwd":
			if c := l.scalar(x); c != "" {
				h.Cwd = absPath(l.s.Dir, c)
			}
		case "timeout_ms":
			if v, ok := number(x.v); ok && v > 0 {
				h.Timeout = time.Duration(v * float64(time.Millisecond))
			} else {
				l.errorf(x.v, KindStructure, "", "hook %q must be a number of milliseconds above 0, got %s", "timeout_ms", describe(x.v))
			}
		default:
			l.unknownKey(*x, "in hook "+e.key, "", v4HookCommandKeys)
		}
	}
	switch {
	case cmd == nil || isNull(cmd.v):
		l.errorf(e.kn, KindStructure, "", "hook %q needs %q", e.key, "command")
		return nil
	case cmd.v.Kind == yaml.ScalarNode:
		h.Command = strings.Fields(cmd.v.Value)
	default:
		h.Command = l.stringList(cmd, "")
	}
	if len(h.Command) == 0 {
		l.errorf(cmd.v, KindStructure, "", "hook %q: %q is empty", e.key, "command")
		return nil
	}
	return h
}
