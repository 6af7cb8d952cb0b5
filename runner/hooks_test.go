package runner

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agentv/action/providers"
	"github.com/agentv/action/results"
	"github.com/agentv/action/suite"
	"github.com/agentv/action/targets"
)

// TestExtensionHooks runs a 5.x suite's beforeEach and afterEach extensions around each case:
// beforeEach gets the case's id, input and metadata and fails its case when it throws;
// afterEach starts from what that case's beforeEach returned.
func TestExtensionHooks(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("needs node")
	}
	dir := t.TempDir()
	mod := filepath.Join(dir, "hooks.mjs")
	if err := os.WriteFile(mod, []byte(`import { writeFileSync } from 'node:fs';
import path from 'node:path';
export function beforeEach(ctx) {
  if (ctx.test_id === 'case-3') throw new Error('not this one');
  writeFileSync(path.join(ctx.workspace_path, 'before-' + ctx.test_id), JSON.stringify([ctx.case_input, ctx.case_metadata ?? null]));
  return { provider_context: { each: ctx.test_id } };
}
export function afterEach(ctx) {
  writeFileSync(path.join(ctx.workspace_path, 'after-' + ctx.test_id), ctx.provider_context?.each ?? 'none');
}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	s := newSuite(3)
	s.Dir = dir
	s.Cases[0].Metadata = json.RawMessage(`{"owner":"docs"}`)
	s.Workspace = &suite.Workspace{
		BeforeEach: &suite.Hook{Name: "beforeEach", Extensions: []suite.Extension{{Module: mod}}},
		AfterEach:  &suite.Hook{Name: "afterEach", Extensions: []suite.Extension{{Module: mod}}},
	}
	work := t.TempDir()
	p := &fakeProvider{target: &targets.Target{Name: "t", Kind: targets.KindMock}, answer: answerText("hi")}
	jobs := jobsFor(s, p)
	for _, j := range jobs {
		j.Workspace = work
	}
	var col collector
	opts := testOptions(1)
	opts.Evaluators.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
	// The judge notes whether afterEach already ran when the answer was graded.
	var early, graded sync.Map
	opts.Evaluators.Judges = func(*targets.Target, string) (providers.Provider, error) {
		return &fakeProvider{target: &targets.Target{Name: "judge", Kind: targets.KindMock},
			answer: func(_ context.Context, req *providers.Request) (*providers.Response, error) {
				graded.Store(req.EvalID, true)
				if _, err := os.Stat(filepath.Join(work, "after-"+req.EvalID)); err == nil {
					early.Store(req.EvalID, true)
				}
				return &providers.Response{Text: `{"score": 1, "hits": ["ok"], "misses": [], "reasoning": "fine"}`}, nil
			}}, nil
	}
	New(opts, col.CaseFinished).Run(t.Context(), feed(t.Context(), jobs))
	got := col.byID()
	for f, want := range map[string]string{"before-case-1": `["hi",{"owner":"docs"}]`, "before-case-2": `["hi",null]`,
		"after-case-1": "case-1", "after-case-2": "case-2"} {
		if b, err := os.ReadFile(filepath.Join(work, f)); err != nil || string(b) != want {
			t.Errorf("%s = %q (%v), want %q", f, b, err, want)
		}
	}
	if r := got["case-3"]; r == nil || r.Verdict != results.VerdictError || !strings.Contains(r.Error, "beforeEach extension failed") ||
		!strings.Contains(r.Error, "not this one") || p.calls.Load() != 2 {
		t.Errorf("case-3 = %+v, target asked %d times (want 2: not for case-3)", r, p.calls.Load())
	}
	if _, ok := graded.Load("case-1"); !ok {
		t.Errorf("the judge was not asked about case-1 (by its id)")
	}
	early.Range(func(id, _ any) bool {
		t.Errorf("afterEach of %s ran before its answer was graded (5.x runs it after grading)", id)
		return true
	})
	if _, err := os.Stat(filepath.Join(work, "after-case-3")); err == nil {
		t.Errorf("afterEach ran for the case whose beforeEach failed")
	}
}
