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
func (l *Reader) v4Workspace(e *Entry) {
	if e.Value.Kind == yaml.ScalarNode && !IsNull(e.Value) {
		l.Warnf(e.Value, KindIgnored, "", "a workspace file (%q) is not supported yet (ignored): write the workspace mapping in the eval file", e.Value.Value)
		return
	}
	es, ok := l.MappingEntries(e, "%q must be a mapping with template and hooks", "workspace")
	if !ok {
		return
	}
	ws := &Workspace{}
	for i := range es {
		x := &es[i]
		switch {
		case x.Key == "template":
			t := l.Scalar(x)
			if t == "" {
				continue
			}
			if st, err := os.Stat(AbsPath(l.Suite.Dir, t)); err != nil || !st.IsDir() {
				l.Errorf(x.Value, KindStructure, "", "workspace template %q is not a directory", x.Value.Value)
				continue
			}
			ws.Template = AbsPath(l.Suite.Dir, t)
		case x.Key == "hooks":
			l.v4Hooks(x, ws)
		case slices.Contains(v4WorkspaceLater, x.Key):
			l.Warnf(x.KeyNode, KindIgnored, "", "workspace %q is not supported yet (ignored)", x.Key)
		default:
			l.UnknownKey(*x, "in workspace", "", v4WorkspaceKeys)
		}
	}
	if *ws != (Workspace{}) {
		l.Suite.Workspace = ws
	}
}

// v4Hooks reads `hooks` into h (none with `enabled: false`).
func (l *Reader) v4Hooks(e *Entry, h *Workspace) {
	es, ok := l.MappingEntries(e, "workspace %q must be a mapping of hooks (before_all, before_each, after_each, after_all)", "hooks")
	if !ok {
		return
	}
	hooks := map[string]**Hook{"before_all": &h.BeforeAll, "before_each": &h.BeforeEach,
		"after_each": &h.AfterEach, "after_all": &h.AfterAll}
	enabled := true
	for i := range es {
		x := &es[i]
		switch dst := hooks[x.Key]; {
		case x.Key == "enabled" && (x.Value.Kind != yaml.ScalarNode || Classify(x.Value) != ScalarBool):
			l.Errorf(x.Value, KindStructure, "", "hooks %q must be true or false, got %s", "enabled", Describe(x.Value))
		case x.Key == "enabled":
			enabled = strings.EqualFold(x.Value.Value, "true")
		case dst != nil:
			*dst = l.v4Hook(x)
		default:
			l.UnknownKey(*x, "in workspace hooks", "", v4HookKeys)
		}
	}
	if !enabled {
		h.BeforeAll, h.BeforeEach, h.AfterEach, h.AfterAll = nil, nil, nil, nil
	}
}

// v4Hook reads one hook: `command` (a list, or a string split on white space; `script` is its
// old name), `cwd` (relative to the eval file) and `timeout_ms`.
func (l *Reader) v4Hook(e *Entry) *Hook {
	es, ok := l.MappingEntries(e, "hook %q must be a mapping with command", e.Key)
	if !ok {
		return nil
	}
	h := &Hook{Line: e.KeyNode.Line}
	f := EntryList(es)
	cmd := cmp.Or(f.Get("command"), f.Get("script"))
	for i := range es {
		x := &es[i]
		switch x.Key {
		case "command", "script":
		case "cwd":
			if c := l.Scalar(x); c != "" {
				h.Cwd = AbsPath(l.Suite.Dir, c)
			}
		case "timeout_ms":
			if v, ok := Number(x.Value); ok && v > 0 {
				h.Timeout = time.Duration(v * float64(time.Millisecond))
			} else {
				l.Errorf(x.Value, KindStructure, "", "hook %q must be a number of milliseconds above 0, got %s", "timeout_ms", Describe(x.Value))
			}
		default:
			l.UnknownKey(*x, "in hook "+e.Key, "", v4HookCommandKeys)
		}
	}
	switch {
	case cmd == nil || IsNull(cmd.Value):
		l.Errorf(e.KeyNode, KindStructure, "", "hook %q needs %q", e.Key, "command")
		return nil
	case cmd.Value.Kind == yaml.ScalarNode:
		h.Command = strings.Fields(cmd.Value.Value)
	default:
		h.Command = l.StringList(cmd, "")
	}
	if len(h.Command) == 0 {
		l.Errorf(cmd.Value, KindStructure, "", "hook %q: %q is empty", e.Key, "command")
		return nil
	}
	return h
}

// WorkspaceHooks reads a workspace's `hooks` mapping into ws as 4.x does (before_all,
// before_each, after_each, after_all with command, cwd and timeout_ms; `enabled`), for the
// front-ends that keep 4.x's workspace hooks.
func (l *Reader) WorkspaceHooks(e *Entry, ws *Workspace) { l.v4Hooks(e, ws) }
