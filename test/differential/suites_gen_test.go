package differential

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The differential suites are compared by test id across files, so ids are unique, and every
// case:KEY a suite names has an answer (else the agent answers "no canned answer").
func TestWriteDifferential(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s, err := WriteDifferential(dir, "http://127.0.0.1:1/v1")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "agents", "answers.json"))
	if err != nil {
		t.Fatal(err)
	}
	var answers map[string]any
	if err := json.Unmarshal(raw, &answers); err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	keyRE := regexp.MustCompile(`case:([a-z0-9-]+)`)
	for _, f := range s.Files {
		if len(f.Tests) == 0 {
			t.Errorf("%s has no tests", f.Eval)
		}
		for _, id := range f.Tests {
			if prev, dup := seen[id]; dup {
				t.Errorf("test id %s in both %s and %s", id, prev, f.Eval)
			}
			seen[id] = f.Eval
		}
		if _, err := os.Stat(filepath.Join(dir, f.Targets)); err != nil {
			t.Errorf("%s: targets file: %v", f.Eval, err)
		}
		body, err := os.ReadFile(filepath.Join(dir, f.Eval))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range keyRE.FindAllStringSubmatch(string(body), -1) {
			if _, ok := answers[m[1]]; !ok && m[1] != "crash" && m[1] != "workspace" && m[1] != "conversation" && m[1] != "echo" {
				t.Errorf("%s names case:%s, which has no answer", f.Eval, m[1])
			}
		}
	}
	if got := s.Files[len(s.Files)-1].Eval; got != "workspace/hooks.eval.yaml" {
		t.Errorf("files not in name order: last is %s", got)
	}
	targets, err := os.ReadFile(filepath.Join(dir, "targets.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(targets), "base_url: http://127.0.0.1:1/v1") || strings.Contains(string(targets), "fake-key") {
		t.Errorf("targets.yaml: the base URL is missing or the key is written in it:\n%s", targets)
	}
}

var (
	suitesDir = flag.String("suites", "", "TestWriteSuites: write the differential suites under this directory, to run by hand")
	suitesURL = flag.String("base-url", "http://127.0.0.1:8080/v1", "TestWriteSuites: the OpenAI-compatible server their LM targets and graders call")
)

// TestWriteSuites writes the differential suites for a look by hand, with -args -suites DIR,
// and logs each eval file with the targets file to run it with; it skips without -suites.
func TestWriteSuites(t *testing.T) {
	t.Parallel()
	if *suitesDir == "" {
		t.Skip("no -suites DIR")
	}
	s, err := WriteDifferential(*suitesDir, *suitesURL)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range s.Files {
		t.Log(filepath.Join(s.Dir, f.Eval), "--targets", filepath.Join(s.Dir, f.Targets))
	}
}
