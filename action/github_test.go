package action

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentv/action/action/actiontest"
	"github.com/agentv/action/gate"
)

const pr = 7

var testMarker = Marker("CI", "evals", "")

func TestStoreFirstRunCreatesSecondRunEdits(t *testing.T) {
	t.Parallel()
	gh := startGitHub(t)
	s, _ := newTestStore(t, gh)
	ctx := t.Context()

	url1, err := Upsert(ctx, s, pr, testMarker, testMarker+"\nrun 1: 2 failed", CommentAuto, gate.Fail, false)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"GET /user",
		"GET /repos/octo/repo/issues/7/comments?per_page=100",
		"POST /repos/octo/repo/issues/7/comments",
	}
	if diff := cmp.Diff(want, requests(gh)); diff != "" {
		t.Errorf("first run requests (-want +got):\n%s", diff)
	}

	// Second run, now passing: auto mode still keeps the existing comment current.
	url2, err := Upsert(ctx, s, pr, testMarker, testMarker+"\nrun 2: all passed", CommentAuto, gate.Pass, false)
	if err != nil {
		t.Fatal(err)
	}
	want = []string{
		"GET /repos/octo/repo/issues/7/comments?per_page=100", // the login is asked once per store
		"PATCH /repos/octo/repo/issues/comments/1001",
	}
	if diff := cmp.Diff(want, requests(gh)); diff != "" {
		t.Errorf("second run requests (-want +got):\n%s", diff)
	}
	if url1 == "" || url1 != url2 {
		t.Errorf("urls = %q, %q; want the same non-empty URL", url1, url2)
	}
	got := gh.Comments(pr)
	if len(got) != 1 || got[0].Body != testMarker+"\nrun 2: all passed" {
		t.Errorf("comments = %+v, want one with the second body", got)
	}
}

func TestStoreFindsMarkerOnSecondPage(t *testing.T) {
	t.Parallel()
	gh := startGitHub(t)
	for i := range 150 {
		switch {
		case i == 120:
			gh.Seed(pr, actiontest.Bot, testMarker+"\nold report")
		case i%3 == 0:
			gh.Seed(pr, actiontest.User{Login: "other-bot[bot]", Type: "Bot"}, "a bot without our marker")
		default:
			gh.Seed(pr, actiontest.User{Login: "reviewer" + strconv.Itoa(i), Type: "User"}, "LGTM")
		}
	}
	s, _ := newTestStore(t, gh)
	if _, err := Upsert(t.Context(), s, pr, testMarker, testMarker+"\nnew report", CommentOnFailure, gate.Pass, false); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"GET /user",
		"GET /repos/octo/repo/issues/7/comments?per_page=100",
		"GET /repos/octo/repo/issues/7/comments?page=2&per_page=100",
		"PATCH /repos/octo/repo/issues/comments/1121",
	}
	if diff := cmp.Diff(want, requests(gh)); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
	all := gh.Comments(pr)
	if len(all) != 150 || all[120].Body != testMarker+"\nnew report" {
		t.Errorf("got %d comments, #120 = %q; want 150 and the new report edited in place", len(all), all[120].Body)
	}
}

func TestStoreOneCommentPerKey(t *testing.T) {
	t.Parallel()
	gh := startGitHub(t)
	s, _ := newTestStore(t, gh)
	linux, windows := Marker("CI", "evals", "linux"), Marker("CI", "evals", "windows")
	for run := range 2 {
		for _, m := range []string{linux, windows} {
			body := fmt.Sprintf("%s\nrun %d", m, run)
			if _, err := Upsert(t.Context(), s, pr, m, body, CommentAlways, gate.Pass, false); err != nil {
				t.Fatal(err)
			}
		}
	}
	var got []string
	for _, c := range gh.Comments(pr) {
		got = append(got, c.Body)
	}
	want := []string{linux + "\nrun 1", windows + "\nrun 1"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("comments (-want +got):\n%s", diff)
	}
}

func TestStoreIgnoresHumanCommentWithMarker(t *testing.T) {
	t.Parallel()
	gh := startGitHub(t)
	human := gh.Seed(pr, actiontest.User{Login: "mallory", Type: "User"}, "quoting you: "+testMarker+" ha")
	s, _ := newTestStore(t, gh)
	for run := range 2 {
		if _, err := Upsert(t.Context(), s, pr, testMarker, fmt.Sprintf("%s\nrun %d", testMarker, run), CommentAlways, gate.Fail, false); err != nil {
			t.Fatal(err)
		}
	}
	all := gh.Comments(pr)
	if len(all) != 2 {
		t.Fatalf("got %d comments, want the human's and ours: %+v", len(all), all)
	}
	if all[0].Body != human.Body {
		t.Errorf("the human's comment was edited: %q", all[0].Body)
	}
	if all[1].User != actiontest.Bot || all[1].Body != testMarker+"\nrun 1" {
		t.Errorf("our comment = %+v", all[1])
	}
}

func TestStoreMatchesTokenLogin(t *testing.T) {
	t.Parallel()
	gh := startGitHub(t)
	gh.Viewer = "release-bot-user" // a PAT: GET /user answers, comments are by a User
	gh.Seed(pr, actiontest.User{Login: "mallory", Type: "User"}, testMarker+" forged")
	ours := gh.Seed(pr, actiontest.User{Login: "release-bot-user", Type: "User"}, testMarker+"\nold")
	s, _ := newTestStore(t, gh)
	if _, err := Upsert(t.Context(), s, pr, testMarker, testMarker+"\nnew", CommentAuto, gate.Fail, false); err != nil {
		t.Fatal(err)
	}
	reqs := requests(gh)
	if want := fmt.Sprintf("PATCH /repos/octo/repo/issues/comments/%d", ours.ID); reqs[len(reqs)-1] != want {
		t.Errorf("last request = %q, want %q", reqs[len(reqs)-1], want)
	}
	if got := gh.Comments(pr); got[0].Body != testMarker+" forged" || got[1].Body != testMarker+"\nnew" {
		t.Errorf("comments = %+v", got)
	}
}

func TestStoreAPIFailures(t *testing.T) {
	t.Parallel()
	resetIn := func(d time.Duration) string { return strconv.FormatInt(time.Now().Add(d).Unix(), 10) }
	const (
		list   = "GET /repos/octo/repo/issues/7/comments"
		create = "POST /repos/octo/repo/issues/7/comments"
		edit   = "PATCH /repos/octo/repo/issues/comments/1001"
	)
	tests := []struct {
		name     string
		existing bool // our comment is already there (so the write is a PATCH)
		faults   map[string][]actiontest.Fault
		// want
		status      int // APIError.StatusCode; 0 with wantOK
		rateLimited bool
		wantOK      bool
		requests    int // to the faulty endpoints and the write, GET /user excluded
		sleeps      []time.Duration
	}{
		{
			name:   "403 fork token on create",
			faults: map[string][]actiontest.Fault{create: {{Status: 403, Message: "Resource not accessible by integration"}}},
			status: 403, requests: 2,
		},
		{
			name:   "404 PR gone",
			faults: map[string][]actiontest.Fault{list: {{Status: 404, Message: "Not Found"}}},
			status: 404, requests: 1,
		},
		{
			name:     "422 on edit",
			existing: true,
			faults:   map[string][]actiontest.Fault{edit: {{Status: 422, Message: "Validation Failed"}}},
			status:   422, requests: 2,
		},
		{
			name:   "500 on list, persistent",
			faults: map[string][]actiontest.Fault{list: {{Status: 500}, {Status: 500}, {Status: 500}, {Status: 500}}},
			status: 500, requests: 3, sleeps: []time.Duration{time.Second, 2 * time.Second},
		},
		{
			name:   "502 on list, then fine",
			faults: map[string][]actiontest.Fault{list: {{Status: 502}}},
			wantOK: true, requests: 3, sleeps: []time.Duration{time.Second},
		},
		{
			name:   "500 on create: look again, then create once more",
			faults: map[string][]actiontest.Fault{create: {{Status: 500}}},
			// list, POST (500, not retried: it may have landed), list, POST
			wantOK: true, requests: 4,
		},
		{
			name:   "500 on create twice",
			faults: map[string][]actiontest.Fault{create: {{Status: 500}, {Status: 500}}},
			status: 500, requests: 4,
		},
		{
			name: "primary rate limit resetting soon",
			faults: map[string][]actiontest.Fault{list: {{
				Status: 403, Message: "API rate limit exceeded",
				Header: map[string]string{"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": resetIn(-time.Second)},
			}}},
			wantOK: true, requests: 3, sleeps: []time.Duration{time.Second},
		},
		{
			name: "primary rate limit for an hour",
			faults: map[string][]actiontest.Fault{list: {{
				Status: 403, Message: "API rate limit exceeded",
				Header: map[string]string{"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": resetIn(time.Hour)},
			}}},
			status: 403, rateLimited: true, requests: 1,
		},
		{
			name: "secondary rate limit with Retry-After, persistent",
			faults: map[string][]actiontest.Fault{create: {
				{Status: 403, Message: "You have exceeded a secondary rate limit", DocURL: "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits", Header: map[string]string{"Retry-After": "3"}},
				{Status: 403, Message: "You have exceeded a secondary rate limit", DocURL: "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits", Header: map[string]string{"Retry-After": "3"}},
				{Status: 403, Message: "You have exceeded a secondary rate limit", DocURL: "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits", Header: map[string]string{"Retry-After": "3"}},
			}},
			status: 403, rateLimited: true, requests: 4, sleeps: []time.Duration{3 * time.Second, 3 * time.Second},
		},
		{
			name: "secondary rate limit without headers: one wait of a minute, then over budget",
			faults: map[string][]actiontest.Fault{create: {
				{Status: 403, Message: "You have exceeded a secondary rate limit", DocURL: "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"},
				{Status: 403, Message: "You have exceeded a secondary rate limit", DocURL: "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"},
			}},
			status: 403, rateLimited: true, requests: 3, sleeps: []time.Duration{time.Minute},
		},
		{
			name:   "429 with Retry-After, then fine",
			faults: map[string][]actiontest.Fault{create: {{Status: 429, Message: "Too Many Requests", Header: map[string]string{"Retry-After": "2"}}}},
			wantOK: true, requests: 3, sleeps: []time.Duration{2 * time.Second},
		},
		{
			name:   "401 bad token",
			faults: map[string][]actiontest.Fault{list: {{Status: 401, Message: "Bad credentials"}}},
			status: 401, requests: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			gh := startGitHub(t)
			if tt.existing {
				gh.Seed(pr, actiontest.Bot, testMarker+"\nold")
			}
			for k, v := range tt.faults {
				gh.Fail(k, v...)
			}
			s, sleeps := newTestStore(t, gh)
			url, err := Upsert(t.Context(), s, pr, testMarker, testMarker+"\nbody", CommentAlways, gate.Fail, false)
			var reqs []string
			for _, r := range requests(gh) {
				if r != "GET /user" {
					reqs = append(reqs, r)
				}
			}
			if len(reqs) != tt.requests {
				t.Errorf("%d requests, want %d: %q", len(reqs), tt.requests, reqs)
			}
			if diff := cmp.Diff(tt.sleeps, *sleeps); diff != "" {
				t.Errorf("sleeps (-want +got):\n%s", diff)
			}
			if tt.wantOK {
				if err != nil || url == "" {
					t.Fatalf("Upsert = %q, %v; want a URL", url, err)
				}
				if n := len(gh.Comments(pr)); n != 1 {
					t.Errorf("%d comments, want 1", n)
				}
				return
			}
			var ae *APIError
			if !errors.As(err, &ae) {
				t.Fatalf("Upsert error = %v, want an *APIError", err)
			}
			if ae.StatusCode != tt.status || ae.RateLimited != tt.rateLimited {
				t.Errorf("APIError status %d rate-limited %v, want %d %v: %v", ae.StatusCode, ae.RateLimited, tt.status, tt.rateLimited, err)
			}
			if ae.Hint() == "" || !strings.Contains(err.Error(), ae.Hint()) {
				t.Errorf("error %q lacks a hint", err)
			}
			if strings.Contains(err.Error(), "test-token") {
				t.Errorf("error leaks the token: %v", err)
			}
			if url != "" {
				t.Errorf("url = %q on error", url)
			}
		})
	}
}

func TestStoreGivesUpAfterMaxPages(t *testing.T) {
	t.Parallel()
	gh := startGitHub(t)
	for range 250 {
		gh.Seed(pr, actiontest.Bot, "unrelated")
	}
	s, _ := newTestStore(t, gh)
	s.maxPages = 2
	_, err := Upsert(t.Context(), s, pr, testMarker, testMarker, CommentAlways, gate.Fail, false)
	if err == nil || !strings.Contains(err.Error(), "gave up after 2 pages") {
		t.Fatalf("err = %v, want giving up after 2 pages", err)
	}
	if n := len(gh.Comments(pr)); n != 250 {
		t.Errorf("%d comments, want no new one", n)
	}
}

func TestNewGitHubStoreRejectsBadConfig(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ name, token, api, repo string }{
		{"no token", "", "https://api.github.com", "o/r"},
		{"bad repo", "t", "https://api.github.com", "just-a-name"},
		{"nested repo", "t", "https://api.github.com", "o/r/x"},
		{"bad url", "t", "ftp://example.com", "o/r"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if _, err := NewGitHubStore(tt.token, tt.api, tt.repo); err == nil {
				t.Error("no error")
			}
		})
	}
}

func TestStoreHonoursGHESBaseURL(t *testing.T) {
	t.Parallel()
	// The fake only answers under /api/v3/; a trailing slash must not matter.
	gh := startGitHub(t)
	s, err := NewGitHubStore("test-token", gh.APIURL()+"/", "octo/repo")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Create(t.Context(), pr, "hello"); err != nil {
		t.Fatal(err)
	}
	if got := s.client.BaseURL.String(); got != gh.APIURL()+"/" {
		t.Errorf("BaseURL = %q", got)
	}
	_ = http.MethodGet
}
