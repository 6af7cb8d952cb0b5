package migrate

import (
	"regexp"
	"strings"

	yaml "go.yaml.in/yaml/v4"
)

// envRef is a 4.x environment reference, ${{ NAME }}.
var envRef = regexp.MustCompile(`\$\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}`)

// targetsFile rewrites a targets file: each target's name becomes id (judge_target:
// grader_target) and ${{ NAME }} becomes {{ env.NAME }}.
func (m *migration) targetsFile() {
	list := deref(get(m.root, "targets"))
	if list == nil || list.Kind != yaml.SequenceNode {
		m.human(keyNode(m.root, "targets"), false, "targets: left as it is: not a list of targets")
		return
	}
	for _, t := range list.Content {
		if t.Kind != yaml.MappingNode {
			continue
		}
		if !has(t, "id") && !m.renameKey(t, "name", "id", "") {
			m.renameKey(t, "label", "id", "")
		}
		m.renameKey(t, "judge_target", "grader_target", "")
		// 2.5's cli template is 4.x's and 5.x's command.
		if p, _ := scalar(get(t, "provider")); p == "cli" {
			m.renameKey(t, "command_template", "command", "")
			if hc := deref(get(t, "healthcheck")); hc != nil && hc.Kind == yaml.MappingNode {
				m.renameKey(hc, "command_template", "command", "healthcheck.")
			}
		}
		if kn := keyNode(t, "use_target"); kn != nil {
			m.human(kn, false, "use_target: left as it is; a 5.x target names its own %q", "provider")
		}
		if kn := keyNode(t, "workspace_template"); kn != nil {
			m.human(kn, false, "workspace_template: left as it is; 5.x sets a testbed with the eval file's environment (workdir, setup)")
		}
	}
	m.rewriteEnvRefs(m.root)
}

// rewriteEnvRefs turns every ${{ NAME }} in a string value into {{ env.NAME }}.
func (m *migration) rewriteEnvRefs(root *yaml.Node) {
	walk(root, func(n *yaml.Node) {
		if n.Kind != yaml.ScalarNode || !envRef.MatchString(n.Value) {
			return
		}
		// The note names the references only: the rest of the value may be a secret.
		var refs []string
		for _, sub := range envRef.FindAllStringSubmatch(n.Value, -1) {
			refs = append(refs, "${{ "+sub[1]+" }} → {{ env."+sub[1]+" }}")
		}
		n.Value = envRef.ReplaceAllString(n.Value, "{{ env.$1 }}")
		if n.Style == 0 || n.Style&yaml.FlowStyle != 0 {
			// Plain "{{ ... }}" would read as a flow mapping.
			n.Style = yaml.DoubleQuotedStyle
		}
		n.Tag = "!!str"
		m.did(n, "%s", strings.Join(refs, ", "))
	})
}

// walk calls f on every node under n once (anchors reach nodes twice).
func walk(n *yaml.Node, f func(*yaml.Node)) {
	seen := map[*yaml.Node]bool{}
	var rec func(n *yaml.Node)
	rec = func(n *yaml.Node) {
		if n == nil || seen[n] {
			return
		}
		seen[n] = true
		f(n)
		for _, c := range n.Content {
			rec(c)
		}
	}
	rec(n)
}
