package agentv5

import (
	"github.com/agentv/action/suite"
	yaml "go.yaml.in/yaml/v4"
)

// v5MaxVarRows bounds the runs the list vars of one test may make (their product), so a few
// long lists cannot make a file of millions of tests.
const v5MaxVarRows = 10000

// v5VarRows splits a test's vars into one set per run, as 5.x's expandArrayVarCases: a var
// whose value is a list that is empty or starts with a string takes each of its values in
// turn, several such vars every combination (the first var's values outermost). Other vars,
// a list of numbers among them, keep their value. rows is [vars] when no var is such a list;
// list is the first such var (nil if none). An empty list makes no run at all.
func (l *reader) v5VarRows(vars *yaml.Node, fail func(at *yaml.Node, format string, args ...any)) (rows []*yaml.Node, list *suite.Entry) {
	rows = []*yaml.Node{vars}
	for _, x := range suite.MapEntries(vars) {
		v := suite.Deref(x.Value)
		if v == nil || v.Kind != yaml.SequenceNode || (len(v.Content) > 0 && !suite.IsString(suite.Deref(v.Content[0]))) {
			continue
		}
		if list == nil {
			list = &x
		}
		if len(rows)*len(v.Content) > v5MaxVarRows {
			fail(x.KeyNode, "var %q: the list vars of this test make more than %d runs of it", x.Key, v5MaxVarRows)
			return rows[:1], list
		}
		next := make([]*yaml.Node, 0, len(rows)*len(v.Content))
		for _, r := range rows {
			for _, item := range v.Content {
				next = append(next, replaceOrAdd(r, x.KeyNode, item))
			}
		}
		rows = next
	}
	return rows, list
}

// v5RenderID is a test's id rendered with one run's vars ("" when it cannot be rendered).
func v5RenderID(id *yaml.Node, vars *yaml.Node) string {
	ok := true
	r := &v5Renderer{vars: vars, bad: func(*yaml.Node, string) { ok = false }, budget: v5RenderBudget}
	out := r.render(id, 0)
	if !ok || !suite.IsString(out) {
		return ""
	}
	return out.Value
}
