package providers

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

func TestCLIHealthCheckHTTP(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		status  int
		query   string
		wantErr string
	}{
		{"ok", http.StatusOK, "", ""},
		{"no content is 2xx", http.StatusNoContent, "", ""},
		{"unavailable", http.StatusServiceUnavailable, "?token=hunter2-secret", "answered 503 Service Unavailable (want 2xx)"},
		{"redirect target 404", http.StatusNotFound, "", "answered 404"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var hits atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				hits.Add(1)
				if r.Method != http.MethodGet || r.URL.Path != "/health" {
					t.Errorf("unexpected %s %s", r.Method, r.URL.Path)
				}
				w.WriteHeader(tc.status)
			}))
			defer srv.Close()
			p := cliTestNew(t, t.TempDir(), map[string]any{
				"command_template": "agent {PROMPT}",
				"healthcheck":      map[string]any{"type": "http", "url": srv.URL + "/health" + tc.query, "timeoutSeconds": 5},
			}, Options{})
			for i := 0; i < 2; i++ {
				err := p.HealthCheck(t.Context())
				switch {
				case tc.wantErr == "" && err != nil:
					t.Fatalf("unexpected error %v", err)
				case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				case err != nil && strings.Contains(err.Error(), "hunter2"):
					t.Errorf("error shows the query string: %v", err)
				}
			}
			if n := hits.Load(); n != 1 {
				t.Errorf("probe ran %d times, want once", n)
			}
		})
	}
}

func TestCLIHealthCheckHTTPTimeout(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	p := cliTestNew(t, t.TempDir(), map[string]any{
		"command_template": "agent",
		"healthcheck":      map[string]any{"type": "http", "url": srv.URL, "timeout_seconds": 0.2},
	}, Options{})
	if err := p.HealthCheck(t.Context()); err == nil || !strings.Contains(err.Error(), "did not answer within 200ms") {
		t.Errorf("err %v", err)
	}
}

func TestCLIHealthCheckCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "svc"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		health    map[string]any
		targetCwd string
		wantErr   string
	}{
		{"pass", map[string]any{"type": "command", "command_template": "test {EVAL_ID} = healthcheck && test -z {PROMPT}"}, "", ""},
		{"fail with stderr", map[string]any{"type": "command", "commandTemplate": "echo sick >&2; exit 1"}, "", `healthcheck of cli target "agent": command exited with code 1: sick`},
		{"own cwd", map[string]any{"type": "command", "command_template": "test -f ./marker", "cwd": "svc"}, "", ""},
		// AgentV 2.5 and 4.x run a healthcheck without cwd in the eval file's folder, not the target's cwd.
		{"eval folder by default", map[string]any{"type": "command", "command_template": "test -f ./top && test ! -f ./marker"}, "svc", ""},
		{"timeout", map[string]any{"type": "command", "command_template": "sleep 100", "timeout_seconds": 0.2}, "", "timed out after 200ms"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cliWrite(t, filepath.Join(dir, "svc", "marker"), "")
			cliWrite(t, filepath.Join(dir, "top"), "")
			settings := map[string]any{"command_template": "agent", "healthcheck": tc.health}
			if tc.targetCwd != "" {
				settings["cwd"] = tc.targetCwd
			}
			p := cliTestNew(t, dir, settings, Options{})
			err := p.HealthCheck(t.Context())
			switch {
			case tc.wantErr == "" && err != nil:
				t.Errorf("unexpected error %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Errorf("error %v, want %q", err, tc.wantErr)
			}
		})
	}
}

// TestCLIHealthCheckEvalDir: a healthcheck's relative cwd, and its default folder, are the eval
// file's folder the runner names (WithEvalDir), not the targets file's folder, as in AgentV 2.5
// and 4.x; the probe runs once per eval folder. Its subtests run in turn: both probes append to
// the same runs.txt, which each removes first.
//
//nolint:paralleltest // the subtests share runs.txt (see above).
func TestCLIHealthCheckEvalDir(t *testing.T) {
	t.Parallel()
	repo := t.TempDir()
	targetsDir := filepath.Join(repo, ".agentv")
	evalDir := filepath.Join(repo, "evals", "sub")
	cliWrite(t, filepath.Join(repo, "evals", "marker"), "")
	cliWrite(t, filepath.Join(evalDir, "here"), "")
	if err := os.MkdirAll(targetsDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		health map[string]any
	}{
		{"relative cwd", map[string]any{"command": "test -f ./marker && pwd >> ../runs.txt", "cwd": ".."}},
		{"no cwd", map[string]any{"command": "test -f ./here && pwd >> ../../runs.txt"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_ = os.Remove(filepath.Join(repo, "runs.txt"))
			p := cliTestNew(t, targetsDir, map[string]any{"command": "agent", "cwd": "..", "healthcheck": tc.health}, Options{})
			for range 2 {
				if err := p.HealthCheck(WithEvalDir(t.Context(), evalDir)); err != nil {
					t.Fatalf("healthcheck for %s: %v", evalDir, err)
				}
			}
			// Another eval folder gets its own probe, resolved against it (and failing there).
			if err := p.HealthCheck(WithEvalDir(t.Context(), repo)); err == nil {
				t.Errorf("healthcheck for %s passed; its cwd should resolve against that folder", repo)
			}
			raw, _ := os.ReadFile(filepath.Join(repo, "runs.txt"))
			if got := strings.Count(string(raw), "\n"); got != 1 {
				t.Errorf("probe for %s ran %d times, want once", evalDir, got)
			}
		})
	}
}

// TestCLIHealthCheckOnce: concurrent callers share one run of the probe.
func TestCLIHealthCheckOnce(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := cliTestNew(t, dir, map[string]any{
		"command_template": "agent",
		"healthcheck":      map[string]any{"type": "command", "command_template": "echo run >> ./runs.txt"},
	}, Options{})
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := p.HealthCheck(t.Context()); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	raw, _ := os.ReadFile(filepath.Join(dir, "runs.txt"))
	if got := strings.Count(string(raw), "run"); got != 1 {
		t.Errorf("probe ran %d times", got)
	}
	// No healthcheck configured: nothing to do.
	if err := cliTestNew(t, dir, map[string]any{"command_template": "agent"}, Options{}).HealthCheck(t.Context()); err != nil {
		t.Error(err)
	}
}

// TestCLIHealthCheckCancelledNotRemembered: a probe cut short by the caller runs again later.
func TestCLIHealthCheckCancelledNotRemembered(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := cliTestNew(t, dir, map[string]any{
		"command_template": "agent",
		"healthcheck":      map[string]any{"type": "command", "command_template": "echo run >> ./runs.txt"},
	}, Options{})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := p.HealthCheck(ctx); err == nil {
		t.Fatal("cancelled probe passed")
	}
	if err := p.HealthCheck(t.Context()); err != nil {
		t.Errorf("second probe: %v", err)
	}
}
