package providers

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentv/action/internal/proc"
	"github.com/agentv/action/targets"
)

// vscodeGoldenCases are the prompt documents checked against testdata/vscode/*.md.
var vscodeGoldenCases = []struct {
	name     string
	settings map[string]any
	req      Request
}{
	{
		name: "guidelines_and_attachments",
		req: Request{EvalID: "refactor-1", Question: "Refactor <file: path=\"src/parser.ts\"> to remove the global state.",
			GuidelinePaths: []string{"/work/repo/.github/instructions/typescript.instructions.md", "/work/repo/prompts/review.prompt.md"},
			InputFiles:     []string{"/work/repo/src/parser.ts", "/work/repo/src/parser.test.ts"}},
	},
	{
		name: "attachments_only_with_odd_names",
		req: Request{Question: "Summarise the attached report.",
			InputFiles: []string{"/work/repo/docs/Q3 report (final).md", "/work/repo/data/naïve#1.csv", "/work/repo/docs/Q3 report (final).md"}},
	},
	{
		name: "no_files",
		req:  Request{Question: "  What does `git rebase --onto` do?  "},
	},
	{
		name:     "custom_system_prompt",
		settings: map[string]any{"system_prompt": "Answer as a senior reviewer. Be terse."},
		req:      Request{Question: "Review this change.", Files: []string{"/work/repo/change.diff"}},
	},
}

func TestVSCodeDryRunGolden(t *testing.T) {
	t.Parallel()
	for _, tc := range vscodeGoldenCases {
		for _, kind := range []string{targets.KindVSCode, targets.KindVSCodeInsiders} {
			t.Run(kind+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				s := map[string]any{"dryRun": true}
				for k, v := range tc.settings {
					s[k] = v
				}
				// A CI job without VS Code: a dry run still works there.
				p, warns, err := New(apiTestTarget(kind, s, nil), Options{Env: []string{"GITHUB_ACTIONS=true", "PATH=/nonexistent"}})
				if err != nil || len(warns) > 0 {
					t.Fatalf("New: %v %v", err, warns)
				}
				if err := p.(HealthChecker).HealthCheck(t.Context()); err != nil {
					t.Errorf("HealthCheck of a dry run: %v", err)
				}
				req := tc.req
				resp, err := p.Invoke(t.Context(), &req)
				if err != nil {
					t.Fatalf("Invoke: %v", err)
				}
				if resp.Text != "" || len(resp.OutputMessages) != 0 || resp.Error != "" {
					t.Errorf("dry run answered: text %q, messages %v, error %q", resp.Text, resp.OutputMessages, resp.Error)
				}
				doc, _ := resp.Metadata["prompt_document"].(string)
				if resp.Metadata["dry_run"] != true || doc == "" {
					t.Fatalf("Metadata = %v, want dry_run and the prompt document", resp.Metadata)
				}
				if kind == targets.KindVSCode {
					codexGolden(t, filepath.Join("testdata", "vscode", tc.name+".md"), doc)
				} else if want, _ := os.ReadFile(filepath.Join("testdata", "vscode", tc.name+".md")); string(want) != doc {
					t.Errorf("vscode-insiders document differs from vscode's")
				}
			})
		}
	}
}

func TestVSCodeCannotDrive(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		kind     string
		settings map[string]any
		env      []string
		want     string
	}{
		{"GitHub Actions", targets.KindVSCode, nil, []string{"GITHUB_ACTIONS=true"}, "this is a CI job (GITHUB_ACTIONS=true)"},
		{"generic CI", targets.KindVSCodeInsiders, nil, []string{"CI=1"}, "this is a CI job (CI=1)"},
		{"no code command", targets.KindVSCode, map[string]any{"command": "agentv-no-such-code"}, []string{"CI=false"},
			`the "agentv-no-such-code" command was not found`},
		// An explicit environment: the test itself may run in CI (CI=true), which is checked first.
		{"vscode_cmd alias", targets.KindVSCodeInsiders, map[string]any{"vscode_cmd": "agentv-no-such-code-insiders"}, []string{"PATH=/usr/bin:/bin"},
			`the "agentv-no-such-code-insiders" command was not found`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, _, err := New(apiTestTarget(tc.kind, tc.settings, nil), Options{Env: tc.env})
			if err != nil {
				t.Fatal(err)
			}
			hc := p.(HealthChecker).HealthCheck(t.Context())
			_, ierr := p.Invoke(t.Context(), &Request{Question: "q"})
			for _, e := range []error{hc, ierr} {
				if e == nil || !strings.Contains(e.Error(), "VS Code cannot be driven here: "+tc.want) ||
					!strings.Contains(e.Error(), "dry_run: true") {
					t.Errorf("error %v, want one saying VS Code cannot be driven (%s) and suggesting dry_run", e, tc.want)
				}
			}
		})
	}
}

func TestVSCodeDefaultCommand(t *testing.T) {
	t.Parallel()
	for kind, want := range map[string]string{targets.KindVSCode: "code", targets.KindVSCodeInsiders: "code-insiders"} {
		p, _, err := New(apiTestTarget(kind, nil, nil), Options{Env: []string{}})
		if err != nil {
			t.Fatal(err)
		}
		if got := p.(*vscodeProvider).command; got != want {
			t.Errorf("%s: command = %q, want %q", kind, got, want)
		}
	}
}

// vscodeFakeCode is a stand-in `code`: it records each call; `code chat` plays the agent and writes
// the answer to the file prompt.md names (unless VSCODE_FAKE_SILENT is set).
const vscodeFakeCode = `#!/bin/sh
printf '%s|' "$@" >> "$VSCODE_FAKE_REC/calls"; echo >> "$VSCODE_FAKE_REC/calls"
if [ "$1" = chat ] && [ -z "$VSCODE_FAKE_SILENT" ]; then
  out=$(sed -n 's|.*file://||p' prompt.md | tail -n 1)
  cp prompt.md "$VSCODE_FAKE_REC/prompt.md"
  printf 'The agent answer.\n' > "$out"
fi
`

func TestVSCodeDrive(t *testing.T) {
	t.Parallel()
	setup := func(t *testing.T, settings map[string]any, extraEnv ...string) (*vscodeProvider, string) {
		t.Helper()
		dir := t.TempDir()
		rec := filepath.Join(dir, "rec")
		code := filepath.Join(dir, "code")
		if err := os.Mkdir(rec, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(code, []byte(vscodeFakeCode), 0o755); err != nil {
			t.Fatal(err)
		}
		s := map[string]any{"command": code, "subagent_root": filepath.Join(dir, "agents")}
		for k, v := range settings {
			s[k] = v
		}
		env := append([]string{"PATH=" + os.Getenv("PATH"), "VSCODE_FAKE_REC=" + rec}, extraEnv...)
		p, warns, err := New(apiTestTarget(targets.KindVSCode, s, nil), Options{Env: env})
		if err != nil || len(warns) > 0 {
			t.Fatalf("New: %v %v", err, warns)
		}
		vp := p.(*vscodeProvider)
		vp.pollEvery = 5 * time.Millisecond
		return vp, rec
	}
	req := &Request{EvalID: "q1", Question: "Explain <file: path=\"a.go\">.", InputFiles: []string{"/r/a.go"}}

	t.Run("answer from the response file", func(t *testing.T) {
		t.Parallel()
		tmpl := filepath.Join(t.TempDir(), "team.code-workspace")
		if err := os.WriteFile(tmpl, []byte(`{"folders":[{"path":"."}]}`), 0o644); err != nil {
			t.Fatal(err)
		}
		p, rec := setup(t, map[string]any{"workspace_template": tmpl})
		resp, err := p.Invoke(t.Context(), req)
		if err != nil {
			t.Fatalf("Invoke: %v", err)
		}
		if resp.Text != "The agent answer." || len(resp.OutputMessages) != 1 {
			t.Errorf("resp = %q %v", resp.Text, resp.OutputMessages)
		}
		ws, _ := resp.Metadata["workspace"].(string)
		calls, _ := os.ReadFile(filepath.Join(rec, "calls"))
		want := "--new-window|" + filepath.Join(ws, "agentv.code-workspace") + "|\n" +
			"chat|--mode|agent|--reuse-window|--add-file|" + filepath.Join(ws, "prompt.md") +
			"|Read the attached prompt.md completely and follow it exactly, including where to write your answer.|\n"
		if diff := cmp.Diff(want, string(calls)); diff != "" {
			t.Errorf("code calls (-want +got):\n%s", diff)
		}
		prompt, _ := os.ReadFile(filepath.Join(rec, "prompt.md"))
		doc := codexPromptDocument(vscodeDefaultSystem, req)
		if !strings.HasPrefix(string(prompt), doc) || !strings.Contains(string(prompt), "file://"+filepath.Join(ws, "response.md")) {
			t.Errorf("prompt.md must be the document plus where to answer:\n%s", prompt)
		}
	})

	t.Run("wait: false returns after dispatch", func(t *testing.T) {
		t.Parallel()
		p, _ := setup(t, map[string]any{"wait": false}, "VSCODE_FAKE_SILENT=1")
		resp, err := p.Invoke(t.Context(), req)
		if err != nil || resp.Text != "" || resp.Metadata["waited"] != false {
			t.Errorf("resp %+v, err %v", resp, err)
		}
	})

	t.Run("no answer in time", func(t *testing.T) {
		t.Parallel()
		p, _ := setup(t, map[string]any{"timeout_seconds": 0.05}, "VSCODE_FAKE_SILENT=1")
		_, err := p.Invoke(t.Context(), req)
		if !errors.Is(err, proc.ErrTimeout) || !strings.Contains(err.Error(), "no answer in") {
			t.Errorf("error %v, want a timeout naming the response file", err)
		}
	})
}
