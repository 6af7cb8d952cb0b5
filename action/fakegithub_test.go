package action

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/agentv/action/action/actiontest"
)

// startGitHub serves the fake API on loopback for one test; only "test-token" is accepted.
func startGitHub(t *testing.T) *actiontest.GitHub {
	t.Helper()
	gh := actiontest.StartGitHub(t)
	gh.Token = "test-token"
	return gh
}

// newTestStore returns a GitHubStore on octo/repo whose retry waits are recorded, not slept.
func newTestStore(t *testing.T, gh *actiontest.GitHub) (*GitHubStore, *[]time.Duration) {
	t.Helper()
	s, err := NewGitHubStore("test-token", gh.APIURL(), "octo/repo")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var sleeps []time.Duration
	s.retry.sleep = func(_ context.Context, d time.Duration) error {
		mu.Lock()
		defer mu.Unlock()
		sleeps = append(sleeps, d)
		return nil
	}
	return s, &sleeps
}

// requests returns the requests the fake got since the last call, as "METHOD /path?query".
func requests(gh *actiontest.GitHub) []string {
	var out []string
	for _, r := range gh.Requests() {
		out = append(out, r.String())
	}
	return out
}
