package e2e_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// probeScript reads, as a hostile agent or judge would, the environment of itself and of
// every ancestor up to the test process, and the memory-free views of agentv's descriptors.
// It writes everything it could read to probe-<role>.txt (unredacted) and prints it.
const probeScript = `import json, os, sys
role = sys.argv[1]
stop = int(os.environ.get("AGENTV_E2E_TEST_PID", "0"))
seen = []
def read(path):
    try:
        with open(path, "rb") as f:
            seen.append(path + ": " + f.read().replace(b"\0", b"\n").decode("utf-8", "replace"))
    except OSError as e:
        seen.append(path + ": " + type(e).__name__)
read("/proc/self/environ")
pid = os.getppid()
while pid > 1 and pid != stop:
    read("/proc/%d/environ" % pid)
    try:
        for fd in os.listdir("/proc/%d/fd" % pid):
            target = os.readlink("/proc/%d/fd/%s" % (pid, fd))
            if target.startswith("pipe:"):
                seen.append("pid %d fd %s is %s" % (pid, fd, target))
    except OSError as e:
        seen.append("fds of %d: %s" % (pid, type(e).__name__))
    with open("/proc/%d/stat" % pid) as f:
        pid = int(f.read().rsplit(")", 1)[1].split()[1])
text = "\n".join(seen)
with open("probe-%s.txt" % role, "a") as f:
    f.write(text + "\n")
if role == "agent":
    with open(sys.argv[2], "w") as f:
        json.dump({"text": text}, f)
else:
    json.load(sys.stdin)
    print(json.dumps({"score": 1, "hits": [], "misses": [], "reasoning": text}))
`

// tokenEnv are the tokens the runner and the Action give agentv's process.
var tokenEnv = map[string]string{
	"INPUT_GITHUB-TOKEN":             "ghs_inputTokenValue0123456789",
	"ACTIONS_RUNTIME_TOKEN":          "eyJruntimeTokenValue0123456789",
	"ACTIONS_ID_TOKEN_REQUEST_TOKEN": "eyJidRequestTokenValue0123456",
	"GITHUB_TOKEN":                   "ghp_envTokenValue0123456789ab",
}

// TestTokensUnreadableByChildren: no agent, judge or file reference can read the GitHub
// token or the Actions runtime tokens from agentv's environment (/proc/<pid>/environ),
// as a plain process and as a container's init; a target that references
// ${{ GITHUB_TOKEN }} still gets it.
func TestTokensUnreadableByChildren(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	if _, err := os.Stat("/proc/self/environ"); err != nil {
		t.Skip("no /proc")
	}
	requireTools(t, "python3")
	for _, mode := range []struct{ name, init string }{{"process", ""}, {"init", "AGENTV_INIT=1"}} {
		t.Run(mode.name, func(t *testing.T) {
			t.Parallel()
			var mu sync.Mutex
			var auth []string
			var bodies bytes.Buffer
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				auth = append(auth, r.Header.Get("Authorization"))
				_, _ = io.Copy(&bodies, r.Body)
				mu.Unlock()
				w.Header().Set("Content-Type", "application/json")
				_, _ = io.WriteString(w, `{"id":"c1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"fine"}}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`)
			}))
			defer srv.Close()
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{
				"probe.py": probeScript,
				"targets.yaml": fmt.Sprintf(`targets:
  - name: default
    provider: cli
    command_template: python3 probe.py agent {OUTPUT_FILE}
  - name: models
    provider: openai
    base_url: %s/v1
    model: m
    api_key: ${{ GITHUB_TOKEN }}
`, srv.URL),
				"s.yaml": `evaluators: [{name: probe, type: code_judge, script: [python3, probe.py, judge]}]
evalcases:
  - id: probe
    input_messages:
      - role: user
        content:
          - {type: text, value: hi}
          - {type: file, value: /proc/self/environ}
  - id: uses-token
    input_messages:
      - role: user
        content:
          - {type: text, value: hi}
          - {type: file, value: /proc/self/environ}
    execution: {target: models}
`,
			})
			env := append(cleanEnv(), "AGENTV_E2E_TEST_PID="+strconv.Itoa(os.Getpid()))
			for k, v := range tokenEnv {
				env = append(env, k+"="+v)
			}
			if mode.init != "" {
				env = append(env, mode.init)
			}
			out := t.TempDir()
			cmd := exec.Command(agentvBin, "eval", "s.yaml", "--out", filepath.Join(out, "results.jsonl"))
			cmd.Dir, cmd.Env = dir, env
			var buf bytes.Buffer
			cmd.Stdout, cmd.Stderr = &buf, &buf
			_ = cmd.Run()
			texts := map[string]string{"output": buf.String()}
			for _, f := range []string{"probe-agent.txt", "probe-judge.txt"} {
				b, err := os.ReadFile(filepath.Join(dir, f))
				if err != nil {
					t.Fatalf("%s: %v\n%s", f, err, buf.String())
				}
				texts[f] = string(b)
			}
			res, err := os.ReadFile(filepath.Join(out, "results.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			texts["results.jsonl"] = string(res)
			if !strings.Contains(texts["probe-agent.txt"], "/proc/self/environ") || !strings.Contains(texts["probe-agent.txt"], "PATH=") {
				t.Fatalf("the probe read nothing:\n%s", texts["probe-agent.txt"])
			}
			for name, text := range texts {
				for k, v := range tokenEnv {
					if strings.Contains(text, v) {
						t.Errorf("%s holds %s", name, k)
					}
				}
			}
			mu.Lock()
			defer mu.Unlock()
			// The file reference sent agentv's own environment to the model: without the tokens.
			if sent := bodies.String(); !strings.Contains(sent, "PATH=") {
				t.Errorf("the model was not sent /proc/self/environ: %.300s", sent)
			} else {
				for k, v := range tokenEnv {
					if strings.Contains(sent, v) {
						t.Errorf("the model was sent %s", k)
					}
				}
			}
			if len(auth) == 0 || auth[0] != "Bearer "+tokenEnv["GITHUB_TOKEN"] {
				t.Errorf("the target referencing ${{ GITHUB_TOKEN }} sent %d requests, Authorization %q", len(auth), auth)
			}
		})
	}
}

// TestInitReapsOrphans: as init (a container's PID 1, here a subreaper through
// AGENTV_INIT=1), agentv reaps the orphans its agents leave behind. agentv runs under a
// helper that is itself a subreaper: an orphan agentv does not reap is reparented to the
// helper, which never waits for it, so it stays a zombie.
func TestInitReapsOrphans(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	requireTools(t, "python3")
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"subreaper.py": subreaperScript,
		"orphan.sh":    orphanScript,
		"targets.yaml": "targets:\n  - name: default\n    provider: cli\n    command_template: sh orphan.sh\n",
		"judge.py":     "print('{\"score\": 1}')\n",
		"s.yaml":       "evalcases:\n  - id: orphan\n    input: hi\n    evaluators: [{name: ok, type: code_judge, script: [python3, judge.py]}]\n",
	})
	out := t.TempDir()
	cmd := exec.Command("python3", "subreaper.py", agentvBin, "eval", "s.yaml", "--out", filepath.Join(out, "results.jsonl"))
	cmd.Dir = dir
	cmd.Env = append(cleanEnv(), "AGENTV_INIT=1")
	got, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, got)
	}
	if !strings.Contains(string(got), "zombies: none") {
		t.Errorf("agentv left zombies behind:\n%s", got)
	}
	recs, err := readRecords(filepath.Join(out, "results.jsonl"))
	if err != nil || len(recs) != 1 {
		t.Fatalf("%d records, %v\n%s", len(recs), err, got)
	}
	if a := strings.TrimSpace(recs[0].CandidateAnswer); a != "reaped" {
		t.Errorf("orphan: %s", a)
	}
}

// subreaperScript runs a command as a subreaper and lists the zombies left as its children.
const subreaperScript = `import ctypes, os, subprocess, sys
if ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0) != 0:  # PR_SET_CHILD_SUBREAPER
    sys.exit("prctl failed")
p = subprocess.Popen(sys.argv[1:])
p.wait()
me, zombies = str(os.getpid()), []
for pid in filter(str.isdigit, os.listdir("/proc")):
    try:
        with open("/proc/%s/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        continue
    if fields[0] == "Z" and fields[1] == me:
        zombies.append(pid)
print("agentv exit", p.returncode, "zombies:", " ".join(zombies) or "none")
`

const orphanScript = `#!/bin/sh
# Leaves an orphan behind, waits until it has ended, and says whether it was reaped.
rm -f orphan.pid
(sh -c 'echo $$ > orphan.pid; exec sleep 0.1' &)
while [ ! -s orphan.pid ]; do sleep 0.02; done
pid=$(cat orphan.pid)
i=0
# Wait for the orphan to end: gone, or a zombie for about 5 s (nobody reaps it).
while [ -e /proc/$pid ] && [ $i -lt 100 ]; do
  state=$(awk '{print $3}' /proc/$pid/stat 2>/dev/null)
  if [ "$state" = Z ]; then i=$((i+1)); fi
  sleep 0.05
done
if [ -e /proc/$pid ]; then echo "zombie $pid"; else echo "reaped"; fi
`
