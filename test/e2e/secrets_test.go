package e2e_test

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentv/action/action/actiontest"
)

// leakScript prints a secret the way a careless agent or judge might: plainly, encoded,
// inside longer base64 data at every alignment, wrapped over lines, and as a tool name.
const leakScript = `import base64, json, os, sys, urllib.parse
key = os.environ["AGENTV_E2E_UNUSED_KEY"]
b = key.encode()
forms = [
    "plain " + key,
    "b64 " + base64.b64encode(b).decode(),
    "b64url " + base64.urlsafe_b64encode(b).decode().rstrip("="),
    "url " + urllib.parse.quote(key, safe=""),
    "hex " + b.hex() + " " + b.hex().upper(),
    "split " + key[:11] + "\n    " + key[11:23] + "\n" + key[23:],
    "escaped " + key[:9] + "\\n" + key[9:],
]
for k in range(3):
    forms.append("embedded " + base64.b64encode(b"x" * k + b"Authorization: Bearer " + b + b" end").decode())
text = "\n".join(forms)
if sys.argv[1] == "agent":
    with open(sys.argv[2], "w") as f:
        json.dump({"output_messages": [{"role": "assistant", "content": text,
                   "tool_calls": [{"tool": "call_" + key, "input": {}}]}]}, f)
else:
    json.load(sys.stdin)
    print(json.dumps({"score": 0, "hits": [], "misses": [text], "reasoning": text}))
`

// unusedKey is the key of a target that never runs; leak.py prints it as the agent and as the
// grader.
const unusedKey = "sk-e2e-unused/Key+0123456789abcdefXYZ"

// leakSuite is a folder with a cli target and a code judge that print the unused target's key
// (AGENTV_E2E_UNUSED_KEY) in common encodings.
func leakSuite(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"leak.py": leakScript,
		"targets.yaml": `targets:
  - name: default
    provider: cli
    command_template: python3 leak.py agent {OUTPUT_FILE}
  - name: never-runs
    provider: openai
    model: gpt-4o
    api_key: ${{ AGENTV_E2E_UNUSED_KEY }}
`,
		"s.yaml": "evalcases:\n  - id: leak\n    input: hi\n    evaluators: [{name: j, type: code_judge, script: [python3, leak.py, judge]}]\n",
	})
	return dir
}

// TestSecretsOfUnusedTargetsNeverReachReports: a child process inherits the environment,
// so it can print the key of a target that does not run in this invocation. That key, in
// any common encoding, must not reach the results, the reports or the console.
func TestSecretsOfUnusedTargetsNeverReachReports(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	requireTools(t, "python3")
	const key = unusedKey
	dir := leakSuite(t)
	res := agentv(t, dir, []string{"AGENTV_E2E_UNUSED_KEY=" + key}, "eval", "s.yaml")
	if len(res.records) != 1 {
		t.Fatalf("exit %d, %d records\nstdout:\n%s\nstderr:\n%s", res.code, len(res.records), res.stdout, res.stderr)
	}
	texts := map[string]string{"stdout": res.stdout, "stderr": res.stderr}
	for _, f := range []string{"results.jsonl", "junit.xml", "summary.md", "comment.md"} {
		b, err := os.ReadFile(filepath.Join(res.outDir, f))
		if err != nil {
			t.Fatal(err)
		}
		texts[f] = string(b)
	}
	if !strings.Contains(texts["results.jsonl"], "embedded") || !strings.Contains(texts["junit.xml"], "split") {
		t.Fatalf("the script's output did not reach the reports:\n%s", texts["results.jsonl"])
	}
	for name, text := range texts {
		for _, form := range secretForms(key) {
			if strings.Contains(text, form) || strings.Contains(unwrap(text), form) {
				t.Errorf("%s holds %q", name, form)
			}
		}
	}
}

// secretForms lists what must not appear: the key, its encodings, and characters of its
// base64 that lie well inside it at each alignment.
func secretForms(key string) []string {
	b := []byte(key)
	out := []string{key, base64.RawStdEncoding.EncodeToString(b), base64.RawURLEncoding.EncodeToString(b),
		url.QueryEscape(key), hex.EncodeToString(b), strings.ToUpper(hex.EncodeToString(b))}
	for k := 0; k < 3; k++ {
		enc := base64.StdEncoding.EncodeToString([]byte(strings.Repeat("x", k) + "Authorization: Bearer " + key + " end"))
		start := (k + 22 + 3) / 3 * 4 // first character that encodes only key bytes, and then some
		out = append(out, enc[start:start+16])
	}
	return out
}

// unwrap removes line breaks (and JSON's \n escapes) with the indentation after them.
func unwrap(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\n' || s[i] == '\r':
			for i+1 < len(s) && (s[i+1] == ' ' || s[i+1] == '\t') {
				i++
			}
		case s[i] == '\\' && i+1 < len(s) && s[i+1] == 'n':
			i++
			for i+1 < len(s) && (s[i+1] == ' ' || s[i+1] == '\t') {
				i++
			}
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// TestActionIgnoresDotenv: a repository that commits a .env with placeholder keys must still
// skip a fork pull request (whose secrets are withheld) instead of running with the
// placeholders; the run says the file was not read.
func TestActionIgnoresDotenv(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	gh := actiontest.StartGitHub(t)
	ws := t.TempDir()
	writeFiles(t, ws, map[string]string{
		".env":         "AGENTV_E2E_OPENAI_KEY=sk-placeholder-replace-me\n",
		"targets.yaml": "targets:\n  - name: default\n    provider: openai\n    model: gpt-4o\n    api_key: ${{ AGENTV_E2E_OPENAI_KEY }}\n",
		"evals/s.yaml": "evalcases:\n  - id: a\n    input: hi\n",
	})
	if err := os.Mkdir(filepath.Join(ws, ".git"), 0o755); err != nil { // .env sits at the repository root
		t.Fatal(err)
	}
	res := runAction(t, ws, "event-pull_request-fork.json", gh, map[string]string{"evals": "evals"})
	if res.code != 0 || res.outputs["outcome"] != "skipped" {
		t.Fatalf("exit %d outputs %v\n%s", res.code, res.outputs, res.stdout)
	}
	if !strings.Contains(res.stdout, "::notice title=agentv::.env was not read") {
		t.Errorf("no notice about the unread .env:\n%s", res.stdout)
	}
	// Locally the same .env is read: the placeholder key is used (and masked).
	res2 := agentv(t, ws, nil, "validate", "evals")
	if strings.Contains(res2.stdout, "AGENTV_E2E_OPENAI_KEY") {
		t.Errorf("validate outside Actions did not read .env:\n%s", res2.stdout)
	}
}

// TestSecretsOfLaterTargetsFilesAreMaskedFromTheStart: the targets file of an eval file run
// later is loaded, and its secrets registered, before the first case runs. The first eval
// file has more cases than a target's queue holds, so its first cases finish before the
// second file is even read; their agent prints the second file's key.
func TestSecretsOfLaterTargetsFilesAreMaskedFromTheStart(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	const key = "sk-e2e-later-file-0123456789"
	const n = 1200
	var cases strings.Builder
	for i := range n {
		fmt.Fprintf(&cases, "{\"id\": \"c%d\", \"input\": \"hi\"}\n", i)
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"a/targets.yaml": "targets:\n  - name: default\n    provider: cli\n    command_template: echo key $AGENTV_E2E_LATER_KEY\n" +
			"    workers: 4\n    judge_target: judge\n  - name: judge\n    provider: mock\n    response: '{\"score\": 1}'\n",
		"a/s.jsonl": cases.String(),
		"b/targets.yaml": "targets:\n  - name: default\n    provider: mock\n    response: fine\n" +
			"  - name: never-runs\n    provider: openai\n    model: gpt-4o\n    api_key: ${{ AGENTV_E2E_LATER_KEY }}\n",
		"b/s.yaml": "evalcases:\n  - id: later\n    input: hi\n",
	})
	res := agentv(t, dir, []string{"AGENTV_E2E_LATER_KEY=" + key}, "eval", "a/s.jsonl", "b/s.yaml")
	if len(res.records) != n+1 {
		t.Fatalf("exit %d, %d records\n%s\n%s", res.code, len(res.records), res.stdout, res.stderr)
	}
	leaked := 0
	for _, r := range res.records {
		if strings.Contains(r.CandidateAnswer, key) {
			leaked++
		}
	}
	if leaked > 0 || strings.Contains(res.stdout+res.stderr, key) {
		t.Errorf("the key of b/targets.yaml is in %d of a's records", leaked)
	}
	if a := res.records[0].CandidateAnswer; !strings.Contains(a, "key ***") {
		t.Errorf("a's agent did not print the masked key: %q", a)
	}
}
