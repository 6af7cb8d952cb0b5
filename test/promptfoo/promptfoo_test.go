// Package promptfoo_test runs the promptfoo configs of testdata/ through agentv and compares
// each test × provider's score, verdict and assertions with what promptfoo 0.123.1 gave on the
// same configs (testdata/*/expected.json, recorded by scripts/record-promptfoo.sh against
// testdata/fake_openai.py; see testdata/README.md). Every difference must be either a
// documented one (known-differences.yaml, with a doc anchor in docs/promptfoo.md) or a gap
// waiting for a fix (pending.yaml). The configs of testdata/unsupported/ must each be refused
// with a positioned error naming what is not supported.
package promptfoo_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentv/action/results"
	"github.com/agentv/action/test/reference"
)

var agentvBin string

func TestMain(m *testing.M) { reference.Main(m, &agentvBin) }

// expected is a config's expected.json.
type expected struct {
	Results []expectedRow `json:"results"`
}

type expectedRow struct {
	Test          *string             `json:"test"`
	TestIndex     int                 `json:"test_index"`
	Column        int                 `json:"column"`
	Provider      string              `json:"provider"`
	ProviderLabel string              `json:"provider_label"`
	Score         float64             `json:"score"`
	Pass          bool                `json:"pass"`
	FailureReason int                 `json:"failure_reason"`
	Assertions    []expectedAssertion `json:"assertions"`
}

type expectedAssertion struct {
	Type  string  `json:"type"`
	Score float64 `json:"score"`
	Pass  bool    `json:"pass"`
}

// id is the case id agentv gives the row's test: its description, else test-N (1-based).
func (r expectedRow) id() string {
	if r.Test != nil && strings.TrimSpace(*r.Test) != "" {
		return strings.TrimSpace(*r.Test)
	}
	return fmt.Sprintf("test-%d", r.TestIndex+1)
}

// target is the target agentv reports the row under: the label, else the reported id.
func (r expectedRow) target() string {
	if r.ProviderLabel != "" {
		return r.ProviderLabel
	}
	return r.Provider
}

func TestAgainstPromptfoo(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs every config end to end")
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed: the fake model server and the exec: providers are Python scripts")
	}
	known := reference.ReadList(t, "known-differences.yaml")
	pending := reference.ReadList(t, "pending.yaml")
	reference.CheckKnown(t, known, "docs/promptfoo.md")
	configs, err := filepath.Glob("testdata/*/expected.json")
	if err != nil || len(configs) == 0 {
		t.Fatalf("no configs in testdata: %v", err)
	}
	work := t.TempDir()
	if err := os.CopyFS(work, os.DirFS("testdata")); err != nil {
		t.Fatal(err)
	}
	env := fakeEnv(t, work)

	var all []reference.Difference
	for _, exp := range configs {
		name := filepath.Base(filepath.Dir(exp))
		var want expected
		raw, err := os.ReadFile(exp)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, &want); err != nil {
			t.Fatalf("%s: %v", exp, err)
		}
		recs, err := reference.Run(t, agentvBin, filepath.Join(work, name), "promptfooconfig.yaml", env)
		if err != nil {
			t.Logf("%s: %v", name, err)
			all = append(all, reference.Difference{Group: name, Test: "*", Field: "run", Ours: "no results file", Theirs: "results"})
		}
		all = append(all, compare(name, want, recs)...)
	}

	reference.Account(t, all, known, pending, "promptfoo")
}

// TestUnsupportedConfigs runs each config of testdata/unsupported/: agentv must refuse it with
// an error positioned in the config (file:line:col) that says what is not supported.
func TestUnsupportedConfigs(t *testing.T) {
	t.Parallel()
	dirs, err := filepath.Glob("testdata/unsupported/*/promptfooconfig.yaml")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no unsupported configs: %v", err)
	}
	// What each config must be told, by the key or type it uses.
	names := map[string]string{
		"redteam": `"redteam"`, "scenarios": `"scenarios"`, "derived_metrics": `"derivedMetrics"`,
		"var_arrays": `var "text" is a list`, "tests_file": `"tests" must be a list`, "http_provider": `provider "http"`,
		"select_best": `type "select-best"`, "nunjucks_filters": `"nunjucksFilters"`,
	}
	positioned := regexp.MustCompile(`(?m)^error: promptfooconfig\.yaml:\d+:\d+: .*not supported`)
	for _, cfg := range dirs {
		name := filepath.Base(filepath.Dir(cfg))
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(agentvBin, "eval", "promptfooconfig.yaml", "--out", filepath.Join(t.TempDir(), "r.jsonl"))
			cmd.Dir = filepath.Dir(cfg)
			cmd.Env = append(os.Environ(), "GITHUB_ACTIONS=", "CI=", "OPENAI_BASE_URL=http://127.0.0.1:9/v1", "OPENAI_API_KEY=sk-none")
			out, err := cmd.CombinedOutput()
			if err == nil {
				t.Fatalf("agentv ran the config:\n%s", out)
			}
			if !positioned.Match(out) {
				t.Fatalf("no positioned error saying what is not supported:\n%s", out)
			}
			want, ok := names[name]
			if !ok {
				t.Fatalf("add what %s must be told to the table of this test", name)
			}
			if !strings.Contains(string(out), want) {
				t.Errorf("the error does not name %s:\n%s", want, out)
			}
		})
	}
}

// fakeEnv starts testdata/fake_openai.py on loopback and returns the environment that points
// every vendor at it, as scripts/record-promptfoo.sh does.
func fakeEnv(t *testing.T, work string) []string {
	t.Helper()
	portFile := filepath.Join(t.TempDir(), "port")
	cmd := exec.Command("python3", filepath.Join(work, "fake_openai.py"), "--port", "0", "--port-file", portFile)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	var port string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if p, err := os.ReadFile(portFile); err == nil && len(bytes.TrimSpace(p)) > 0 {
			port = strings.TrimSpace(string(p))
			break
		}
	}
	if port == "" {
		t.Fatal("fake_openai.py did not write its port")
	}
	base := "http://127.0.0.1:" + port
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "AZURE_OPENAI_API_KEY", "AZURE_OPENAI_API_HOST", "AZURE_API_HOST", "GEMINI_API_KEY", "OPENAI_API_BASE_URL",
			"GITHUB_ACTIONS", "CI":
			continue
		}
		env = append(env, kv)
	}
	return append(env, "OPENAI_BASE_URL="+base+"/v1", "OPENAI_API_KEY=sk-fake-loopback",
		"ANTHROPIC_BASE_URL="+base, "ANTHROPIC_API_KEY=sk-ant-fake-loopback",
		"AZURE_API_BASE_URL="+base, "AZURE_API_KEY=fake-azure-loopback",
		"GOOGLE_API_BASE_URL="+base, "GOOGLE_API_KEY=fake-google-loopback")
}

// compare lists the differences between agentv's records and a config's expected rows. A row
// is found by its test's id and its target; the rows of several prompts (agentv: id__prompt_…)
// are taken in order.
func compare(config string, want expected, recs []*results.Record) []reference.Difference {
	var diffs []reference.Difference
	seen := map[*results.Record]bool{}
	for _, e := range want.Results {
		id, target := e.id(), e.target()
		i := slices.IndexFunc(recs, func(r *results.Record) bool {
			return !seen[r] && (r.EvalID == id || strings.HasPrefix(r.EvalID, id+"__prompt_")) && r.Target == target
		})
		name := id + "@" + target
		if i < 0 {
			diffs = append(diffs, reference.Difference{Group: config, Test: name, Field: "row", Ours: "missing", Theirs: "present"})
			continue
		}
		r := recs[i]
		seen[r] = true
		add := func(field, ours, theirs string) {
			if ours != theirs {
				diffs = append(diffs, reference.Difference{Group: config, Test: name, Field: field, Ours: ours, Theirs: theirs})
			}
		}
		add("score", reference.Num(r.Score), reference.Num(e.Score))
		add("pass", fmt.Sprint(r.Verdict == results.VerdictPass), fmt.Sprint(e.Pass))
		add("error", fmt.Sprint(r.Verdict == results.VerdictError), fmt.Sprint(e.FailureReason == 2))
		if e.FailureReason == 2 {
			continue // promptfoo ran no assertions on an errored result
		}
		ours := flatten(r.EvaluatorResults)
		add("assertions", fmt.Sprint(len(ours)), fmt.Sprint(len(e.Assertions)))
		for j, a := range e.Assertions {
			if j >= len(ours) {
				break
			}
			f := fmt.Sprintf("assertions[%d].", j)
			add(f+"score", reference.Num(ours[j].Score), reference.Num(a.Score))
			add(f+"pass", fmt.Sprint(ours[j].Verdict == "pass"), fmt.Sprint(a.Pass))
		}
	}
	for _, r := range recs {
		if !seen[r] {
			diffs = append(diffs, reference.Difference{Group: config, Test: r.EvalID + "@" + r.Target, Field: "row", Ours: "present", Theirs: "missing"})
		}
	}
	return diffs
}

// flatten lists results as promptfoo lists an assert-set: the set, then its members.
func flatten(rs []results.EvaluatorResult) []results.EvaluatorResult {
	var out []results.EvaluatorResult
	for _, r := range rs {
		out = append(out, r)
		out = append(out, flatten(r.EvaluatorResults)...)
	}
	return out
}
