package action

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func envMap(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestLoadEvent(t *testing.T) {
	t.Parallel()
	const (
		headSHA     = "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678"
		forkHeadSHA = "b2c3d4e5f60718293a4b5c6d7e8f901234567890"
	)
	tests := []struct {
		name, event, file, actor string
		want                     Event
		withheld                 bool
	}{
		{
			name: "pull_request from the same repository", event: "pull_request", file: "event-pull_request.json", actor: "alice",
			want: Event{Name: "pull_request", PRNumber: 42, HeadSHA: headSHA, BaseRef: "main",
				BaseRepo: "octo-org/agent", HeadRepo: "octo-org/agent", Actor: "alice"},
		},
		{
			name: "pull_request from a fork", event: "pull_request", file: "event-pull_request-fork.json", actor: "mallory",
			want: Event{Name: "pull_request", PRNumber: 43, HeadSHA: forkHeadSHA, BaseRef: "main",
				BaseRepo: "octo-org/agent", HeadRepo: "mallory/agent", Fork: true, Actor: "mallory"},
			withheld: true,
		},
		{
			name: "pull_request from a deleted fork", event: "pull_request", file: "event-pull_request-deleted-fork.json", actor: "mallory",
			want: Event{Name: "pull_request", PRNumber: 43, HeadSHA: forkHeadSHA, BaseRef: "main",
				BaseRepo: "octo-org/agent", Fork: true, Actor: "mallory"},
			withheld: true,
		},
		{
			name: "pull_request_target from a fork has secrets", event: "pull_request_target", file: "event-pull_request-fork.json", actor: "mallory",
			want: Event{Name: "pull_request_target", PRNumber: 43, HeadSHA: forkHeadSHA, BaseRef: "main",
				BaseRepo: "octo-org/agent", HeadRepo: "mallory/agent", Fork: true, Actor: "mallory"},
		},
		{
			name: "dependabot on the same repository", event: "pull_request", file: "event-pull_request.json", actor: DependabotLogin,
			want: Event{Name: "pull_request", PRNumber: 42, HeadSHA: headSHA, BaseRef: "main",
				BaseRepo: "octo-org/agent", HeadRepo: "octo-org/agent", Fork: true, Actor: DependabotLogin},
			withheld: true,
		},
		{
			name: "actor from the payload's sender", event: "pull_request", file: "event-pull_request.json",
			want: Event{Name: "pull_request", PRNumber: 42, HeadSHA: headSHA, BaseRef: "main",
				BaseRepo: "octo-org/agent", HeadRepo: "octo-org/agent", Actor: "alice"},
		},
		{
			name: "push has no PR", event: "push", file: "event-push.json", actor: "alice",
			want: Event{Name: "push", Actor: "alice"},
		},
		{
			name: "workflow_run of a same-repository PR", event: "workflow_run", file: "event-workflow_run.json", actor: "alice",
			want: Event{Name: "workflow_run", PRNumber: 42, HeadSHA: headSHA, BaseRef: "main",
				BaseRepo: "octo-org/agent", HeadRepo: "octo-org/agent", Actor: "alice"},
		},
		{
			name: "workflow_run of a fork PR names no PR", event: "workflow_run", file: "event-workflow_run-fork.json", actor: "mallory",
			want: Event{Name: "workflow_run", HeadSHA: forkHeadSHA, BaseRepo: "octo-org/agent", HeadRepo: "mallory/agent", Fork: true, Actor: "mallory"},
		},
		{
			name: "issue_comment is not read", event: "issue_comment", file: "event-pull_request.json", actor: "alice",
			want: Event{Name: "issue_comment", Actor: "alice"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := LoadEvent(envMap(map[string]string{
				"GITHUB_EVENT_NAME": tt.event,
				"GITHUB_EVENT_PATH": filepath.Join("testdata", tt.file),
				"GITHUB_ACTOR":      tt.actor,
			}))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("event (-want +got):\n%s", diff)
			}
			if got.SecretsWithheld() != tt.withheld {
				t.Errorf("SecretsWithheld = %v, want %v", got.SecretsWithheld(), tt.withheld)
			}
			if got.IsPR() != (tt.want.PRNumber > 0) {
				t.Errorf("IsPR = %v", got.IsPR())
			}
		})
	}
}

func TestLoadEventWithoutPayload(t *testing.T) {
	t.Parallel()
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte(`{"pull_request": {"number": "seven"`), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		env     map[string]string
		wantErr string
	}{
		{name: "local run", env: map[string]string{}},
		{name: "no path", env: map[string]string{"GITHUB_EVENT_NAME": "pull_request"}},
		{name: "missing file", env: map[string]string{"GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": "/nonexistent/event.json"}, wantErr: "does not exist"},
		{name: "malformed file", env: map[string]string{"GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": bad}, wantErr: "could not parse event payload"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ev, err := LoadEvent(envMap(tt.env))
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("err = %v, want %q", err, tt.wantErr)
			}
			if ev.IsPR() || ev.Name != tt.env["GITHUB_EVENT_NAME"] {
				t.Errorf("event = %+v, want the name alone", ev)
			}
		})
	}
}

func FuzzParseEvent(f *testing.F) {
	for _, name := range []string{"event-pull_request.json", "event-pull_request-fork.json", "event-workflow_run.json", "event-push.json"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add("pull_request", data)
	}
	f.Add("workflow_run", []byte(`{"workflow_run":{"pull_requests":[{"number":-3}]}}`))
	f.Add("pull_request", []byte(`{"pull_request":null,"number":9}`))
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		ev, err := ParseEvent(name, data, "")
		if err != nil {
			return
		}
		if ev.PRNumber < 0 {
			t.Fatalf("negative PR number %d", ev.PRNumber)
		}
		if ev.IsPR() && !strings.HasPrefix(name, "pull_request") && name != "workflow_run" {
			t.Fatalf("event %q yielded PR %d", name, ev.PRNumber)
		}
	})
}

func TestLoadEnv(t *testing.T) {
	t.Parallel()
	got := LoadEnv(envMap(map[string]string{
		"GITHUB_ACTIONS": "true", "GITHUB_WORKSPACE": "/github/workspace", "GITHUB_API_URL": "https://ghe.example/api/v3/",
		"GITHUB_SERVER_URL": "https://ghe.example", "GITHUB_REPOSITORY": "octo-org/agent", "GITHUB_RUN_ID": "99",
		"GITHUB_RUN_ATTEMPT": "2", "GITHUB_WORKFLOW": "CI", "GITHUB_JOB": "evals", "GITHUB_SHA": "abc",
		"GITHUB_OUTPUT": "/github/file_commands/set_output_1", "GITHUB_STEP_SUMMARY": "/github/file_commands/step_summary_1",
	}))
	want := Env{
		Workspace: "/github/workspace", APIURL: "https://ghe.example/api/v3", ServerURL: "https://ghe.example",
		Repository: "octo-org/agent", RunID: "99", RunAttempt: "2", Workflow: "CI", Job: "evals", SHA: "abc",
		OutputPath: "/github/file_commands/set_output_1", SummaryPath: "/github/file_commands/step_summary_1",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("env (-want +got):\n%s", diff)
	}
	if u := got.RunURL(); u != "https://ghe.example/octo-org/agent/actions/runs/99/attempts/2" {
		t.Errorf("RunURL = %q", u)
	}
	local := LoadEnv(envMap(nil))
	if local.APIURL != "https://api.github.com" || local.ServerURL != "https://github.com" || local.RunURL() != "" {
		t.Errorf("local env = %+v", local)
	}
}
