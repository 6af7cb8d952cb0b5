package differential

import (
	"context"
	"fmt"
	"maps"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"
)

// TestAgainstAgentV442 runs the differential suites through agentv and AgentV 4.42.4 and fails
// on any difference in test scores, verdicts, grader scores and verdicts, or code-grader payload
// shapes that neither known-differences.yaml nor pending.yaml expects, and on entries of those
// lists that no longer match anything.
func TestAgainstAgentV442(t *testing.T) {
	t.Parallel()
	cli := os.Getenv("AGENTV_TEST_AGENTV442")
	if cli == "" {
		t.Skip("AGENTV_TEST_AGENTV442 is unset: set it to AgentV 4.42.4's dist/cli.js (.ci/run installs agentv@4.42.4 and sets it)")
	}
	if _, err := os.Stat(cli); err != nil {
		t.Fatalf("AGENTV_TEST_AGENTV442: %v", err)
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed: AgentV 4.42.4 and the suites' scripts need it")
	}
	here := sourceDir(t)
	anchors, err := Anchors(filepath.Join(here, "..", "..", "docs", "agentv-4.md"))
	if err != nil {
		t.Fatal(err)
	}
	known, err := LoadList(filepath.Join(here, "known-differences.yaml"), "known", anchors)
	if err != nil {
		t.Fatal(err)
	}
	pending, err := LoadList(filepath.Join(here, "pending.yaml"), "pending", anchors)
	if err != nil {
		t.Fatal(err)
	}

	tmp := t.TempDir()
	ours := filepath.Join(tmp, "agentv")
	build := exec.Command("go", "build", "-o", ours, "./cmd/agentv")
	build.Dir = filepath.Join(here, "..", "..")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building agentv: %v\n%s", err, out)
	}
	fake := &FakeOpenAI{}
	srv := httptest.NewServer(fake) // 127.0.0.1
	defer srv.Close()

	type side struct {
		name     string
		dir      string
		outcomes map[string]Outcome
		payloads map[string]map[string]string
	}
	sides := []*side{{name: "agentv", dir: filepath.Join(tmp, "ours")}, {name: "4.42.4", dir: filepath.Join(tmp, "theirs")}}
	var files []DiffFile
	for _, s := range sides {
		suite, err := WriteDifferential(filepath.Join(s.dir, "suites"), srv.URL+"/v1")
		if err != nil {
			t.Fatal(err)
		}
		files = suite.Files
		if err := os.MkdirAll(filepath.Join(s.dir, "payloads"), 0o755); err != nil {
			t.Fatal(err)
		}
		s.outcomes = map[string]Outcome{}
	}

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	type run struct {
		side *side
		file DiffFile
		out  string // result file
		log  string
		took time.Duration
	}
	var runs []*run
	for _, f := range files {
		for _, s := range sides {
			runs = append(runs, &run{side: s, file: f})
		}
	}
	var g errgroup.Group
	g.SetLimit(max(2, runtime.NumCPU()))
	for i, r := range runs {
		g.Go(func() error {
			suites := filepath.Join(r.side.dir, "suites")
			rundir := filepath.Join(r.side.dir, "runs", fmt.Sprint(i))
			// Both write 4.x's run layout with -o, and their index.jsonl files are compared:
			// the file a 4.x user reads. (Our results.jsonl is our own record format.)
			r.out = filepath.Join(rundir, "index.jsonl")
			prog := []string{ours}
			if r.side.name != "agentv" {
				prog = []string{"node", cli}
			}
			args := append(prog[1:], "eval", r.file.Eval, "--targets", r.file.Targets, "-o", rundir, "--workers", "8")
			args = append(args, r.file.Args...)
			// Each run's own temporary folder, holding the folders 4.42.4 needs for the prompt
			// files of cli conversation turns (DiffTurnFolders).
			tmpdir := filepath.Join(r.side.dir, "tmp", fmt.Sprint(i))
			for _, id := range DiffTurnFolders {
				if err := os.MkdirAll(filepath.Join(tmpdir, "agentv-"+id), 0o755); err != nil {
					return err
				}
			}
			cmd := exec.CommandContext(ctx, prog[0], args...)
			cmd.Dir = suites
			cmd.Env = append(append(os.Environ(), DiffEnv()...), "AGENTV_NO_UPDATE_CHECK=1", "TMPDIR="+tmpdir,
				DiffPayloadEnv+"="+filepath.Join(r.side.dir, "payloads"), "NO_COLOR=1",
				// The built-in grader's key and, for agentv, its server (--grader-target agentv).
				"OPENAI_API_KEY=fake-key", "OPENAI_BASE_URL="+srv.URL+"/v1")
			start := time.Now()
			out, err := cmd.CombinedOutput()
			r.log, r.took = string(out), time.Since(start)
			if ctx.Err() != nil {
				return fmt.Errorf("%s on %s: %w", r.side.name, r.file.Eval, ctx.Err())
			}
			_ = err // both programs exit non-zero when tests fail: the result files tell
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	for _, r := range runs {
		t.Logf("%s on %s: %.1fs", r.side.name, r.file.Eval, r.took.Seconds())
		got, err := ReadIndex(r.out)
		if err != nil {
			// Its tests then show as missing on that side, and the lists decide whether that fails.
			t.Logf("%s wrote no results for %s: %v\n%s", r.side.name, r.file.Eval, err, tail(r.log))
			continue
		}
		for id, o := range got {
			if o.Verdict == "error" {
				t.Logf("%s: %s errored: %s", r.side.name, id, firstLine(o.Error))
			}
		}
		maps.Copy(r.side.outcomes, got)
	}
	for _, s := range sides {
		if s.payloads, err = ReadPayloads(filepath.Join(s.dir, "payloads")); err != nil {
			t.Fatal(err)
		}
	}
	if u := fake.Unexpected(); len(u) > 0 {
		t.Errorf("the fake OpenAI server refused %d requests:\n%s", len(u), strings.Join(u, "\n"))
	}
	if len(sides[1].outcomes) == 0 {
		t.Fatal("4.42.4 produced no results at all (see the logs above)")
	}

	for _, f := range files {
		for _, id := range f.Tests {
			_, o := sides[0].outcomes[id]
			_, th := sides[1].outcomes[id]
			if !o && !th {
				t.Logf("neither program ran %s (%s): it compares nothing", id, f.Eval)
			}
		}
	}
	diffs := append(Compare(sides[0].outcomes, sides[1].outcomes),
		ComparePayloads(sides[0].payloads, sides[1].payloads)...)
	c := Classify(diffs, known, pending)
	t.Logf("%d tests compared, %d code-grader payloads; %d differences: %d known, %d pending a fix, %d unexpected",
		len(sides[1].outcomes), len(sides[1].payloads), len(diffs), len(c.Known), len(c.Pending), len(c.Unexpected))
	for _, d := range c.Known {
		t.Logf("known: %s", d)
	}
	for _, fix := range slices.Sorted(maps.Keys(c.PendingBy)) {
		t.Logf("pending %q (%d):", fix, len(c.PendingBy[fix]))
		for _, d := range c.PendingBy[fix] {
			t.Logf("  %s", d)
		}
	}
	for _, d := range c.Unexpected {
		t.Errorf("NEW DIFFERENCE: %s", d)
	}
	for _, e := range c.UnusedKnown {
		t.Errorf("%s matches no difference: remove it (and its docs row if the difference is gone)", e.Where("known-differences.yaml"))
	}
	for _, e := range c.UnusedPending {
		t.Errorf("%s matches no difference: its fix (%s) landed, remove it", e.Where("pending.yaml"), e.WaitsFor)
	}
}

// The lists are checked without 4.42.4 too: a renamed docs heading or an entry without its
// reason fails here, in every go test run, not only in CI.
func TestLists(t *testing.T) {
	t.Parallel()
	here := sourceDir(t)
	anchors, err := Anchors(filepath.Join(here, "..", "..", "docs", "agentv-4.md"))
	if err != nil {
		t.Fatal(err)
	}
	for file, kind := range map[string]string{"known-differences.yaml": "known", "pending.yaml": "pending"} {
		if _, err := LoadList(filepath.Join(here, file), kind, anchors); err != nil {
			t.Error(err)
		}
	}
}

func sourceDir(t *testing.T) string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("no caller")
	}
	return filepath.Dir(file)
}

func tail(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > 15 {
		lines = lines[len(lines)-15:]
	}
	return strings.Join(lines, "\n")
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
