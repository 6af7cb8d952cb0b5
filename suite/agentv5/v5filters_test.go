package agentv5

import (
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentv/action/suite"
	"github.com/agentv/action/suite/internal/suitetest"
)

// TestV5NunjucksFilters loads files whose test fields use nunjucks_filters: the rendered case
// ids show what the filters returned; every filter that cannot run is a positioned error.
func TestV5NunjucksFilters(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("node"); err != nil {
		if _, err := exec.LookPath("bun"); err != nil {
			t.Skip("no JavaScript runtime (node or bun) to run the filters")
		}
	}
	files := map[string]string{
		"f/low.js":     "export default (v) => String(v).toLowerCase();\n",
		"f/named.mjs":  "export function dash(v) { return String(v).replaceAll(' ', '-'); }\nexport const notfn = 1;\n",
		"f/obj.mjs":    "export function keys(v) { return v === undefined ? 'undef' : Object.keys(v).join('+'); }\n",
		"f/throw.mjs":  "export default () => { throw new Error('no way'); };\n",
		"f/loud.mjs":   "console.log('noise'); export default (v) => v + '!';\n",
		"f/broken.mjs": "export default (\n",
		"f/v1.js":      "export default () => 'one';\n",
		"f/v2.js":      "export default () => 'two';\n",
		"f/readme.md":  "",
	}
	const head = "prompts: ['{{ q }}']\nnunjucks_filters:\n"
	test := func(id string, vars string) string {
		return "tests:\n  - id: \"" + id + "\"\n    vars: " + vars + "\n    assert: [{type: llm-rubric, value: ok}]\n"
	}
	tests := []struct {
		name, yaml string
		ids        []string // the loaded cases' ids (a file-level error leaves them loaded, the file failed)
		wantDiag   string   // substring of a diagnostic, "" for none
	}{
		{name: "default export", yaml: head + "  low: file://f/low.js\n" + test("{{ w | low }}", "{q: a, w: ABC}"), ids: []string{"abc"}},
		{name: "named export and chain", yaml: head + "  low: f/low.js\n  dash: f/named.mjs\n" + test("{{ w | low | dash }}-{{ w }}", "{q: a, w: A B}"), ids: []string{"a-b-A B"}},
		{name: "object and undefined values", yaml: head + "  keys: f/obj.mjs\n" + test("{{ o | keys }} {{ nope | keys }}", "{q: a, o: {x: 1, y: 2}}"), ids: []string{"x+y undef"}},
		{name: "console output is not an answer", yaml: head + "  loud: f/loud.mjs\n" + test("{{ w | loud }}", "{q: a, w: hey}"), ids: []string{"hey!"}},
		{name: "a glob picks the last match", yaml: head + "  v: f/v*.js\n" + test("{{ w | v }}", "{q: a, w: z}"), ids: []string{"two"}},
		{name: "no vars: not rendered", yaml: head + "  low: f/low.js\nassert: [{type: llm-rubric, value: ok}]\ntests:\n  - id: \"{{ w | low }}\"\n", ids: []string{"{{ w | low }}"}},
		{name: "a prompt does not get the filters", yaml: "prompts: ['say {{ q | low }}']\nnunjucks_filters:\n  low: f/low.js\n" + test("a", "{q: A}"),
			wantDiag: `eval.yaml:1:11: prompt "say {{ q | low }}" uses nunjucks filter "low": AgentV 5.3.1-next.1 renders prompts without nunjucks_filters and fails the file ("filter not found: low")`},
		{name: "a filter not in the list", yaml: head + "  low: f/low.js\n" + test("{{ w | upper }}", "{q: a, w: b}"),
			wantDiag: `eval.yaml:5:9: template "{{ w | upper }}" is not supported yet`},
		{name: "a filter that throws", yaml: head + "  boom: f/throw.mjs\n" + test("{{ w | boom }}", "{q: a, w: b}"),
			wantDiag: `eval.yaml:5:9: template "{{ w | boom }}": filter boom threw: no way`},
		{name: "no such export", yaml: head + "  nofn: f/named.mjs\n" + test("{{ w | nofn }}", "{q: a, w: b}"),
			wantDiag: `has no default export or export named 'nofn' that is a function`},
		{name: "a module that does not parse", yaml: head + "  bad: f/broken.mjs\n" + test("{{ w | bad }}", "{q: a, w: b}"),
			wantDiag: `filter 'bad': could not import`},
		{name: "an unused filter is imported all the same", yaml: head + "  bad: f/broken.mjs\n" + test("a", "{q: a}"), ids: []string{"a"},
			wantDiag: `eval.yaml:2:1: nunjucks_filters: filter 'bad': could not import`},
		{name: "missing module", yaml: head + "  gone: f/gone.js\n" + test("a", "{q: a}"), ids: []string{"a"},
			wantDiag: `eval.yaml:3:9: nunjucks filter "gone": module f/gone.js not found`},
		{name: "not a module", yaml: head + "  md: f/readme.md\n" + test("a", "{q: a}"), ids: []string{"a"},
			wantDiag: `eval.yaml:3:7: nunjucks filter "md": f/readme.md is not a JavaScript or TypeScript module`},
		{name: "a non-string entry is skipped", yaml: head + "  n: 3\n" + test("a", "{q: a}"), ids: []string{"a"},
			wantDiag: `eval.yaml:3:6: nunjucks filter "n" skipped: expected a module path`},
		{name: "not a mapping is ignored", yaml: "prompts: ['{{ q }}']\nnunjucks_filters: [f/low.js]\n" + test("a", "{q: a}"), ids: []string{"a"},
			wantDiag: `eval.yaml:2:19: "nunjucks_filters" must map filter names to module paths, got a list (ignored, as AgentV 5.x does)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tree := map[string]string{"eval.yaml": tt.yaml}
			for k, v := range files {
				tree[k] = v
			}
			root := suitetest.WriteTree(t, tree)
			s := suite.Load(filepath.Join(root, "eval.yaml"), suite.LoadOptions{Cwd: root})
			all := suitetest.FormatDiags(s.Diagnostics)
			if tt.wantDiag == "" && all != "" || !strings.Contains(all, tt.wantDiag) {
				t.Errorf("diagnostics:\n%s\nwant one containing %q", all, tt.wantDiag)
			}
			if testing.Verbose() {
				t.Log(all)
			}
			var ids []string
			for _, c := range s.Cases {
				ids = append(ids, c.ID)
			}
			if !slices.Equal(ids, tt.ids) {
				t.Errorf("case ids %q, want %q", ids, tt.ids)
			}
		})
	}
}
