package cache

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agentv/action/targets"

	"github.com/agentv/action/providers"
)

func TestKey(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	other := t.TempDir()
	for _, d := range []string{dir, other} {
		if err := os.WriteFile(filepath.Join(d, "doc.md"), []byte("contents"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	changed := filepath.Join(t.TempDir(), "doc.md")
	if err := os.WriteFile(changed, []byte("other contents"), 0o644); err != nil {
		t.Fatal(err)
	}
	const base = "targets:\n  - name: default\n    provider: openai\n    model: ${{ MODEL }}\n    temperature: 0\n    api_key: ${{ KEY }}\n"
	env := map[string]string{"MODEL": "gpt", "KEY": "sk-one"}
	baseTarget := loadTarget(t, base, env)
	req := func() *providers.Request {
		return &providers.Request{EvalID: "c1", Question: "q", Guidelines: "g", Dir: dir,
			Files: []string{filepath.Join(dir, "doc.md")}, InputFiles: []string{filepath.Join(dir, "doc.md")}}
	}
	want, _ := Key(baseTarget, req(), 0)
	for _, tc := range []struct {
		name string
		t    *targets.Target
		req  func(*providers.Request)
		// trial of the key
		trial int
		same  bool
	}{
		{name: "same", same: true},
		{name: "another api key", t: loadTarget(t, base, map[string]string{"MODEL": "gpt", "KEY": "sk-two"}), same: true},
		{name: "retries and workers", t: loadTarget(t, base+"    max_retries: 9\n    workers: 4\n    judge_target: j\n    timeout_seconds: 5\n", env), same: true},
		{name: "target name", t: loadTarget(t, "targets:\n  - name: other\n"+base[len("targets:\n  - name: default\n"):], env), same: true},
		{name: "attempt", req: func(r *providers.Request) { r.Attempt = 2 }, same: true},
		{name: "same files elsewhere", req: func(r *providers.Request) {
			r.Dir, r.Files, r.InputFiles = other, []string{filepath.Join(other, "doc.md")}, []string{filepath.Join(other, "doc.md")}
		}, same: true},
		{name: "model variable", t: loadTarget(t, base, map[string]string{"MODEL": "gpt-2", "KEY": "sk-one"})},
		{name: "temperature", t: loadTarget(t, base+"    max_output_tokens: 5\n", env)},
		{name: "provider", t: loadTarget(t, "targets:\n  - name: default\n    provider: azure\n    endpoint: https://x\n    model: ${{ MODEL }}\n    temperature: 0\n    api_key: ${{ KEY }}\n", env)},
		{name: "question", req: func(r *providers.Request) { r.Question = "q2" }},
		{name: "guidelines", req: func(r *providers.Request) { r.Guidelines = "" }},
		{name: "system prompt", req: func(r *providers.Request) { r.SystemPrompt = "judge" }},
		{name: "chat", req: func(r *providers.Request) { r.Chat = []providers.ChatMessage{{Role: "user", Content: "q"}} }},
		{name: "case", req: func(r *providers.Request) { r.EvalID = "c2" }},
		{name: "file contents", req: func(r *providers.Request) { r.Dir = filepath.Dir(changed); r.Files = []string{changed} }},
		{name: "trial", trial: 1},
		// A grader's own temperature replaces the target's: a verdict at 0 is not one at 1.5.
		{name: "grader temperature", req: func(r *providers.Request) { r.Temperature = ptr(1.5) }},
		{name: "grader temperature 0", req: func(r *providers.Request) { r.Temperature = ptr(0.0) }},
		{name: "workspace", req: func(r *providers.Request) { r.Workspace = filepath.Join(dir, "ws") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tg, r := baseTarget, req()
			if tc.t != nil {
				tg = tc.t
			}
			if tc.req != nil {
				tc.req(r)
			}
			got, _ := Key(tg, r, tc.trial)
			if (got == want) != tc.same {
				t.Errorf("key equal = %v, want %v", got == want, tc.same)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

// TestKeyHoldsEveryRequestField: each field of providers.Request, set on its own, changes the
// key, except those requestDoc leaves out on purpose; a field added later is in the key
// without anyone remembering it, and this test says so if that ever stops being true.
func TestKeyHoldsEveryRequestField(t *testing.T) {
	t.Parallel()
	left := map[string]bool{"Attempt": true, "Dir": true}
	tg := loadTarget(t, openaiTarget, nil)
	file := filepath.Join(t.TempDir(), "doc.md")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	base, _ := Key(tg, &providers.Request{}, 0)
	rt := reflect.TypeFor[providers.Request]()
	for i := range rt.NumField() {
		f := rt.Field(i)
		var req providers.Request
		v := reflect.ValueOf(&req).Elem().Field(i)
		switch v.Kind() {
		case reflect.String:
			v.SetString(file)
		case reflect.Int:
			v.SetInt(3)
		case reflect.Pointer:
			v.Set(reflect.New(f.Type.Elem()))
		case reflect.Slice:
			el := reflect.New(f.Type.Elem()).Elem()
			if el.Kind() == reflect.String {
				el.SetString(file)
			} else {
				el.Field(0).SetString("user")
			}
			v.Set(reflect.Append(v, el))
		case reflect.Struct: // rules: every one of them set
			for j := range v.NumField() {
				if v.Field(j).Kind() != reflect.Bool {
					t.Fatalf("field %s.%s: kind %s has no test value; teach this test", f.Name, v.Type().Field(j).Name, v.Field(j).Kind())
				}
				v.Field(j).SetBool(true)
			}
		default:
			t.Fatalf("field %s: kind %s has no test value; teach this test", f.Name, v.Kind())
		}
		got, ok := Key(tg, &req, 0)
		if !ok {
			t.Fatalf("field %s: no key", f.Name)
		}
		if (got == base) != left[f.Name] {
			t.Errorf("field %s: key changed = %v, want %v", f.Name, got != base, !left[f.Name])
		}
	}
}

func BenchmarkHit(b *testing.B) {
	dir := b.TempDir()
	c := &counter{t: loadTargetB(b)}
	s := Open(Options{Dir: dir, Mode: ReadWrite})
	p, _ := s.Wrap(c)
	req := &providers.Request{EvalID: "case-1", Question: strings.Repeat("What does the attached policy say about refunds? ", 40), Guidelines: "be brief"}
	ctx := WithAccept(b.Context(), func(*providers.Response) bool { return true })
	if _, err := p.Invoke(ctx, req); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.Invoke(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
	if c.calls.Load() != 1 {
		b.Fatalf("calls = %d", c.calls.Load())
	}
}
