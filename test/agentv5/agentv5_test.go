// Package agentv5_test runs the AgentV 5 suites of testdata/ through agentv and compares each
// test's score, verdict and assertions with what AgentV 5.3.1-next.1 gave on the same files
// (testdata/*/expected.json, recorded by scripts/record-agentv5.sh; see testdata/README.md).
// CONTRACT §10 makes that program the authority for 5.x files: every difference must be either a
// documented one (known-differences.yaml) or a known bug waiting for a fix (pending.yaml).
package agentv5_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentv/action/results"
	"github.com/agentv/action/test/reference"
)

var agentvBin string

func TestMain(m *testing.M) { reference.Main(m, &agentvBin) }

// expected is a suite's expected.json.
type expected struct {
	Suite string         `json:"suite"`
	Tests []expectedTest `json:"tests"`
}

type expectedTest struct {
	ID              string              `json:"id"`
	Target          string              `json:"target"`
	Prompt          string              `json:"prompt"`
	Score           float64             `json:"score"`
	ExecutionStatus string              `json:"execution_status"`
	Pass            bool                `json:"pass"`
	Assertions      []expectedAssertion `json:"assertions"`
}

type expectedAssertion struct {
	Name   string  `json:"name"`
	Type   string  `json:"type"`
	Score  float64 `json:"score"`
	Pass   bool    `json:"pass"`
	Weight float64 `json:"weight"`
}

func TestAgainstAgentV5(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs every suite end to end")
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed: the suites' targets and judge are Python scripts")
	}
	known := reference.ReadList(t, "known-differences.yaml")
	pending := reference.ReadList(t, "pending.yaml")
	reference.CheckKnown(t, known, "docs/agentv-5.md")
	dirs, err := filepath.Glob("testdata/*/expected.json")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no suites in testdata: %v", err)
	}
	work := t.TempDir()
	bin := filepath.Join(work, "_bin")
	if err := os.CopyFS(bin, os.DirFS("testdata/_bin")); err != nil {
		t.Fatal(err)
	}
	fakeURL := startFake(t, bin)

	var all []reference.Difference
	for _, exp := range dirs {
		name := filepath.Base(filepath.Dir(exp))
		var want expected
		raw, err := os.ReadFile(exp)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, &want); err != nil {
			t.Fatalf("%s: %v", exp, err)
		}
		dir := filepath.Join(work, name)
		if err := os.CopyFS(dir, os.DirFS(filepath.Dir(exp))); err != nil {
			t.Fatal(err)
		}
		recs, err := runSuite(t, dir, bin, fakeURL)
		if err != nil {
			t.Logf("%s: %v", name, err)
			all = append(all, reference.Difference{Group: name, Test: "*", Field: "run", Ours: "no results file", Theirs: "results"})
		}
		all = append(all, compare(name, want, recs)...)
	}

	reference.Account(t, all, known, pending, "5.3.1-next.1")
}

// startFake runs the suites' loopback webhook and embeddings server.
func startFake(t *testing.T, bin string) string {
	t.Helper()
	portFile := filepath.Join(t.TempDir(), "port")
	cmd := exec.Command("python3", filepath.Join(bin, "fake_server.py"), portFile)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if port, err := os.ReadFile(portFile); err == nil && len(bytes.TrimSpace(port)) > 0 {
			return "http://127.0.0.1:" + strings.TrimSpace(string(port))
		}
	}
	t.Fatal("fake_server.py did not write its port")
	return ""
}

// runSuite runs a suite's one eval file as the recording did (one case at a time, no cache) and
// returns its case records, or what kept it from writing any.
func runSuite(t *testing.T, dir, bin, fakeURL string) ([]*results.Record, error) {
	t.Helper()
	evals, _ := filepath.Glob(filepath.Join(dir, "*.eval.yaml"))
	if len(evals) != 1 {
		t.Fatalf("%s: want one *.eval.yaml, found %d", dir, len(evals))
	}
	env := append(os.Environ(), "AGENTV5_TARGET_STATE="+t.TempDir(), "AGENTV5_FAKE_URL="+fakeURL,
		"AGENTV5_BIN="+bin, "GITHUB_ACTIONS=", "CI=")
	return reference.Run(t, agentvBin, dir, filepath.Base(evals[0]), env)
}

// compare lists the differences between agentv's records and a suite's expected tests. A row
// is found by id, prompt (agentv names a prompt matrix's rows id__prompt_<prompt>, as 5.x's
// temporary files do) and target.
func compare(suite string, want expected, recs []*results.Record) []reference.Difference {
	var diffs []reference.Difference
	seen := map[*results.Record]bool{}
	for _, e := range want.Tests {
		id := e.ID
		if e.Prompt != "" {
			id += "__prompt_" + e.Prompt
		}
		i := slices.IndexFunc(recs, func(r *results.Record) bool {
			return !seen[r] && r.EvalID == id && (e.Target == "" || r.Target == e.Target)
		})
		if i < 0 {
			diffs = append(diffs, reference.Difference{Group: suite, Test: id, Field: "row", Ours: "missing", Theirs: "target " + e.Target})
			continue
		}
		r := recs[i]
		seen[r] = true
		add := func(field, ours, theirs string) {
			if ours != theirs {
				diffs = append(diffs, reference.Difference{Group: suite, Test: id, Field: field, Ours: ours, Theirs: theirs})
			}
		}
		add("score", reference.Num(r.Score), reference.Num(e.Score))
		add("pass", fmt.Sprint(r.Verdict == results.VerdictPass), fmt.Sprint(e.Pass))
		add("error", fmt.Sprint(r.Verdict == results.VerdictError), fmt.Sprint(e.ExecutionStatus == "execution_error"))
		if e.ExecutionStatus == "execution_error" {
			continue // 5.x lists no assertions it could trust for an errored test
		}
		add("assertions", fmt.Sprint(len(r.EvaluatorResults)), fmt.Sprint(len(e.Assertions)))
		for j, a := range e.Assertions {
			if j >= len(r.EvaluatorResults) {
				break
			}
			o := r.EvaluatorResults[j]
			f := fmt.Sprintf("assertions[%d].", j)
			add(f+"name", o.Name, a.Name)
			add(f+"type", o.Type, a.Type)
			add(f+"score", reference.Num(o.Score), reference.Num(a.Score))
			add(f+"pass", fmt.Sprint(o.Verdict == "pass"), fmt.Sprint(a.Pass))
			add(f+"weight", reference.Num(o.Weight), reference.Num(a.Weight))
		}
	}
	for _, r := range recs {
		if !seen[r] {
			diffs = append(diffs, reference.Difference{Group: suite, Test: r.EvalID, Field: "row", Ours: "target " + r.Target, Theirs: "missing"})
		}
	}
	return diffs
}
