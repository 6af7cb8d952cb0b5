//go:build unix

package jsworker

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentv/action/internal/jsruntime"
	"github.com/agentv/action/internal/proc"
)

// benchGrader is bench/graders.sh's grader written with @agentv/sdk.
const benchGrader = `import { defineCodeGrader } from '@agentv/sdk';
defineCodeGrader(({ output }) => {
  const ok = JSON.stringify(output).includes('42');
  return { score: ok ? 1 : 0, assertions: [{ text: 'answers 42', passed: ok }] };
});
`

// One grader call, spawned and in a warm worker, under node (a .mjs grader), bun and tsx (a
// .ts grader): go test -bench . -run '^$' ./internal/jsworker
func BenchmarkNodeSpawn(b *testing.B)  { benchCalls(b, "node", "grader.mjs", false) }
func BenchmarkNodeWorker(b *testing.B) { benchCalls(b, "node", "grader.mjs", true) }
func BenchmarkBunSpawn(b *testing.B)   { benchCalls(b, "bun", "grader.ts", false) }
func BenchmarkBunWorker(b *testing.B)  { benchCalls(b, "bun", "grader.ts", true) }
func BenchmarkTsxSpawn(b *testing.B)   { benchCalls(b, "tsx", "grader.ts", false) }
func BenchmarkTsxWorker(b *testing.B)  { benchCalls(b, "tsx", "grader.ts", true) }

func benchCalls(b *testing.B, runtime, name string, worker bool) {
	if _, err := exec.LookPath(runtime); err != nil {
		b.Skipf("%s is not installed", runtime)
	}
	dir := b.TempDir()
	script := filepath.Join(dir, name)
	if err := os.WriteFile(script, []byte(benchGrader), 0o600); err != nil {
		b.Fatal(err)
	}
	// Only the runtime under test is found, so that a .ts grader runs with it.
	look := func(file string) (string, error) {
		if file != runtime && file != "node" {
			return "", exec.ErrNotFound
		}
		return exec.LookPath(file)
	}
	argv, extra, err := jsruntime.Resolver{LookPath: look}.Command(script)
	if err != nil {
		b.Fatal(err)
	}
	if !strings.Contains(filepath.Base(argv[0]), runtime) {
		b.Fatalf("%q does not run with %s", argv, runtime)
	}
	c := proc.Cmd{Argv: argv, Dir: dir, Env: append(os.Environ(), extra...), Stdin: []byte(strings.Replace(payload, `"output":"x"`, `"output":"the answer is 42"`, 1)), Timeout: time.Minute}
	pool := NewPool(1)
	defer pool.Close()
	run := proc.Run
	if worker {
		run = pool.Run
		if _, err := run(context.Background(), c); err != nil { // the worker's start is not a call's cost
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for b.Loop() {
		res, err := run(context.Background(), c)
		if err != nil || !strings.HasPrefix(string(res.Stdout), `{"score":1,`) {
			b.Fatalf("%v %q", err, res.Stdout)
		}
	}
	if worker && (pool.Starts() != 1 || pool.Served() != b.N+1) {
		b.Fatalf("%d workers started, %d of %d calls served", pool.Starts(), pool.Served(), b.N+1)
	}
}

// The check that sends a script on the user's own @agentv/sdk (4.42.4's) to a spawn, which then
// costs what a spawn always cost: go test -bench Eligible -run '^$' ./internal/jsworker
func BenchmarkEligibleUserSDK(b *testing.B) {
	dir := b.TempDir()
	pkg := filepath.Join(dir, "node_modules", "@agentv", "sdk")
	if err := os.MkdirAll(pkg, 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(pkg, "package.json"), []byte(`{"name":"@agentv/sdk","version":"4.42.4"}`), 0o644); err != nil {
		b.Fatal(err)
	}
	script := filepath.Join(dir, "grader.mjs")
	if err := os.WriteFile(script, []byte(benchGrader), 0o644); err != nil {
		b.Fatal(err)
	}
	c := proc.Cmd{Argv: []string{"node", script}, Dir: dir, Env: os.Environ(), Stdin: []byte(payload)}
	for b.Loop() {
		if _, ok := eligible(c); ok {
			b.Fatal("a script on the user's own SDK is not for a worker")
		}
	}
}
