package forkserver

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentv/action/internal/proc"
)

// benchGrader reads its payload and scores it, importing what graders commonly import.
const benchGrader = "import json, re, sys\np = json.load(sys.stdin)\nprint(json.dumps({'score': 1 if re.search('42', p['output']) else 0}))\n"

// One grader call: spawned, forked, and forked from a server that imported json and re
// before forking (go test -bench . -run ^$ ./internal/forkserver).
func BenchmarkSpawn(b *testing.B)         { benchCalls(b, nil, false) }
func BenchmarkFork(b *testing.B)          { benchCalls(b, nil, true) }
func BenchmarkForkPreimport(b *testing.B) { benchCalls(b, []string{"json", "re"}, true) }

func benchCalls(b *testing.B, preimport []string, fork bool) {
	py := python(b)
	dir := b.TempDir()
	script := filepath.Join(dir, "grader.py")
	if err := os.WriteFile(script, []byte(benchGrader), 0o600); err != nil {
		b.Fatal(err)
	}
	pool := NewPool(1)
	pool.Preimport = preimport
	defer pool.Close()
	c := proc.Cmd{Argv: []string{py, script}, Dir: dir, Env: os.Environ(), Stdin: []byte(`{"output": "the answer is 42"}`), Timeout: 30 * time.Second}
	run := proc.Run
	if fork {
		run = pool.Run
		if _, err := run(context.Background(), c); err != nil { // the server's start is not a call's cost
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for b.Loop() {
		res, err := run(context.Background(), c)
		if err != nil || string(res.Stdout) != "{\"score\": 1}\n" {
			b.Fatalf("%v %q", err, res.Stdout)
		}
	}
}
