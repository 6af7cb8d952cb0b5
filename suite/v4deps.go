package suite

import (
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v4"
)

// Dependency failure policies of a 4.x test's `on_dependency_failure` (AgentV 4.42.4's values;
// skip is the default).
const (
	DependencySkip = "skip" // the test is not run: an error record says which dependency failed
	DependencyFail = "fail" // the same, worded as a failure
	DependencyRun  = "run"  // the test runs anyway
)

// V4Dependencies reads a test's `depends_on` and `on_dependency_failure` as AgentV 4.42.4
// does (packages/core/src/evaluation/yaml-parser.ts): a list, of which only the strings count,
// and skip, fail or run (anything else: the default, skip). Each setting it cannot use gets a
// warning, since 4.42.4 drops it without a word. It returns the string items' nodes.
func (l *Reader) V4Dependencies(f EntryList, id string, c *Case) []*yaml.Node {
	var deps []*yaml.Node
	if e := f.Get("depends_on"); e != nil && !IsNull(e.Value) {
		if v := Deref(e.Value); v.Kind != yaml.SequenceNode {
			l.Warnf(e.Value, KindIgnored, id, "%q must be a list of test ids, got %s (ignored, as AgentV 4.42.4 ignores it)", "depends_on", KindName(v))
		} else {
			for _, it := range v.Content {
				d := Deref(it)
				if !IsString(d) {
					l.Warnf(it, KindIgnored, id, "%q item must be a test id, got %s (ignored, as AgentV 4.42.4 ignores it)", "depends_on", DescribeValue(d))
					continue
				}
				c.DependsOn = append(c.DependsOn, d.Value)
				deps = append(deps, d)
			}
		}
	}
	if e := f.Get("on_dependency_failure"); e != nil && !IsNull(e.Value) {
		policies := []string{DependencySkip, DependencyFail, DependencyRun}
		if v := Deref(e.Value); v.Kind == yaml.ScalarNode && slices.Contains(policies, v.Value) {
			c.OnDependencyFailure = v.Value
		} else {
			l.Warnf(e.Value, KindIgnored, id, "%q must be skip, fail or run, got %s (the default, skip, applies, as in AgentV 4.42.4)", "on_dependency_failure", Describe(v))
		}
		if len(c.DependsOn) == 0 {
			l.Warnf(e.KeyNode, KindIgnored, id, "%q without %q does nothing", "on_dependency_failure", "depends_on")
		}
	}
	return deps
}

// jsonlDependencies warns about `depends_on` and `on_dependency_failure` on a line of a JSONL eval
// file: AgentV 4.42.4 does not read them there (packages/core/src/evaluation/loaders/
// jsonl-parser.ts builds its tests without them, line 306), so the test runs as if they were not
// written, here too. A JSONL file named by a YAML file's `tests:` is read as YAML tests, with them.
func (l *Reader) jsonlDependencies(f EntryList, id string) {
	for _, k := range []struct{ key, effect string }{
		{"depends_on", "the test runs without waiting for the tests it names"},
		{"on_dependency_failure", "the test runs whatever its dependencies did"},
	} {
		if e := f.Get(k.key); e != nil && !IsNull(e.Value) {
			l.Warnf(e.KeyNode, KindIgnored, id, "%q is not read in a JSONL eval file, as in AgentV 4.42.4: %s (name this file in a YAML file's %q to use it)", k.key, k.effect, "tests")
		}
	}
}

// CheckDependencies checks the `depends_on` graph of a 4.x file once all its tests are read,
// as AgentV 4.42.4 does before running any (orchestrator.ts, validateDependencyGraph): every id
// names a test of the file, no test depends on itself and there is no cycle. 4.42.4 then
// refuses the whole file; here each problem is an error at the id that causes it, that test
// is not loaded, nor (transitively) are the tests that depend on a test not loaded, and the
// rest of the file runs.
func (l *Reader) CheckDependencies(pos map[*Case][]*yaml.Node) {
	if len(pos) == 0 {
		return
	}
	byID := make(map[string]*Case, len(l.Suite.Cases))
	for _, c := range slices.Backward(l.Suite.Cases) { // the first of an id wins
		byID[c.ID] = c
	}
	bad := map[*Case]bool{}
	for _, c := range l.Suite.Cases {
		d := pos[c]
		if d == nil {
			continue
		}
		for i, dep := range c.DependsOn {
			switch {
			case dep == c.ID:
				l.Errorf(d[i], KindCase, c.ID, "test %q depends on itself%s", c.ID, NotLoaded(c.ID))
				bad[c] = true
			case byID[dep] == nil && !l.seenID(dep):
				l.Errorf(d[i], KindCase, c.ID, "depends_on %q: no test of this file has that id%s", dep, NotLoaded(c.ID))
				bad[c] = true
			}
		}
	}
	// Cycles: a depth-first walk; a test met again while on the path closes one.
	const (
		_ = iota
		onPath
		done
	)
	state := map[*Case]int{}
	var path []*Case
	var visit func(c *Case)
	visit = func(c *Case) {
		switch state[c] {
		case onPath:
			i := slices.Index(path, c)
			ids := make([]string, 0, len(path)-i+1)
			for _, p := range path[i:] {
				ids = append(ids, p.ID)
				bad[p] = true
			}
			ids = append(ids, c.ID)
			last := path[len(path)-1]
			at := pos[last][slices.Index(last.DependsOn, c.ID)]
			l.Errorf(at, KindCase, last.ID, "circular dependency: %s (the tests of the cycle are not loaded)", strings.Join(ids, " → "))
			return
		case done:
			return
		}
		state[c] = onPath
		path = append(path, c)
		for _, dep := range c.DependsOn {
			if dc := byID[dep]; dc != nil && dc != c {
				visit(dc)
			}
		}
		path = path[:len(path)-1]
		state[c] = done
	}
	for _, c := range l.Suite.Cases {
		visit(c)
	}
	// A test whose dependency is not loaded (here or by an error of its own) cannot run as
	// written: it is not loaded either, with the reason.
	for changed := true; changed; {
		changed = false
		for _, c := range l.Suite.Cases {
			if bad[c] || pos[c] == nil {
				continue
			}
			for i, dep := range c.DependsOn {
				if dc := byID[dep]; dc == nil && l.seenID(dep) || dc != nil && bad[dc] {
					l.Errorf(pos[c][i], KindCase, c.ID, "depends_on %q: that test is not loaded%s", dep, NotLoaded(c.ID))
					bad[c], changed = true, true
					break
				}
			}
		}
	}
	l.Suite.Cases = slices.DeleteFunc(l.Suite.Cases, func(c *Case) bool { return bad[c] })
	l.Suite.Dependencies = slices.ContainsFunc(l.Suite.Cases, func(c *Case) bool { return len(c.DependsOn) > 0 })
}

// seenID reports whether the file has a test with this id, loaded or not.
func (l *Reader) seenID(id string) bool {
	_, ok := l.IDs[id]
	return ok
}
