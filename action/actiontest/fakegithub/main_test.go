package main

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentv/action/action/actiontest"
)

func TestListenRefusesNonLoopback(t *testing.T) {
	t.Parallel()
	for _, addr := range []string{"0.0.0.0:0", ":0", "192.0.2.1:0", "localhost:0", "nonsense"} {
		t.Run(addr, func(t *testing.T) {
			t.Parallel()
			if _, _, _, err := listen(addr, "", "", ""); err == nil {
				t.Fatalf("listen(%q) succeeded, want a refusal", addr)
			}
		})
	}
}

// The state file is what scripts/container-e2e.sh checks: every request in order with its
// authorization, and the comments as they stand.
func TestStateFileRecordsRequestsAndComments(t *testing.T) {
	t.Parallel()
	state := filepath.Join(t.TempDir(), "gh.json")
	srv, ln, gh, err := listen("127.0.0.1:0", state, "", "tok")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })

	do := func(method, path, auth, body string) int {
		t.Helper()
		req, err := http.NewRequestWithContext(t.Context(), method, gh.APIURL()+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", auth)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		return resp.StatusCode
	}
	steps := []struct {
		method, path, auth, body string
		want                     int
	}{
		{"POST", "/repos/o/r/issues/7/comments", "Bearer wrong", `{"body":"x"}`, http.StatusUnauthorized},
		{"POST", "/repos/o/r/issues/7/comments", "Bearer tok", `{"body":"first"}`, http.StatusCreated},
		{"PATCH", "/repos/o/r/issues/comments/1001", "Bearer tok", `{"body":"edited"}`, http.StatusOK},
		{"GET", "/nope", "Bearer tok", "", http.StatusNotFound},
	}
	for _, s := range steps {
		if got := do(s.method, s.path, s.auth, s.body); got != s.want {
			t.Fatalf("%s %s: status %d, want %d", s.method, s.path, got, s.want)
		}
	}

	data, err := os.ReadFile(state)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Requests   []actiontest.Request            `json:"requests"`
		Comments   map[string][]actiontest.Comment `json:"comments"`
		Unexpected []string                        `json:"unexpected"`
	}
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatalf("state file: %v\n%s", err, data)
	}
	var reqs []string
	for _, r := range got.Requests {
		reqs = append(reqs, r.String()+" "+r.Auth)
	}
	wantReqs := []string{
		"POST /repos/o/r/issues/7/comments Bearer wrong",
		"POST /repos/o/r/issues/7/comments Bearer tok",
		"PATCH /repos/o/r/issues/comments/1001 Bearer tok",
		"GET /nope Bearer tok",
	}
	if diff := cmp.Diff(wantReqs, reqs); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
	if n := len(got.Comments["7"]); n != 1 || got.Comments["7"][0].Body != "edited" || got.Comments["7"][0].User != actiontest.Bot {
		t.Errorf("comments on PR 7 = %+v, want one edited comment by the bot", got.Comments["7"])
	}
	if diff := cmp.Diff([]string{"GET /api/v3/nope"}, got.Unexpected); diff != "" {
		t.Errorf("unexpected (-want +got):\n%s", diff)
	}
}
