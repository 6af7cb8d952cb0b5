package cache

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/agentv/action/targets"

	"github.com/agentv/action/internal/atomicfile"
	"github.com/agentv/action/internal/redact"
	"github.com/agentv/action/providers"
	"github.com/agentv/action/suite"
)

// counter is a provider that answers every request with its question and counts its calls.
type counter struct {
	t     *targets.Target
	calls atomic.Int64
	fail  error  // returned instead of an answer when set
	bad   string // Response.Error when set
}

func (c *counter) Target() *targets.Target { return c.t }

func (c *counter) Invoke(_ context.Context, req *providers.Request) (*providers.Response, error) {
	c.calls.Add(1)
	if c.fail != nil {
		return nil, c.fail
	}
	in := int64(len(req.Question))
	return &providers.Response{Text: "answer to " + req.Question, Error: c.bad,
		Usage:          &providers.Usage{Input: in, Output: 7},
		OutputMessages: []suite.Message{{Role: suite.RoleAssistant, Content: suite.Content{Kind: suite.ContentText, Text: "answer to " + req.Question}}},
	}, nil
}

// loadTarget loads the first target of a targets file holding yaml.
func loadTarget(t testing.TB, yaml string, env map[string]string) *targets.Target {
	t.Helper()
	path := filepath.Join(t.TempDir(), "targets.yaml")
	if err := os.WriteFile(path, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	tf := targets.Load(path, func(k string) (string, bool) { v, ok := env[k]; return v, ok }, &redact.Redactor{})
	if suite.HasErrors(tf.Diagnostics) || len(tf.Targets) == 0 {
		t.Fatalf("targets: %v", tf.Diagnostics)
	}
	return tf.Targets[0]
}

const openaiTarget = "targets:\n  - name: default\n    provider: openai\n    model: m\n    api_key: k\n"

func loadTargetB(b *testing.B) *targets.Target { return loadTarget(b, openaiTarget, nil) }

func newCounter(t *testing.T) *counter {
	return &counter{t: loadTarget(t, openaiTarget, nil)}
}

func wrap(t *testing.T, s *Store, p providers.Provider) providers.Provider {
	t.Helper()
	w, err := s.Wrap(p)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// versionDir is the folder of this version's entries.
var versionDir = fmt.Sprintf("v%d", keyVersion)

// accepting is a context whose calls store every answer without an error, as the runner's
// target calls do.
func accepting() context.Context {
	return WithAccept(context.Background(), func(*providers.Response) bool { return true })
}

func ask(t *testing.T, p providers.Provider, q string) *providers.Response {
	t.Helper()
	resp, err := p.Invoke(accepting(), &providers.Request{EvalID: "c1", Question: q})
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func TestHitAfterMiss(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	c := newCounter(t)
	p := wrap(t, Open(Options{Dir: dir, Mode: ReadWrite}), c)
	first := ask(t, p, "q")
	// A second run: a new store on the same folder.
	s2 := Open(Options{Dir: dir, Mode: ReadWrite})
	p2 := wrap(t, s2, c)
	ctx, use := Track(accepting())
	second, err := p2.Invoke(ctx, &providers.Request{EvalID: "c1", Question: "q"})
	if err != nil {
		t.Fatal(err)
	}
	if n := c.calls.Load(); n != 1 {
		t.Fatalf("provider called %d times, want 1", n)
	}
	if second.Text != first.Text || second.Usage.Input != 1 || len(second.OutputMessages) != 1 ||
		second.OutputMessages[0].Content.Text != "answer to q" || second.OutputMessages[0].ToolCalls != nil {
		t.Errorf("cached answer = %+v, want %+v", second, first)
	}
	if r := use.Record(); r == nil || r.Hits != 1 || r.Misses != 0 || r.TokensSaved != 8 {
		t.Errorf("use = %+v, want 1 hit saving 8 tokens", r)
	}
}

func TestFailuresAreNotStored(t *testing.T) {
	t.Parallel()
	acceptAll := func(*providers.Response) bool { return true }
	for _, tc := range []struct {
		name   string
		c      func(*counter)
		accept Accept // nil: the caller said nothing
		calls  int64
	}{
		{name: "error", c: func(c *counter) { c.fail = errors.New("boom") }, accept: acceptAll, calls: 2},
		{name: "answer with error", c: func(c *counter) { c.bad = "batch line missing" }, accept: acceptAll, calls: 2},
		{name: "caller said nothing", calls: 2},
		{name: "caller rejected it", accept: func(*providers.Response) bool { return false }, calls: 2},
		{name: "caller accepted it", accept: acceptAll, calls: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := newCounter(t)
			if tc.c != nil {
				tc.c(c)
			}
			dir := t.TempDir()
			p := wrap(t, Open(Options{Dir: dir, Mode: ReadWrite}), c)
			ctx := context.Background()
			if tc.accept != nil {
				ctx = WithAccept(ctx, tc.accept)
			}
			for range 2 {
				_, _ = p.Invoke(ctx, &providers.Request{Question: "q", SystemPrompt: "answer in JSON"})
			}
			if n := c.calls.Load(); n != tc.calls {
				t.Errorf("provider called %d times, want %d", n, tc.calls)
			}
			if n := len(entryFiles(t, dir)); n != int(2-tc.calls) {
				t.Errorf("entries = %d, want %d", n, 2-tc.calls)
			}
		})
	}
}

// scripted is a judge that gives its replies in order, the last one for ever after.
type scripted struct {
	t       *targets.Target
	replies []string
	calls   atomic.Int64
}

func (s *scripted) Target() *targets.Target { return s.t }

func (s *scripted) Invoke(context.Context, *providers.Request) (*providers.Response, error) {
	n := int(s.calls.Add(1)) - 1
	return &providers.Response{Text: s.replies[min(n, len(s.replies)-1)]}, nil
}

// hasScore is a caller that takes only a reply holding a score, as a 4.x grader does.
func hasScore(resp *providers.Response) bool { return strings.Contains(resp.Text, `"score"`) }

// TestReaskedReplyIsNotReplayed: a judge reply that is no verdict is not stored, so asking
// the same question again reaches the judge; the verdict that follows is stored and answers
// the next run.
func TestReaskedReplyIsNotReplayed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	j := &scripted{t: loadTarget(t, openaiTarget, nil), replies: []string{`{"note": "let me think"}`, `{"score": 1}`}}
	req := &providers.Request{EvalID: "c1", Question: "grade this", SystemPrompt: "reply with a JSON verdict"}
	ctx := WithAccept(context.Background(), hasScore)
	p := wrap(t, Open(Options{Dir: dir, Mode: ReadWrite}), j)
	for i, want := range []string{`{"note": "let me think"}`, `{"score": 1}`} {
		resp, err := p.Invoke(ctx, req)
		if err != nil || resp.Text != want {
			t.Fatalf("ask %d: %v, %q; want %q", i+1, err, resp.Text, want)
		}
	}
	next := wrap(t, Open(Options{Dir: dir, Mode: ReadWrite}), j)
	if resp, err := next.Invoke(ctx, req); err != nil || resp.Text != `{"score": 1}` || j.calls.Load() != 2 {
		t.Errorf("next run: %v, %q after %d calls; want the stored verdict after 2", err, resp.Text, j.calls.Load())
	}
}

// TestStoredAnswerTheCallerRejectsIsAMiss: an entry the caller would not accept (an older
// version stored it, or a pull request wrote it) is asked again and replaced.
func TestStoredAnswerTheCallerRejectsIsAMiss(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	req := &providers.Request{EvalID: "c1", Question: "grade this", SystemPrompt: "reply with a JSON verdict"}
	bad := &scripted{t: loadTarget(t, openaiTarget, nil), replies: []string{`{"note": "no verdict"}`}}
	if _, err := wrap(t, Open(Options{Dir: dir, Mode: ReadWrite}), bad).Invoke(accepting(), req); err != nil {
		t.Fatal(err)
	}
	good := &scripted{t: bad.t, replies: []string{`{"score": 0}`}}
	s := Open(Options{Dir: dir, Mode: ReadWrite})
	ctx, use := Track(WithAccept(context.Background(), hasScore))
	for range 2 {
		if resp, err := wrap(t, s, good).Invoke(ctx, req); err != nil || resp.Text != `{"score": 0}` {
			t.Fatalf("%v, %q", err, resp.Text)
		}
	}
	if good.calls.Load() != 1 {
		t.Errorf("calls = %d, want 1 (the rejected entry asked again, then replaced)", good.calls.Load())
	}
	if r := use.Record(); r == nil || r.Hits != 1 || r.Misses != 1 {
		t.Errorf("use = %+v, want 1 miss then 1 hit", r)
	}
}

// TestBypass: calls marked Bypass (a code judge's target proxy) always reach the provider and
// store nothing.
func TestBypass(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	c := newCounter(t)
	s := Open(Options{Dir: dir, Mode: ReadWrite})
	p := wrap(t, s, c)
	ask(t, p, "q") // stored
	ctx, use := Track(Bypass(accepting()))
	for range 3 {
		if _, err := p.Invoke(ctx, &providers.Request{EvalID: "c1", Question: "q"}); err != nil {
			t.Fatal(err)
		}
		if _, err := p.Invoke(ctx, &providers.Request{EvalID: "c1", Question: "new"}); err != nil {
			t.Fatal(err)
		}
	}
	if c.calls.Load() != 7 || len(entryFiles(t, dir)) != 1 {
		t.Errorf("calls = %d, entries %d; want 7 and 1", c.calls.Load(), len(entryFiles(t, dir)))
	}
	if r := use.Record(); r != nil {
		t.Errorf("use = %+v; bypassed calls must not count", r)
	}
}

// entryFiles returns the entry files under dir.
func entryFiles(t *testing.T, dir string) []string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, versionDir, "*", "*.json"))
	return files
}

func TestDamagedEntriesAreMisses(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		damage func([]byte) []byte
	}{
		{"truncated", func(b []byte) []byte { return b[:len(b)/2] }},
		{"empty", func([]byte) []byte { return nil }},
		{"garbage", func([]byte) []byte { return []byte("\x00\xffnot json") }},
		{"answer altered", func(b []byte) []byte { return []byte(strings.Replace(string(b), "answer to q", "answer to X", 1)) }},
		{"other key", func(b []byte) []byte {
			return []byte(strings.Replace(string(b), `"key":"`, `"key":"0`, 1))
		}},
		{"other format", func(b []byte) []byte { return []byte(strings.Replace(string(b), entryFormat, "agentv-cache/0", 1)) }},
		{"null response", func([]byte) []byte { return []byte(`{"format":"agentv-cache/1","response":null}`) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			c := newCounter(t)
			ask(t, wrap(t, Open(Options{Dir: dir, Mode: ReadWrite}), c), "q")
			files := entryFiles(t, dir)
			if len(files) != 1 {
				t.Fatalf("entries = %v, want 1", files)
			}
			b, _ := os.ReadFile(files[0])
			if err := os.WriteFile(files[0], tc.damage(b), 0o644); err != nil {
				t.Fatal(err)
			}
			resp := ask(t, wrap(t, Open(Options{Dir: dir, Mode: ReadWrite}), c), "q")
			if c.calls.Load() != 2 || resp.Text != "answer to q" {
				t.Fatalf("calls = %d, answer %q: a damaged entry must be a miss", c.calls.Load(), resp.Text)
			}
			// The miss stored a whole entry again.
			ask(t, wrap(t, Open(Options{Dir: dir, Mode: ReadWrite}), c), "q")
			if c.calls.Load() != 2 {
				t.Errorf("the damaged entry was not replaced")
			}
		})
	}
}

func TestUnwritableCache(t *testing.T) {
	t.Parallel()
	// A folder that cannot be written: its path runs through a file (as root, permissions
	// would not stop a write).
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var logs []string
	logf := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		logs = append(logs, fmt.Sprintf(format, args...))
	}
	c := newCounter(t)
	p := wrap(t, Open(Options{Dir: filepath.Join(file, "cache"), Mode: ReadWrite, Logf: logf}), c)
	for _, q := range []string{"a", "b", "a"} {
		if resp := ask(t, p, q); resp.Text != "answer to "+q {
			t.Fatalf("answer %q", resp.Text)
		}
	}
	if c.calls.Load() != 3 {
		t.Errorf("calls = %d, want 3", c.calls.Load())
	}
	if len(logs) != 1 || !strings.Contains(logs[0], "cannot be written") {
		t.Errorf("logs = %q, want one warning", logs)
	}
}

func TestReadOnlyFolder(t *testing.T) {
	t.Parallel()
	if os.Geteuid() == 0 {
		t.Skip("root writes to read-only folders (TestUnwritableCache covers an unwritable cache)")
	}
	dir := t.TempDir()
	c := newCounter(t)
	ask(t, wrap(t, Open(Options{Dir: dir, Mode: ReadWrite}), c), "q")
	if err := os.Chmod(filepath.Join(dir, versionDir), 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Chmod(filepath.Join(dir, versionDir), 0o755) })
	p := wrap(t, Open(Options{Dir: dir, Mode: ReadWrite}), c)
	ask(t, p, "q")
	ask(t, p, "new")
	if c.calls.Load() != 2 {
		t.Errorf("calls = %d, want 2 (the stored answer is read, the new one made)", c.calls.Load())
	}
}

func TestReadOnlyModeStoresNothing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	c := newCounter(t)
	ask(t, wrap(t, Open(Options{Dir: dir, Mode: ReadWrite}), c), "q")
	ro := wrap(t, Open(Options{Dir: dir, Mode: ReadOnly}), c)
	ask(t, ro, "q")
	ask(t, ro, "new")
	ask(t, ro, "new")
	if c.calls.Load() != 3 {
		t.Errorf("calls = %d, want 3 (q from the cache, new twice)", c.calls.Load())
	}
	if n := len(entryFiles(t, dir)); n != 1 {
		t.Errorf("entries = %d, want 1", n)
	}
	if Open(Options{Dir: dir, Mode: Off}) != nil {
		t.Error("mode off opened a store")
	}
}

// TestSharedFolder: runs sharing one folder at once, writing the same entries, never see a
// partial entry, and leave only whole ones.
func TestSharedFolder(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	c := newCounter(t)
	var wg sync.WaitGroup
	var wrong atomic.Int64
	for range 4 {
		p := wrap(t, Open(Options{Dir: dir, Mode: ReadWrite}), c)
		for w := range 8 {
			wg.Go(func() {
				for i := range 50 {
					q := fmt.Sprintf("q%d", (i+w)%25)
					resp, err := p.Invoke(accepting(), &providers.Request{EvalID: "c1", Question: q})
					if err != nil || resp.Text != "answer to "+q {
						wrong.Add(1)
					}
				}
			})
		}
	}
	wg.Wait()
	if wrong.Load() > 0 {
		t.Fatalf("%d wrong answers", wrong.Load())
	}
	if n := len(entryFiles(t, dir)); n != 25 {
		t.Errorf("entries = %d, want 25", n)
	}
	if tmp, _ := filepath.Glob(filepath.Join(dir, versionDir, "*", "*"+atomicfile.Suffix)); len(tmp) > 0 {
		t.Errorf("temporary files left: %v", tmp)
	}
	before := c.calls.Load()
	p := wrap(t, Open(Options{Dir: dir, Mode: ReadWrite}), c)
	for i := range 25 {
		ask(t, p, fmt.Sprintf("q%d", i))
	}
	if c.calls.Load() != before {
		t.Errorf("a later run made %d calls, want 0", c.calls.Load()-before)
	}
}

func TestWhichTargetsUseTheCache(t *testing.T) {
	t.Parallel()
	s := Open(Options{Dir: t.TempDir(), Mode: ReadWrite})
	for _, tc := range []struct {
		name, yaml string
		cached     bool
		err        string
	}{
		{"openai", openaiTarget, true, ""},
		{"mock", "targets:\n  - name: default\n    provider: mock\n", true, ""},
		{"cli", "targets:\n  - name: default\n    provider: cli\n    command_template: echo hi\n", false, ""},
		{"cli opted in", "targets:\n  - name: default\n    provider: cli\n    command_template: echo hi\n    cache: true\n", true, ""},
		{"openai opted out", openaiTarget + "    cache: false\n", false, ""},
		{"bad value", openaiTarget + "    cache: sometimes\n", false, "want true or false"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := &counter{t: loadTarget(t, tc.yaml, nil)}
			p, err := s.Wrap(c)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), "targets.yaml:") {
					t.Fatalf("err = %v, want a positioned %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := p != providers.Provider(c); got != tc.cached {
				t.Errorf("wrapped = %v, want %v", got, tc.cached)
			}
		})
	}
}

// batcher is a counter that also answers batches, counting the requests batches carried.
type batcher struct {
	counter
	batched atomic.Int64
}

func (b *batcher) InvokeBatch(ctx context.Context, reqs []*providers.Request) ([]*providers.Response, error) {
	out := make([]*providers.Response, len(reqs))
	for i, r := range reqs {
		b.batched.Add(1)
		out[i], _ = b.Invoke(ctx, r)
	}
	return out, nil
}

// TestBatchSendsOnlyMisses: a batch sends only the requests the cache cannot answer, and each
// case's record learns whether its answer came from the cache.
func TestBatchSendsOnlyMisses(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	b := &batcher{counter: counter{t: loadTarget(t, "targets:\n  - name: default\n    provider: cli\n    command_template: x\n    cache: true\n", nil)}}
	reqs := func(qs ...string) []*providers.Request {
		var out []*providers.Request
		for _, q := range qs {
			out = append(out, &providers.Request{EvalID: q, Question: q})
		}
		return out
	}
	p := wrap(t, Open(Options{Dir: dir, Mode: ReadWrite}), b).(providers.BatchProvider)
	if _, err := p.InvokeBatch(accepting(), reqs("a", "b")); err != nil {
		t.Fatal(err)
	}
	resps, err := p.InvokeBatch(accepting(), reqs("a", "c", "b"))
	if err != nil {
		t.Fatal(err)
	}
	if n := b.batched.Load(); n != 3 {
		t.Errorf("batches carried %d requests, want 3 (a, b, then only c)", n)
	}
	for i, want := range []string{"answer to a", "answer to c", "answer to b"} {
		if resps[i].Text != want {
			t.Errorf("answer %d = %q, want %q", i, resps[i].Text, want)
		}
	}
	for i, wantHit := range []bool{true, false, true} {
		ctx, use := Track(context.Background())
		Batched(ctx, resps[i])
		r := use.Record()
		if r == nil || (r.Hits == 1) != wantHit || r.Hits+r.Misses != 1 {
			t.Errorf("answer %d: use %+v, want hit %v", i, r, wantHit)
		}
	}
}
