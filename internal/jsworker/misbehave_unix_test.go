//go:build unix

package jsworker

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentv/action/internal/jsruntime"
	"github.com/agentv/action/internal/proc"
)

// payload is a grader payload @agentv/sdk accepts.
const payload = `{"criteria":"c","expected_output":[],"input":[],"input_files":[],"output":"x"}`

// outcome is what a caller of proc.Run can see of a call.
type outcome struct {
	stdout, stderr  string
	truncated       bool
	exit            int
	timedOut        bool
	errText         string
	stdoutLen       int
	stderrTruncated bool
}

func outcomeOf(res *proc.Result, err error) outcome {
	var o outcome
	if res != nil {
		o = outcome{stdout: string(res.Stdout), stderr: string(res.Stderr), truncated: res.StdoutTruncated,
			exit: res.ExitCode, stdoutLen: len(res.Stdout), stderrTruncated: res.StderrTruncated}
	}
	var perr *proc.Error
	if errors.As(err, &perr) {
		o.timedOut = perr.TimedOut
		o.errText = perr.Error()
	} else if err != nil {
		o.errText = err.Error()
	}
	return o
}

// graderCmd writes src as name in a new folder and returns the command that runs it with the
// given runtime ("node" or "bun"), as agentv would.
func graderCmd(t *testing.T, runtime, name, src string, env []string) proc.Cmd {
	t.Helper()
	dir := t.TempDir()
	script := filepath.Join(dir, name)
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	r := jsruntime.Resolver{Env: env}
	var argv, extra []string
	var err error
	switch runtime {
	case "node":
		argv, extra, err = r.Command(script)
	case "bun":
		bun, lerr := exec.LookPath("bun")
		if lerr != nil {
			t.Skip("bun is not installed")
		}
		argv = []string{bun, "run", script}
		extra, err = r.SDKEnv()
	}
	if err != nil {
		t.Fatal(err)
	}
	return proc.Cmd{Argv: argv, Dir: dir, Env: append(append([]string{}, env...), extra...), Stdin: []byte(payload), Timeout: 20 * time.Second}
}

// baseEnv is the test's environment without AGENTV_JW_SECRET, which a test sets in the
// process to show a worker sees only the environment it is given.
func baseEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "AGENTV_JW_SECRET=") {
			env = append(env, kv)
		}
	}
	return env
}

const grader = `import { defineCodeGrader } from '@agentv/sdk';
`

// TestWorkerMatchesSpawn runs misbehaving graders twice spawned and twice in a worker pool and
// compares what a caller sees. The contract: every call gives what a spawned run gives (stdout,
// stderr, exit code, timeout, caps), except module-level variables, which keep their values
// between the calls one worker serves (module code runs once per worker, the point of a worker);
// globals, the environment and the working directory do not carry over (a call that changes
// them retires its worker).
//
//nolint:paralleltest // starts node, bun and tsx and times their timeouts: one test at a time on a small machine
func TestWorkerMatchesSpawn(t *testing.T) {
	if testing.Short() {
		t.Skip("starts node")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed")
	}
	t.Setenv("AGENTV_JW_SECRET", "hunter2")
	cwdFile := ""
	cases := []struct {
		name, src string
		runtimes  []string
		timeout   time.Duration
		starts    int  // workers the pool starts for the two calls
		spawned   bool // no worker serves the calls
		same      bool // the outcomes must be equal
		check     func(t *testing.T, spawn, worker [2]outcome)
	}{
		{name: "well-behaved", starts: 1, same: true, runtimes: []string{"node", "bun"},
			src: grader + `defineCodeGrader(({ output }) => ({ score: output === 'x' ? 1 : 0, assertions: [{ text: 'x', passed: true }] }));`},
		{name: "console.log and console.error in the handler", starts: 1, same: true, runtimes: []string{"node", "bun"},
			src: grader + `defineCodeGrader(() => { console.log('debug', {a: 1}); console.error('note'); return { score: 1 }; });`},
		{name: "process.exit in module code", starts: 1, same: true, spawned: true,
			src: grader + `process.exit(3);
defineCodeGrader(() => ({ score: 1 }));`},
		{name: "prints in module code", starts: 1, same: true, spawned: true,
			src: grader + `console.log('loaded');
defineCodeGrader(() => ({ score: 1 }));`},
		{name: "process.exit in the handler", starts: 2, same: true, runtimes: []string{"node", "bun"},
			src: grader + `defineCodeGrader(() => { console.log('partial'); process.exit(2); });`},
		{name: "process.exit(0) in the handler", starts: 2, same: true,
			src: grader + `defineCodeGrader(() => { process.stdout.write('{"score": 0.5}'); process.exit(0); });`},
		{name: "throw", starts: 2, same: true, runtimes: []string{"node", "bun"},
			src: grader + `defineCodeGrader(() => { throw new Error('bad grader'); });`},
		{name: "returns no score", starts: 2, same: true,
			src: grader + `defineCodeGrader(() => ({ hits: [] }));`},
		{name: "process.exitCode", starts: 2, same: true,
			src: grader + `defineCodeGrader(() => { process.exitCode = 4; return { score: 1 }; });`},
		{name: "unhandled rejection", starts: 2, runtimes: []string{"node"},
			src: grader + `defineCodeGrader(() => { Promise.reject(new Error('floating boom')); return { score: 1 }; });`,
			check: func(t *testing.T, spawn, worker [2]outcome) {
				for i := range 2 {
					if spawn[i].exit != worker[i].exit || spawn[i].stdout != worker[i].stdout || !strings.Contains(worker[i].stderr, "floating boom") {
						t.Errorf("call %d: spawn %+v, worker %+v", i, spawn[i], worker[i])
					}
				}
			}},
		{name: "garbage on stdout", starts: 1, same: true,
			src: grader + `defineCodeGrader(() => { process.stdout.write('<<not json>>\x00\x01'); return { score: 1 }; });`},
		{name: "huge output is capped", starts: 1, same: true, runtimes: []string{"node", "bun"},
			src: grader + `defineCodeGrader(() => { process.stdout.write('y'.repeat(5 << 20)); process.stderr.write('z'.repeat(5 << 20)); return { score: 1 }; });`},
		{name: "a timer left running ends the call when it ends", starts: 1, same: true,
			src: grader + `defineCodeGrader(() => { setTimeout(() => console.log('late'), 100); return { score: 1 }; });`},
		{name: "a global leaked in one call is not seen by the next", starts: 2, same: true, runtimes: []string{"node", "bun"},
			src: grader + `defineCodeGrader(() => { globalThis.leaked = (globalThis.leaked ?? 0) + 1; return { score: globalThis.leaked === 1 ? 1 : 0 }; });`},
		{name: "a module variable keeps its value between calls", starts: 1, runtimes: []string{"node", "bun"},
			src: grader + `let calls = 0;
defineCodeGrader(() => ({ score: 1, reasoning: 'call ' + ++calls }));`,
			check: func(t *testing.T, spawn, worker [2]outcome) {
				if !strings.Contains(spawn[1].stdout, "call 1") || !strings.Contains(worker[1].stdout, "call 2") {
					t.Errorf("spawn %q, worker %q: the worker's module state is the contract", spawn[1].stdout, worker[1].stdout)
				}
			}},
		{name: "environment changed in a call is not seen by the next", starts: 2, same: true,
			src: grader + `defineCodeGrader(() => { const seen = process.env.AGENTV_JW_SET; process.env.AGENTV_JW_SET = '1'; return { score: seen ? 0 : 1 }; });`},
		{name: "chdir in a call is not seen by the next", starts: 2, same: true,
			src: grader + `import { mkdirSync } from 'node:fs';
defineCodeGrader(() => { const at = process.cwd(); mkdirSync('sub', { recursive: true }); process.chdir('sub'); return { score: 1, reasoning: at }; });`},
		{name: "reads only the environment it is given", starts: 1, same: true, runtimes: []string{"node", "bun"},
			src: grader + `defineCodeGrader(() => ({ score: process.env.AGENTV_JW_SECRET === undefined ? 1 : 0, reasoning: String(process.env.AGENTV_JW_SECRET) }));`},
		{name: "writes a file in its working directory", starts: 1, same: true,
			src: grader + `import { appendFileSync } from 'node:fs';
defineCodeGrader(() => { appendFileSync('written.txt', 'x'); return { score: 1 }; });`,
			check: func(t *testing.T, _, _ [2]outcome) {
				if b, err := os.ReadFile(cwdFile); err != nil || string(b) != "xxxx" {
					t.Errorf("written.txt: %q, %v; want 4 writes (2 spawned, 2 in the worker)", b, err)
				}
			}},
		{name: "hangs until the timeout kills the worker's group", starts: 2, same: true, timeout: 1500 * time.Millisecond,
			src: grader + `import { spawn } from 'node:child_process';
defineCodeGrader(async () => { spawn('sleep', ['30']); console.log('waiting'); await new Promise(() => setInterval(() => {}, 1000)); });`},
		{name: "not an SDK grader is spawned", starts: 0, same: true, spawned: true,
			src: `import { readFileSync } from 'node:fs';
const p = JSON.parse(readFileSync(0, 'utf8'));
console.log(JSON.stringify({ score: p.output === 'x' ? 1 : 0 }));`},
	}
	for _, tc := range cases {
		runtimes := tc.runtimes
		if runtimes == nil {
			runtimes = []string{"node"}
		}
		for _, rt := range runtimes {
			t.Run(tc.name+"/"+rt, func(t *testing.T) {
				c := graderCmd(t, rt, "grader.mjs", tc.src, baseEnv())
				cwdFile = filepath.Join(c.Dir, "written.txt")
				if tc.timeout > 0 {
					c.Timeout = tc.timeout
				}
				var spawn, worker [2]outcome
				for i := range 2 {
					spawn[i] = outcomeOf(proc.Run(context.Background(), c))
				}
				p := NewPool(4)
				defer p.Close()
				for i := range 2 {
					worker[i] = outcomeOf(p.Run(context.Background(), c))
				}
				if got := p.Starts(); got != tc.starts {
					t.Errorf("the pool started %d workers, want %d", got, tc.starts)
				}
				if served, want := p.Served(), map[bool]int{false: 2, true: 0}[tc.spawned]; served != want {
					t.Errorf("workers served %d calls, want %d", served, want)
				}
				if tc.same {
					for i := range 2 {
						if spawn[i] != worker[i] {
							t.Errorf("call %d:\nspawn  %+v\nworker %+v", i+1, short(spawn[i]), short(worker[i]))
						}
					}
				}
				if tc.check != nil {
					tc.check(t, spawn, worker)
				}
			})
		}
	}
}

// short keeps a failure message readable when outputs are megabytes.
func short(o outcome) outcome {
	o.stdout = proc.Excerpt(o.stdout, 300)
	o.stderr = proc.Excerpt(o.stderr, 300)
	return o
}

// TestWorkerRuntimesAndKinds: each define* runner, in JavaScript and TypeScript, under each
// runtime agentv picks, gives in a worker what it gives spawned, and the worker serves both calls.
//
//nolint:paralleltest // starts node, bun and tsx and times their timeouts: one test at a time on a small machine
func TestWorkerRuntimesAndKinds(t *testing.T) {
	if testing.Short() {
		t.Skip("starts node, bun and tsx")
	}
	v25 := `{"question":"q","expected_outcome":"e","reference_answer":"r","candidate_answer":"x","guideline_files":[],"input_files":[],"input_messages":[],"expected_messages":[],"output_messages":[]}`
	kinds := []struct{ name, file, src, stdin string }{
		{"grader in TypeScript", "g.ts", `import { defineCodeGrader, type CodeGraderInput } from '@agentv/sdk';
defineCodeGrader((input: CodeGraderInput) => ({ score: input.output === 'x' ? 1 : 0 }));`, payload},
		{"assertion", "a.mts", `import { defineAssertion } from '@agentv/sdk';
export default defineAssertion(({ output }) => ({ pass: output === 'x', reasoning: 'checked' }));`, payload},
		{"4.x prompt template", "t.mjs", `import { definePromptTemplate } from '@agentv/sdk';
definePromptTemplate(({ criteria, output }) => 'Criteria: ' + criteria + '\nAnswer: ' + output);`, payload},
		{"2.5 code judge", "j.js", `import { defineCodeJudge } from '@agentv/eval';
defineCodeJudge(({ candidateAnswer }) => ({ score: candidateAnswer === 'x' ? 1 : 0 }));`, v25},
		{"2.5 prompt template in CommonJS", "t.cjs", `const { definePromptTemplate } = require('@agentv/eval');
definePromptTemplate((ctx) => 'Question: ' + ctx.question);`, v25},
	}
	noBun := func(name string) (string, error) {
		if name == "bun" {
			return "", exec.ErrNotFound
		}
		return exec.LookPath(name)
	}
	runtimes := []struct {
		name string
		look jsruntime.LookPath
		need string
	}{{"default", nil, "node"}, {"tsx", noBun, "tsx"}}
	for _, rt := range runtimes {
		if _, err := exec.LookPath(rt.need); err != nil {
			continue
		}
		for _, k := range kinds {
			t.Run(rt.name+"/"+k.name, func(t *testing.T) {
				dir := t.TempDir()
				script := filepath.Join(dir, k.file)
				if err := os.WriteFile(script, []byte(k.src), 0o644); err != nil {
					t.Fatal(err)
				}
				argv, extra, err := jsruntime.Resolver{LookPath: rt.look}.Command(script)
				if err != nil {
					t.Skip(err)
				}
				c := proc.Cmd{Argv: argv, Dir: dir, Env: append(baseEnv(), extra...), Stdin: []byte(k.stdin), Timeout: 30 * time.Second}
				spawn := outcomeOf(proc.Run(context.Background(), c))
				if spawn.exit != 0 {
					t.Fatalf("spawned: %+v", spawn)
				}
				p := NewPool(2)
				defer p.Close()
				for i := range 2 {
					if got := outcomeOf(p.Run(context.Background(), c)); got != spawn {
						t.Errorf("call %d (%q):\nspawn  %+v\nworker %+v", i+1, argv, spawn, got)
					}
				}
				if p.Starts() != 1 || p.Served() != 2 {
					t.Errorf("%d workers started, %d calls served; want 1 and 2", p.Starts(), p.Served())
				}
			})
		}
	}
}

// TestUserSDKIsSpawned: a script whose imports find the user's own @agentv/sdk (4.42.4's reads
// stdin itself, at once) is spawned, never loaded in a worker.
//
//nolint:paralleltest // starts node, bun and tsx and times their timeouts: one test at a time on a small machine
func TestUserSDKIsSpawned(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed")
	}
	dir := t.TempDir()
	pkg := filepath.Join(dir, "node_modules", "@agentv", "sdk")
	files := map[string]string{
		filepath.Join(pkg, "package.json"): `{"name":"@agentv/sdk","version":"4.42.4","type":"module","main":"index.js"}`,
		filepath.Join(pkg, "index.js"): `import { readFileSync } from 'node:fs';
export async function defineCodeGrader(h) {
  const r = await h(JSON.parse(readFileSync(0, 'utf8')));
  console.log(JSON.stringify({ score: r.score, assertions: [{ text: 'user sdk', passed: true }] }));
}`,
		filepath.Join(dir, "g.mjs"): grader + `defineCodeGrader(({ output }) => ({ score: output === 'x' ? 1 : 0 }));`,
	}
	for p, src := range files {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	argv, extra, err := jsruntime.Resolver{}.Command(filepath.Join(dir, "g.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	c := proc.Cmd{Argv: argv, Dir: dir, Env: append(baseEnv(), extra...), Stdin: []byte(`{"output":"x"}`), Timeout: 30 * time.Second}
	p := NewPool(2)
	defer p.Close()
	got := outcomeOf(p.Run(context.Background(), c))
	if want := outcomeOf(proc.Run(context.Background(), c)); got != want || !strings.Contains(got.stdout, "user sdk") {
		t.Errorf("got %+v, want %+v from the user's SDK", got, want)
	}
	if p.Starts() != 0 {
		t.Errorf("%d workers started for a script on the user's own SDK", p.Starts())
	}
}

// TestConcurrentCalls: calls of one script at once get a worker each while the pool has room,
// and are spawned when it is full; every answer is the handler's for its own payload.
//
//nolint:paralleltest // starts node, bun and tsx and times their timeouts: one test at a time on a small machine
func TestConcurrentCalls(t *testing.T) {
	if testing.Short() {
		t.Skip("starts node")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed")
	}
	c := graderCmd(t, "node", "g.mjs", grader+`defineCodeGrader(async ({ output }) => {
  await new Promise((r) => setTimeout(r, 20));
  return { score: 1, reasoning: output };
});`, baseEnv())
	p := NewPool(2)
	defer p.Close()
	const goroutines, calls = 4, 6
	errs := make(chan error, goroutines*calls)
	for g := range goroutines {
		go func() {
			for i := range calls {
				cc := c
				want := strings.Repeat("o", g*calls+i+1)
				cc.Stdin = []byte(strings.Replace(payload, `"output":"x"`, `"output":"`+want+`"`, 1))
				res, err := p.Run(context.Background(), cc)
				switch {
				case err != nil:
					errs <- err
				case !strings.Contains(string(res.Stdout), `"reasoning":"`+want+`"`):
					errs <- errors.New("answer for another payload: " + string(res.Stdout))
				default:
					errs <- nil
				}
			}
		}()
	}
	for range goroutines * calls {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if p.Starts() > 2 || p.Served() == 0 {
		t.Errorf("%d workers started (at most 2), %d calls served", p.Starts(), p.Served())
	}
}

// TestMaxCalls: a worker is replaced after MaxCalls calls.
//
//nolint:paralleltest // starts node, bun and tsx and times their timeouts: one test at a time on a small machine
func TestMaxCalls(t *testing.T) {
	if testing.Short() {
		t.Skip("starts node")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed")
	}
	c := graderCmd(t, "node", "g.mjs", grader+`let n = 0;
defineCodeGrader(() => ({ score: 1, reasoning: String(++n) }));`, baseEnv())
	p := NewPool(2)
	p.MaxCalls = 2
	defer p.Close()
	var got []string
	for range 5 {
		res, err := p.Run(context.Background(), c)
		if err != nil {
			t.Fatal(err)
		}
		var out struct{ Reasoning string }
		if err := json.Unmarshal(res.Stdout, &out); err != nil {
			t.Fatalf("%q: %v", res.Stdout, err)
		}
		got = append(got, out.Reasoning)
	}
	if strings.Join(got, ",") != "1,2,1,2,1" || p.Starts() != 3 {
		t.Errorf("calls numbered %v by %d workers; want 1,2,1,2,1 by 3", got, p.Starts())
	}
}
