package targets

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentv/action/internal/golden"
	"github.com/agentv/action/internal/redact"
	"github.com/agentv/action/suite"
)

func noEnv(string) (string, bool) { return "", false }

func mapEnv(m map[string]string) LookupEnv {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func diagLines(ds []suite.Diagnostic) string {
	var b strings.Builder
	for _, d := range ds {
		b.WriteString(d.Severity.String() + " " + d.Error() + "\n")
	}
	return b.String()
}

// TestLoadTargetsGood: every file under testdata/good loads with no diagnostic.
func TestLoadTargetsGood(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob("testdata/good/*.yaml")
	if len(files) == 0 {
		t.Fatal("no good files")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			t.Parallel()
			tf := Load(f, noEnv, &redact.Redactor{})
			if len(tf.Diagnostics) > 0 {
				t.Errorf("unexpected diagnostics:\n%s", diagLines(tf.Diagnostics))
			}
			if len(tf.Targets) == 0 {
				t.Error("no targets loaded")
			}
			for _, tg := range tf.Targets {
				if _, err := tf.Find(tg.Name); err != nil {
					t.Errorf("Find(%q): %v", tg.Name, err)
				}
			}
		})
	}
}

// TestLoadTargetsBad: each file under testdata/bad produces exactly the diagnostics in
// its sibling .out file (severity, file:line:col, message). Run with -update to rewrite.
func TestLoadTargetsBad(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob("testdata/bad/*.yaml")
	if len(files) == 0 {
		t.Fatal("no bad files")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			t.Parallel()
			tf := Load(f, noEnv, &redact.Redactor{})
			got := diagLines(tf.Diagnostics)
			if !suite.HasErrors(tf.Diagnostics) {
				t.Errorf("no error diagnostic for a bad file:\n%s", got)
			}
			golden.Check(t, strings.TrimSuffix(f, ".yaml")+".out", got)
		})
	}
}

func TestLoadTargetsFields(t *testing.T) {
	t.Parallel()
	red := &redact.Redactor{}
	tf := Load("testdata/good/full.yaml", noEnv, red)
	if tf.Path != "testdata/good/full.yaml" || !filepath.IsAbs(tf.Abs) {
		t.Errorf("Path %q Abs %q", tf.Path, tf.Abs)
	}
	type summary struct {
		Name, Kind, Provider, Judge string
		Workers                     int
		Batching                    bool
		Price                       *Price
		Line, Col                   int
	}
	var got []summary
	for _, tg := range tf.Targets {
		got = append(got, summary{tg.Name, tg.Kind, tg.Provider, tg.JudgeTarget, tg.Workers, tg.ProviderBatching, tg.Price, tg.Pos.Line, tg.Pos.Col})
		if tg.File != tf.Path || tg.Dir != filepath.Dir(tf.Abs) {
			t.Errorf("%s: File %q Dir %q", tg.Name, tg.File, tg.Dir)
		}
	}
	want := []summary{
		{"default", KindMock, "mock", "judge", 4, false, &Price{InputPerMTok: 3, OutputPerMTok: 15.5}, 3, 5},
		{"judge", KindAzure, "azure-openai", "", 0, false, nil, 12, 5},
		{"agent", KindCLI, "CLI", "", 0, true, nil, 16, 5},
		{"served", KindCLI, "cli", "", 0, false, nil, 27, 5},
		{"secret-template", KindCLI, "cli", "", 0, false, nil, 31, 5},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("targets (-want +got):\n%s", diff)
	}
	agent, err := tf.Find("agent")
	if err != nil {
		t.Fatal(err)
	}
	cfg, errs := ParseCLI(agent, true, nil)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if cfg.FilesFormat != "--file {path}" || cfg.Cwd != ".." || cfg.Timeout != 2500*time.Millisecond ||
		cfg.Health == nil || cfg.Health.Kind != "command" || cfg.Health.Template != "my-agent --version" || cfg.Health.Timeout != 5*time.Second {
		t.Errorf("cli config: %+v health %+v", cfg, cfg.Health)
	}
}

// AgentV 4.x targets files name the judge's target grader_target.
func TestLoadTargetsGraderTarget(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "targets.yaml")
	text := "targets:\n  - name: default\n    provider: mock\n    grader_target: judge\n" +
		"  - name: both\n    provider: mock\n    judge_target: old\n    grader_target: new\n  - name: judge\n    provider: mock\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	tf := Load(path, noEnv, &redact.Redactor{})
	if len(tf.Diagnostics) > 0 {
		t.Errorf("diagnostics: %s", diagLines(tf.Diagnostics))
	}
	for name, want := range map[string]string{"default": "judge", "both": "old"} {
		tg, err := tf.Find(name)
		if err != nil || tg.JudgeTarget != want {
			t.Errorf("%s: judge target %q (%v), want %q", name, tg.JudgeTarget, err, want)
		}
	}
}

func TestLoadTargetsSnakeWins(t *testing.T) {
	t.Parallel()
	tf := Load("testdata/bad/cli.yaml", noEnv, nil)
	tg, err := tf.Find("both-spellings")
	if err != nil {
		t.Fatal(err)
	}
	cfg, errs := ParseCLI(tg, true, nil)
	if len(errs) > 0 || cfg.Template != "snake {PROMPT}" {
		t.Errorf("template %q errs %v", cfg.Template, errs)
	}
}

func TestLoadTargetsAnchors(t *testing.T) {
	t.Parallel()
	tf := Load("testdata/good/anchors.yaml", noEnv, nil)
	var got []string
	for _, tg := range tf.Targets {
		got = append(got, tg.Name+":"+tg.Kind+":"+strings.Repeat("w", tg.Workers))
	}
	if diff := cmp.Diff([]string{"a:mock:ww", "b:mock:www"}, got); diff != "" {
		t.Error(diff)
	}
}

func TestFind(t *testing.T) {
	t.Parallel()
	tf := Load("testdata/bad/entries.yaml", noEnv, nil)
	for _, tc := range []struct{ name, wantErr string }{
		{"dup", ""},
		{"nope", `target "nope" not found in testdata/bad/entries.yaml; available targets: no-provider, unknown, dup, bad-common, bad-price, bad-price-key, price-not-map, dup-keys, both-spellings, bad-scalar`},
		{"unknown", `target "unknown" in testdata/bad/entries.yaml is invalid: `},
		{"bad-common", `target "bad-common" in testdata/bad/entries.yaml is invalid: `},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := tf.Find(tc.name)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Errorf("unexpected error %v", err)
			case tc.wantErr != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.wantErr)):
				t.Errorf("error %v, want prefix %q", err, tc.wantErr)
			}
		})
	}
}

func TestLoadTargetsRedactsLiteralSecrets(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "targets.yaml")
	body := "targets:\n  - name: a\n    provider: openai\n    api_key: sk-literal-secret-123\n    max_output_tokens: \"4096\"\n    token: ${{ TOKEN }}\n"
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	red := &redact.Redactor{}
	Load(p, noEnv, red)
	if diff := cmp.Diff([]string{"sk-literal-secret-123"}, red.Secrets()); diff != "" {
		t.Error(diff)
	}
}

func TestUnsetVarError(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "targets.yaml")
	body := "targets:\n  - name: judge\n    provider: openai\n    apiKey: ${{ OPENAI_KEY }}\n    model: ${{ MODEL }}\n"
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	red := &redact.Redactor{}
	tf := Load(p, mapEnv(map[string]string{"OPENAI_KEY": "   ", "MODEL": "gpt-secretive"}), red)
	tg, err := tf.Find("judge")
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = tg.String("api_key")
	var ue *UnsetVarError
	if !errors.As(err, &ue) {
		t.Fatalf("want *UnsetVarError, got %T %v", err, err)
	}
	if ue.Target != "judge" || ue.Field != "apiKey" || ue.Var != "OPENAI_KEY" || ue.Pos.Line != 4 || ue.Pos.Col != 5 {
		t.Errorf("error fields %+v", ue)
	}
	msg := err.Error()
	for _, want := range []string{"judge", "apiKey", "OPENAI_KEY", ":4:5:"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
	if strings.Contains(msg, "gpt-secretive") {
		t.Errorf("message leaks a value: %q", msg)
	}
	if v, _, err := tg.String("model"); err != nil || v != "gpt-secretive" {
		t.Errorf("model = %q, %v", v, err)
	}
}

func TestFindTargetsFile(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	write := func(rel string) string {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("targets: []\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	repo := filepath.Join(root, "repo")
	evalDir := filepath.Join(repo, "evals", "deep")
	cwd := filepath.Join(root, "cwd")
	for _, d := range []string{evalDir, cwd} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := FindFile("", evalDir, repo, cwd); err == nil || !strings.Contains(err.Error(), "--targets") {
		t.Errorf("want a not-found error naming --targets, got %v", err)
	}
	inCwd := write("cwd/.agentv/targets.yml")
	steps := []struct{ create, want string }{
		{"", inCwd},
		{"repo/.agentv/targets.yaml", "repo/.agentv/targets.yaml"},
		{"repo/evals/targets.yml", "repo/evals/targets.yml"},
		{"repo/evals/targets.yaml", "repo/evals/targets.yaml"},
		{"repo/evals/deep/.agentv/targets.yaml", "repo/evals/deep/.agentv/targets.yaml"},
	}
	for _, s := range steps {
		want := s.want
		if s.create != "" {
			write(s.create)
			want = filepath.Join(root, s.want)
		}
		got, err := FindFile("", evalDir, repo, cwd)
		if err != nil || got != want {
			t.Errorf("after creating %q: got %q, %v; want %q", s.create, got, err, want)
		}
	}
	// Outside the repo only the eval directory itself is searched.
	outside := filepath.Join(root, "elsewhere")
	if err := os.MkdirAll(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	write("targets.yaml")
	if got, err := FindFile("", outside, repo, ""); err == nil {
		t.Errorf("found %q above an eval dir outside the repo", got)
	}
}

func TestResolveTargetsFlag(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if _, err := resolveFlag(filepath.Join(dir, "missing.yaml")); err == nil {
		t.Error("missing file accepted")
	}
	if _, err := resolveFlag(dir); err == nil || !strings.Contains(err.Error(), "targets.yaml") {
		t.Errorf("empty dir: %v", err)
	}
	p := filepath.Join(dir, "targets.yml")
	if err := os.WriteFile(p, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := resolveFlag(dir); err != nil || got != p {
		t.Errorf("dir: %q %v", got, err)
	}
	if got, err := resolveFlag(p); err != nil || got != p {
		t.Errorf("file: %q %v", got, err)
	}
}

// FuzzLoadTargets: any input loads without panicking, every diagnostic names the file,
// and every loaded target has a name Find returns.
func FuzzLoadTargets(f *testing.F) {
	files, _ := filepath.Glob("testdata/*/*.yaml")
	for _, p := range files {
		if strings.Contains(p, "alias_bomb") {
			continue // slow by design: it spends the whole decode budget
		}
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("targets:\n  - &a {name: x, provider: cli, command_template: *a}\n"))
	f.Add([]byte("targets:\n  - name: x\n    provider: cli\n    healthcheck: {type: command, command_template: \"{X}\", <<: {url: 1}}\n"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, "targets.yaml")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		tf := Load(p, noEnv, &redact.Redactor{})
		for _, d := range tf.Diagnostics {
			if d.File == "" || d.Message == "" {
				t.Errorf("diagnostic without file or message: %+v", d)
			}
		}
		for _, tg := range tf.Targets {
			if strings.TrimSpace(tg.Name) == "" {
				t.Errorf("target without a name")
			}
			if got, _ := tf.Find(tg.Name); got != tg {
				t.Errorf("Find(%q) returned another target", tg.Name)
			}
		}
	})
}
