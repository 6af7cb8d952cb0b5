package action

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v4"
)

// These tests keep action.yml, ParseInputs, RunOutputs, docs/action.md and the self-test
// workflow in step: an input added in one place and forgotten in another fails here.

type actionMeta struct {
	Inputs  yaml.Node `yaml:"inputs"`
	Outputs yaml.Node `yaml:"outputs"`
	Runs    struct {
		Using string `yaml:"using"`
		Image string `yaml:"image"`
	} `yaml:"runs"`
}

type metaInput struct {
	Description string  `yaml:"description"`
	Default     *string `yaml:"default"`
}

// keys returns a mapping node's keys in file order.
func keys(n *yaml.Node) []string {
	var out []string
	for i := 0; i+1 < len(n.Content); i += 2 {
		out = append(out, n.Content[i].Value)
	}
	return out
}

func readActionYML(t *testing.T) (actionMeta, map[string]metaInput) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var m actionMeta
	if err := yaml.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	inputs := map[string]metaInput{}
	if err := m.Inputs.Decode(&inputs); err != nil {
		t.Fatal(err)
	}
	return m, inputs
}

func TestActionYMLInputsMatchParseInputs(t *testing.T) {
	t.Parallel()
	m, inputs := readActionYML(t)
	if m.Runs.Using != "docker" || m.Runs.Image != "Dockerfile" {
		t.Errorf("runs = %+v, want docker with the in-repo Dockerfile (releases rewrite it)", m.Runs)
	}
	// Every input ParseInputs reads is declared, and every declared input is read.
	var read []string
	ParseInputs(func(k string) string {
		// Input asks for INPUT_A-B first, then INPUT_A_B: record the first form.
		if name, ok := strings.CutPrefix(k, "INPUT_"); ok && !strings.Contains(name, "_") {
			if n := strings.ToLower(name); !slices.Contains(read, n) {
				read = append(read, n)
			}
		}
		return ""
	})
	declared := keys(&m.Inputs)
	slices.Sort(read)
	sortedDeclared := slices.Sorted(slices.Values(declared))
	if diff := cmp.Diff(sortedDeclared, read); diff != "" {
		t.Errorf("action.yml inputs vs inputs ParseInputs reads (-action.yml +ParseInputs):\n%s", diff)
	}
	// action.yml's defaults mean what ParseInputs does without them. The runner passes
	// every default, so a mismatch would change behaviour between a local and an Action run.
	env := map[string]string{"INPUT_EVALS": "a.yaml"}
	for name, in := range inputs {
		if in.Description == "" {
			t.Errorf("input %s has no description", name)
		}
		if !strings.Contains(strings.ToLower(in.Description), "default") {
			t.Errorf("input %s: description does not state the default", name)
		}
		if in.Default != nil && name != "github-token" {
			env["INPUT_"+strings.ToUpper(name)] = *in.Default
		}
	}
	withDefaults, errs := ParseInputs(envMap(env))
	if len(errs) > 0 {
		t.Fatalf("action.yml defaults do not parse: %v", errs)
	}
	bare, _ := ParseInputs(envMap(map[string]string{"INPUT_EVALS": "a.yaml"}))
	withDefaults.WorkDir = strings.TrimPrefix(withDefaults.WorkDir, ".") // "." is the workspace
	if diff := cmp.Diff(bare, withDefaults); diff != "" {
		t.Errorf("ParseInputs with action.yml's defaults differs from no inputs (-none +defaults):\n%s", diff)
	}
	if d := inputs["github-token"].Default; d == nil || *d != "${{ github.token }}" {
		t.Errorf("github-token default = %v, want the workflow token", d)
	}
}

func TestActionYMLOutputsMatchRunOutputs(t *testing.T) {
	t.Parallel()
	m, _ := readActionYML(t)
	var names []string
	for _, o := range (RunOutputs{}).Pairs() {
		names = append(names, o.Name)
	}
	if diff := cmp.Diff(keys(&m.Outputs), names); diff != "" {
		t.Errorf("action.yml outputs vs RunOutputs.Pairs (-action.yml +Go):\n%s", diff)
	}
}

func TestDocsListEveryInputAndOutput(t *testing.T) {
	t.Parallel()
	m, _ := readActionYML(t)
	data, err := os.ReadFile(filepath.Join("..", "docs", "action.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	for _, name := range append(keys(&m.Inputs), keys(&m.Outputs)...) {
		if !strings.Contains(doc, "| `"+name+"` |") {
			t.Errorf("docs/action.md has no table row for %q", name)
		}
	}
}

// TestSelfTestUsesTheDocsExample checks that the self-test runs the documented quick start.
func TestSelfTestUsesTheDocsExample(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("..", "docs", "action.md"))
	if err != nil {
		t.Fatal(err)
	}
	block := regexp.MustCompile("(?s)## Quick start[^\n]*\n+```yaml\n(.*?)```").FindSubmatch(data)
	if block == nil {
		t.Fatal("docs/action.md has no yaml block under the Quick start heading")
	}
	type step struct {
		ID   string            `yaml:"id"`
		Uses string            `yaml:"uses"`
		With map[string]string `yaml:"with"`
	}
	type workflow struct {
		Jobs map[string]struct {
			Steps []step `yaml:"steps"`
		} `yaml:"jobs"`
	}
	find := func(t *testing.T, src []byte, what string) []step {
		t.Helper()
		var w workflow
		if err := yaml.Unmarshal(src, &w); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return w.Jobs["evals"].Steps
	}
	docSteps := find(t, block[1], "docs example")
	// The README shows the same workflow, byte for byte.
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	rb := regexp.MustCompile("(?s)## In a workflow\n.*?```yaml\n(.*?)```").FindSubmatch(readme)
	if rb == nil || string(rb[1]) != string(block[1]) {
		t.Errorf("README.md's workflow example differs from docs/action.md's quick start")
	}
	selfData, err := os.ReadFile(filepath.Join("..", ".github", "workflows", "self-test.yml"))
	if err != nil {
		t.Fatal(err)
	}
	selfSteps := find(t, selfData, "self-test.yml")
	if len(docSteps) < 3 || len(selfSteps) < 3 {
		t.Fatalf("want checkout, the action and the upload in both: docs %d steps, self-test %d", len(docSteps), len(selfSteps))
	}
	for i := range 3 {
		d, s := docSteps[i], selfSteps[i]
		if d.Uses == "agentv/action@v1" {
			d.Uses = "./"
		}
		if diff := cmp.Diff(d, s); diff != "" {
			t.Errorf("step %d differs (-docs +self-test):\n%s", i, diff)
		}
	}
}
