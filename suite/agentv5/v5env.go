package agentv5

import (
	"encoding/json"
	"fmt"
	"github.com/agentv/action/suite"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"time"

	yaml "go.yaml.in/yaml/v4"

	"github.com/agentv/action/internal/safefile"
)

// Keys of a 5.x environment recipe (loaders/environment-recipe.ts at v5.3.1-next.1).
var (
	v5HostEnvKeys   = []string{"type", "workdir", "setup", "env"}
	v5DockerEnvKeys = []string{"type", "workdir", "context", "dockerfile", "image", "env", "resources", "mounts", "secrets", "setup"}
	v5EnvSetupKeys  = []string{"command", "cwd", "timeout_ms"}
	// v5EnvSetupHints are what 5.x says about setup keys it does not take.
	v5EnvSetupHints = map[string]string{
		"args":            "put the executable and its arguments in setup.command as a list, for example [bash, -lc, \"…\"]",
		"env":             "write the variables in the environment's env",
		"timeout_seconds": "write setup.timeout_ms, in milliseconds",
	}
)

// v5Recipe is a 5.x host environment: the directory the tests run in, its setup command and
// the variables that command gets.
type v5Recipe struct {
	at      *yaml.Node // where it is written (the mapping, or the file:// reference)
	what    string     // "the suite's environment", "test X's environment", for messages
	key     string     // tells two recipes apart, as 5.x compares them (sharedEnvironmentOwnerKey)
	workdir string
	setup   *suite.Hook
}

// v5EnvState collects the suite's environment and each test's, settled into one workspace
// once every test is read (v5SettleEnvironment).
type v5EnvState struct {
	suite *v5Recipe
	tests []v5TestEnv
	bad   bool // an environment could not be read: the file does not run anyway
}

// v5TestEnv is the environment of one test: its own, or nil for the suite's.
type v5TestEnv struct {
	id     string
	at     *yaml.Node
	recipe *v5Recipe
}

// v5Environment reads an `environment` value (location names it in messages): an inline
// recipe, or file://… of a YAML file holding one, whose relative paths are the file's
// (resolveEnvironmentRecipe). report gives each error; nil after one.
func (l *reader) v5Environment(v *yaml.Node, location string, report func(at *yaml.Node, format string, args ...any)) *v5Recipe {
	v = suite.Deref(v)
	base := l.Suite.Dir
	ref := ""
	at := v
	if v != nil && v.Kind == yaml.ScalarNode && !suite.IsNull(v) {
		ref = strings.TrimSpace(v.Value)
		if !strings.HasPrefix(ref, "file://") {
			report(v, "%s must be a recipe mapping (type: host, workdir, setup, env) or a file://… reference to a YAML file holding one, got %q", location, v.Value)
			return nil
		}
		abs := suite.AbsPath(l.Suite.Dir, strings.TrimPrefix(ref, "file://"))
		m := l.v5RecipeFile(v, abs, location, report)
		if m == nil {
			return nil
		}
		v, base = m, filepath.Dir(abs)
	}
	if v == nil || v.Kind != yaml.MappingNode {
		report(at, "%s must be a mapping with type: host and workdir, got %s", location, suite.KindName(v))
		return nil
	}
	es := suite.MapEntries(v)
	f := suite.EntryList(es)
	typ := f.Get("type")
	switch {
	case typ == nil:
		report(v, "%s needs %q: host", location, "type")
		return nil
	case typ.Value.Kind == yaml.ScalarNode && typ.Value.Value == "docker":
		report(typ.Value, "%s type %q is not supported: agentv runs the target and graders on this machine and does not build, start or run commands in containers; use type: host, or run agentv itself inside the image", location, "docker")
		return nil
	case typ.Value.Kind != yaml.ScalarNode || typ.Value.Value != "host":
		report(typ.Value, "%s type must be %q or %q, got %s", location, "host", "docker", suite.Describe(typ.Value))
		return nil
	}
	r := &v5Recipe{at: at, what: location}
	ok := true
	for _, x := range es {
		switch x.Key {
		case "type":
		case "workdir":
			if !suite.IsString(x.Value) || strings.TrimSpace(x.Value.Value) == "" {
				report(x.Value, "%s workdir must be a path (a non-empty string), got %s", location, suite.Describe(x.Value))
				ok = false
				continue
			}
			r.workdir = suite.AbsPath(base, strings.TrimSpace(x.Value.Value))
		case "setup", "env":
		default:
			if slices.Contains(v5DockerEnvKeys, x.Key) {
				report(x.KeyNode, "%s %q is only read for type: docker, which agentv does not run", location, x.Key)
			} else {
				report(x.KeyNode, "%s", strings.Replace(suite.UnknownKeyMsg(x.Key, "in "+location, v5HostEnvKeys), " (ignored)", "", 1))
			}
			ok = false
		}
	}
	if f.Get("workdir") == nil {
		report(v, "%s needs %q: the directory the tests run in", location, "workdir")
		ok = false
	}
	env, good := l.v5EnvVars(f.Get("env"), location, report)
	ok = ok && good
	if s := f.Get("setup"); s != nil {
		r.setup = l.v5EnvSetup(s, location, base, r.workdir, report)
		ok = ok && r.setup != nil
	}
	if !ok {
		return nil
	}
	if r.setup != nil {
		r.setup.Env = append(env, "AGENTV_ENVIRONMENT_WORKDIR="+r.workdir)
		// What 5.3.1-next.1 writes on the setup's stdin (host.ts, setupPayload), indented as
		// its JSON.stringify(…, null, 2).
		r.setup.Stdin, _ = json.MarshalIndent(map[string]any{"environment": map[string]string{"type": "host", "workdir": r.workdir}}, "", "  ")
	}
	var setup []any
	if h := r.setup; h != nil {
		setup = []any{h.Command, h.Cwd, h.Timeout, h.Env}
	}
	key, _ := json.Marshal([]any{ref, base, r.workdir, setup})
	r.key = string(key)
	return r
}

// v5RecipeFile reads the YAML mapping of a file:// environment recipe, {{ env.NAME }} replaced;
// its nodes name the file in later messages.
func (l *reader) v5RecipeFile(at *yaml.Node, abs, location string, report func(at *yaml.Node, format string, args ...any)) *yaml.Node {
	src, err := safefile.ReadFile(abs, safefile.LimitEvalFile)
	if err != nil {
		report(at, "%s recipe file %s could not be read: %s", location, suite.DisplayPath(abs, l.Cwd), suite.ErrText(err))
		return nil
	}
	restore := l.InFile(abs)
	l.Src = src
	doc := l.ParseYAML(src)
	restore()
	if doc == nil {
		return nil
	}
	t := &suite.IncludeFile{Abs: abs, Display: suite.DisplayPath(abs, l.Cwd), Num: len(l.Includes) + 1}
	l.Includes = append(l.Includes, t)
	suite.EncodeLines(doc, t.Num*suite.IncludeLineBase, map[*yaml.Node]bool{})
	l.v5Env(doc, map[*yaml.Node]bool{})
	m := l.RootOf(doc, yaml.MappingNode, func(got string) string {
		return location + " recipe file must hold a YAML mapping, got " + got
	})
	if m != nil && suite.HasKey(m, "environment") {
		report(m, "%s recipe file %s must hold the recipe itself (type, workdir, …), not a mapping under %q", location, suite.DisplayPath(abs, l.Cwd), "environment")
		return nil
	}
	return m
}

// v5EnvVars reads a recipe's `env`: names to string values, as NAME=value entries.
func (l *reader) v5EnvVars(e *suite.Entry, location string, report func(at *yaml.Node, format string, args ...any)) ([]string, bool) {
	if e == nil {
		return nil, true
	}
	if e.Value.Kind != yaml.MappingNode {
		report(e.Value, "%s env must be a mapping of variable names to strings, got %s", location, suite.KindName(e.Value))
		return nil, false
	}
	var env []string
	ok := true
	for _, x := range suite.MapEntries(e.Value) {
		if !suite.IsString(x.Value) {
			report(x.Value, "%s env %s must be a string (quote it), got %s", location, x.Key, suite.Describe(x.Value))
			ok = false
			continue
		}
		if x.Key == "" || strings.ContainsAny(x.Key, "=\x00") {
			report(x.KeyNode, "%s env: %q is not a variable name", location, x.Key)
			ok = false
			continue
		}
		env = append(env, x.Key+"="+x.Value.Value)
	}
	return env, ok
}

// v5EnvSetup reads a recipe's `setup`: command (an argv list), cwd (relative to the workdir;
// without it the recipe's directory) and timeout_ms (host.ts, setupCwd).
func (l *reader) v5EnvSetup(e *suite.Entry, location, base, workdir string, report func(at *yaml.Node, format string, args ...any)) *suite.Hook {
	if e.Value.Kind != yaml.MappingNode {
		report(e.Value, "%s setup must be a mapping with command, got %s", location, suite.KindName(e.Value))
		return nil
	}
	h := &suite.Hook{Line: e.KeyNode.Line, Cwd: base}
	ok := true
	for _, x := range suite.MapEntries(e.Value) {
		switch x.Key {
		case "command":
			if x.Value.Kind != yaml.SequenceNode || len(x.Value.Content) == 0 {
				report(x.Value, "%s setup.command must be a non-empty list: the program, then its arguments (for shell syntax: [bash, -lc, \"…\"]), got %s", location, suite.Describe(x.Value))
				ok = false
				continue
			}
			for _, a := range x.Value.Content {
				if !suite.IsString(a) || strings.TrimSpace(a.Value) == "" {
					report(a, "%s setup.command items must be non-empty strings, got %s", location, suite.Describe(a))
					ok = false
					continue
				}
				h.Command = append(h.Command, a.Value)
			}
		case "cwd":
			if !suite.IsString(x.Value) || strings.TrimSpace(x.Value.Value) == "" {
				report(x.Value, "%s setup.cwd must be a path (a non-empty string), got %s", location, suite.Describe(x.Value))
				ok = false
				continue
			}
			h.Cwd = suite.AbsPath(workdir, strings.TrimSpace(x.Value.Value))
		case "timeout_ms":
			if v, num := suite.Number(x.Value); !num || v <= 0 || math.IsInf(v, 0) {
				report(x.Value, "%s setup.timeout_ms must be a number of milliseconds above 0, got %s", location, suite.Describe(x.Value))
				ok = false
			} else {
				h.Timeout = time.Duration(v * float64(time.Millisecond))
			}
		default:
			if hint, known := v5EnvSetupHints[x.Key]; known {
				report(x.KeyNode, "%s setup.%s is not supported: %s", location, x.Key, hint)
			} else {
				report(x.KeyNode, "%s", strings.Replace(suite.UnknownKeyMsg(x.Key, "in "+location+" setup", v5EnvSetupKeys), " (ignored)", "", 1))
			}
			ok = false
		}
	}
	if len(h.Command) == 0 && ok {
		report(e.KeyNode, "%s setup needs %q", location, "command")
		return nil
	}
	if !ok {
		return nil
	}
	return h
}

// v5TestEnvironment reads a test's `environment` (rendered with its vars), which replaces the
// suite's for that test; false after an error.
func (l *reader) v5TestEnvironment(sx *v5Suite, id string, e *suite.Entry, render func(*yaml.Node) *yaml.Node, fail func(at *yaml.Node, format string, args ...any)) bool {
	te := v5TestEnv{id: id}
	if e != nil {
		te.at = e.KeyNode
		te.recipe = l.v5Environment(render(e.Value), fmt.Sprintf("test %q environment", id), fail)
		if te.recipe == nil {
			sx.env.bad = true
			return false
		}
	}
	sx.env.tests = append(sx.env.tests, te)
	return true
}

// v5SettleEnvironment turns the environments read into the suite's workspace. AgentV
// 5.3.1-next.1 prepares one host environment per eval file and runs the tests that have it
// there, the others outside it (workspace/setup.ts, selectSuiteHostEnvironment,
// caseUsesSharedWorkspaceSetup); two different environments stop its run. A suite here has
// one workspace for all its tests, so a file whose tests do not all share one environment is
// an error.
func (l *reader) v5SettleEnvironment(sx *v5Suite) {
	st := &sx.env
	if st.bad {
		return
	}
	var chosen *v5Recipe
	without, missing := "", false
	for _, t := range st.tests {
		r := t.recipe
		if r == nil {
			r = st.suite
		}
		if r == nil {
			if !missing {
				without, missing = t.id, true
			}
			continue
		}
		if chosen == nil {
			chosen = r
			continue
		}
		if r.key != chosen.key {
			l.Errorf(r.at, suite.KindStructure, t.id, "%s differs from %s (line %d): AgentV 5.3.1-next.1 runs one host environment per eval file and stops a run that has two; give these tests the same environment or put them in separate eval files",
				r.what, chosen.what, l.lineOf(chosen.at))
			return
		}
	}
	if chosen == nil {
		chosen = st.suite
	}
	if chosen == nil {
		// Extensions alone: AgentV 5.3.1-next.1 runs each test in an empty folder of its own
		// (workspace/setup.ts, prepareEvalCaseWorkspace), beforeAll and afterAll in a shared one.
		if ws := l.Suite.Workspace; ws != nil {
			ws.PerCase = true
		}
		return
	}
	if missing {
		l.Errorf(chosen.at, suite.KindStructure, "", "%s is given to some tests only (test %q has none): AgentV 5.3.1-next.1 runs a test without one outside the environment's workdir, and agentv gives a suite one workspace for all its tests, which is not supported yet; give every test the environment (at the top level) or put the others in another eval file",
			chosen.what, without)
		return
	}
	ws := l.v5Workspace()
	ws.Workdir, ws.Setup = chosen.workdir, chosen.setup
}

// lineOf is the line of n in its own file.
func (l *reader) lineOf(n *yaml.Node) int {
	if n == nil {
		return 0
	}
	_, line := l.Where(n.Line)
	return line
}

// v5Workspace is the suite's workspace, made on first use.
func (l *reader) v5Workspace() *suite.Workspace {
	if l.Suite.Workspace == nil {
		l.Suite.Workspace = &suite.Workspace{}
	}
	return l.Suite.Workspace
}
