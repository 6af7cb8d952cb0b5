package e2e_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"
)

// TestV4PayloadMatchesAgentV442 runs testdata/payload442 (a cli target answering with tool
// calls, usage and cost; a plain-text target; a prompt template) and compares what each grader
// read on stdin with what AgentV 4.42.4 sent it on the same files, recorded in
// testdata/payload442/agentv442 (AGENTV_NO_UPDATE_CHECK=1 node cli.js eval <file> -o <dir>,
// DUMP_DIR set, for each eval file): the same keys in the same order, the same values.
func TestV4PayloadMatchesAgentV442(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	requireTools(t, "python3")
	src := filepath.Join("testdata", "payload442")
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, map[string]string{".git/HEAD": "ref: refs/heads/main\n"})
	dumps := t.TempDir()
	res := agentv(t, dir, []string{"DUMP_DIR=" + dumps}, "eval", "evals")
	for _, name := range []string{"tools.json", "plain.json", "template.json"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			want := readJSONFile(t, filepath.Join(src, "agentv442", name))
			got := readJSONFile(t, filepath.Join(dumps, name))
			if got == nil {
				t.Fatalf("the grader did not run\nstdout:\n%s\nstderr:\n%s", res.stdout, res.stderr)
			}
			for _, d := range jsonDiff("", want.value, got.value) {
				t.Error(d)
			}
			if !reflect.DeepEqual(want.keys, got.keys) {
				t.Errorf("top-level keys %v\nwant (4.42.4) %v", got.keys, want.keys)
			}
		})
	}
}

type jsonFile struct {
	value any
	keys  []string // top-level keys in order
}

func readJSONFile(t *testing.T, path string) *jsonFile {
	t.Helper()
	raw, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var f jsonFile
	if err := json.Unmarshal(raw, &f.value); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		switch v := tok.(type) {
		case json.Delim:
			if v == '{' || v == '[' {
				depth++
			} else {
				depth--
			}
		case string:
			if depth == 1 && dec.More() {
				f.keys = append(f.keys, v)
				// skip the value
				var skip json.RawMessage
				if err := dec.Decode(&skip); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	return &f
}

// jsonDiff lists where got differs from want, by path.
func jsonDiff(path string, want, got any) []string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return []string{fmt.Sprintf("%s: %v, want (4.42.4) %v", path, got, want)}
		}
		var out []string
		keys := make([]string, 0, len(w)+len(g))
		for k := range w {
			keys = append(keys, k)
		}
		for k := range g {
			if _, ok := w[k]; !ok {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			wv, wok := w[k]
			gv, gok := g[k]
			switch {
			case !gok:
				out = append(out, fmt.Sprintf("%s.%s missing (4.42.4: %v)", path, k, wv))
			case !wok:
				out = append(out, fmt.Sprintf("%s.%s = %v, which 4.42.4 does not send", path, k, gv))
			default:
				out = append(out, jsonDiff(path+"."+k, wv, gv)...)
			}
		}
		return out
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return []string{fmt.Sprintf("%s: %v, want (4.42.4) %v", path, got, want)}
		}
		var out []string
		for i := range w {
			out = append(out, jsonDiff(fmt.Sprintf("%s[%d]", path, i), w[i], g[i])...)
		}
		return out
	}
	if !reflect.DeepEqual(want, got) {
		return []string{fmt.Sprintf("%s: %v, want (4.42.4) %v", path, got, want)}
	}
	return nil
}

// TestV4FileChanges: a grader of a suite with a workspace gets the diff of what the target
// changed there in `file_changes`, as 4.42.4 gives it (the same suite run by 4.42.4 gave this
// very diff), and the workspace's path.
func TestV4FileChanges(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	requireTools(t, "python3", "git", "sh")
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		".git/HEAD": "ref: refs/heads/main\n",
		".agentv/targets.yaml": `targets:
  - name: default
    provider: cli
    command: sh -c 'echo changed >> a.txt; echo new > b.txt; echo done > {OUTPUT_FILE}'
`,
		"evals/ws/a.txt": "original\n",
		"evals/grader.py": `import json, sys
p = json.load(sys.stdin)
want = ("diff --git a/a.txt b/a.txt\nindex 4b48dee..27530da 100644\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1,2 @@\n original\n+changed\n"
        "diff --git a/b.txt b/b.txt\nnew file mode 100644\nindex 0000000..3e75765\n--- /dev/null\n+++ b/b.txt\n@@ -0,0 +1 @@\n+new")
checks = [("file_changes", p["file_changes"] == want), ("workspace_path", "agentv-workspace-" in (p["workspace_path"] or ""))]
print(json.dumps({"score": 1 if all(ok for _, ok in checks) else 0,
                  "assertions": [{"text": t + ": " + json.dumps(p[t]), "passed": ok} for t, ok in checks]}))
`,
		"evals/fc.eval.yaml": `workspace:
  template: ws
tests:
  - id: changes
    input: change files
    assertions:
      - type: code-grader
        command: [python3, grader.py]
`,
	})
	res := agentv(t, dir, nil, "eval", "evals/fc.eval.yaml")
	rec := res.byID()["changes"]
	if res.code != 0 || rec == nil {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	if rec.Score != 1 {
		t.Errorf("score %v; misses %v", rec.Score, rec.Misses)
	}
}
