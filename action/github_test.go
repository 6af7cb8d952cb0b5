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

	"github.com/agentv/action/gate"
)

const pr = 7

var testMarker = Marker("CI", "evals", "")

func TestStoreFirstRunCreatesSecondRunEdits(t *testing.T) {
	t.Parallel()
	f := newFakeGitHub(t)
	s, _ := f.store(t)
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
	if diff := cmp.Diff(want, f.takeRequests()); diff != "" {
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
	if diff := cmp.Diff(want, f.takeRequests()); diff != "" {
		t.Errorf("second run requests (-want +got):\n%s", diff)
	}
	if url1 == "" || url1 != url2 {
		t.Errorf("urls = %q, %q; want the same non-empty URL", url1, url2)
	}
	got := f.all(pr)
	if len(got) != 1 || got[0].Body != testMarker+"\nrun 2: all passed" {
		t.Errorf("comments = %+v, want one with the second body", got)
	}
}

func TestStoreFindsMarkerOnSecondPage(t *testing.T) {
	t.Parallel()
	f := newFakeGitHub(t)
	for i := range 150 {
		switch {
		case i == 120:
			f.seed(pr, botUser, testMarker+"\nold report")
		case i%3 == 0:
			f.seed(pr, fakeUser{Login: "other-bot[bot]", Type: "Bot"}, "a bot without our marker")
		default:
			f.seed(pr, fakeUser{Login: "reviewer" + strconv.Itoa(i), Type: "User"}, "LGTM")
		}
	}
	s, _ := f.store(t)
	if _, err := Upsert(t.Context(), s, pr, testMarker, testMarker+"\nnew report", CommentOnFailure, gate.Pass, false); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"GET /user",
		"GET /repos/octo/repo/issues/7/comments?per_page=100",
		"GET /repos/octo/repo/issues/7/comments?page=2&per_page=100",
		"PATCH /repos/octo/repo/issues/comments/1121",
	}
	if diff := cmp.Diff(want, f.takeRequests()); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
	all := f.all(pr)
	if len(all) != 150 || all[120].Body != testMarker+"\nnew report" {
		t.Errorf("got %d comments, #120 = %q; want 150 and the new report edited in place", len(all), all[120].Body)
	}
}

func TestStoreOneCommentPerKey(t *testing.T) {
	t.Parallel()
	f := newFakeGitHub(t)
	s, _ := f.store(t)
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
	for _, c := range f.all(pr) {
		got = append(got, c.Body)
	}
	want := []string{linux + "\nrun 1", windows + "\nrun 1"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("comments (-want +got):\n%s", diff)
	}
}

func TestStoreIgnoresHumanCommentWithMarker(t *testing.T) {
	t.Parallel()
	f := newFakeGitHub(t)
	human := f.seed(pr, fakeUser{Login: "mallory", Type: "User"}, "quoting you: "+testMarker+" ha")
	s, _ := f.store(t)
	for run := range 2 {
		if _, err := Upsert(t.Context(), s, pr, testMarker, fmt.Sprintf("%s\nrun %d", testMarker, run), CommentAlways, gate.Fail, false); err != nil {
			t.Fatal(err)
		}
	}
	all := f.all(pr)
	if len(all) != 2 {
		t.Fatalf("got %d comments, want the human's and ours: %+v", len(all), all)
	}
	if all[0].Body != human.Body {
		t.Errorf("the human's comment was edited: %q", all[0].Body)
	}
	if all[1].User != botUser || all[1].Body != testMarker+"\nrun 1" {
		t.Errorf("our comment = %+v", all[1])
	}
}

func TestStoreMatchesTokenLogin(t *testing.T) {
	t.Parallel()
	f := newFakeGitHub(t)
	f.viewer = "release-bot-user" // a PAT: GET /user answers, comments are by a User
	f.seed(pr, fakeUser{Login: "mallory", Type: "User"}, testMarker+" forged")
	ours := f.seed(pr, fakeUser{Login: "release-bot-user", Type: "User"}, testMarker+"\nold")
	s, _ := f.store(t)
	if _, err := Upsert(t.Context(), s, pr, testMarker, testMarker+"\nnew", CommentAuto, gate.Fail, false); err != nil {
		t.Fatal(err)
	}
	reqs := f.takeRequests()
	if want := fmt.Sprintf("PATCH /repos/octo/repo/issues/comments/%d", ours.ID); reqs[len(reqs)-1] != want {
		t.Errorf("last request = %q, want %q", reqs[len(reqs)-1], want)
	}
	if got := f.all(pr); got[0].Body != testMarker+" forged" || got[1].Body != testMarker+"\nnew" {
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
		faults   map[string][]fault
		// want
		status      int // APIError.StatusCode; 0 with wantOK
		rateLimited bool
		wantOK      bool
		requests    int // to the faulty endpoints and the write, GET /user excluded
		sleeps      []time.Duration
	}{
		{
			name:   "403 fork token on create",
			faults: map[string][]fault{create: {{status: 403, message: "Resource not accessible by integration"}}},
			status: 403, requests: 2,
		},
		{
			name:   "404 PR gone",
			faults: map[string][]fault{list: {{status: 404, message: "Not Found"}}},
			status: 404, requests: 1,
		},
		{
			name:     "422 on edit",
			existing: true,
			faults:   map[string][]fault{edit: {{status: 422, message: "Validation Failed"}}},
			status:   422, requests: 2,
		},
		{
			name:   "500 on list, persistent",
			faults: map[string][]fault{list: {{status: 500}, {status: 500}, {status: 500}, {status: 500}}},
			status: 500, requests: 3, sleeps: []time.Duration{time.Second, 2 * time.Second},
		},
		{
			name:   "502 on list, then fine",
			faults: map[string][]fault{list: {{status: 502}}},
			wantOK: true, requests: 3, sleeps: []time.Duration{time.Second},
		},
		{
			name:   "500 on create: look again, then create once more",
			faults: map[string][]fault{create: {{status: 500}}},
			// list, POST (500, not retried: it may have landed), list, POST
			wantOK: true, requests: 4,
		},
		{
			name:   "500 on create twice",
			faults: map[string][]fault{create: {{status: 500}, {status: 500}}},
			status: 500, requests: 4,
		},
		{
			name: "primary rate limit resetting soon",
			faults: map[string][]fault{list: {{
				status: 403, message: "API rate limit exceeded",
				header: map[string]string{"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": resetIn(-time.Second)},
			}}},
			wantOK: true, requests: 3, sleeps: []time.Duration{time.Second},
		},
		{
			name: "primary rate limit for an hour",
			faults: map[string][]fault{list: {{
				status: 403, message: "API rate limit exceeded",
				header: map[string]string{"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": resetIn(time.Hour)},
			}}},
			status: 403, rateLimited: true, requests: 1,
		},
		{
			name: "secondary rate limit with Retry-After, persistent",
			faults: map[string][]fault{create: {
				{status: 403, message: "You have exceeded a secondary rate limit", docURL: "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits", header: map[string]string{"Retry-After": "3"}},
				{status: 403, message: "You have exceeded a secondary rate limit", docURL: "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits", header: map[string]string{"Retry-After": "3"}},
				{status: 403, message: "You have exceeded a secondary rate limit", docURL: "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits", header: map[string]string{"Retry-After": "3"}},
			}},
			status: 403, rateLimited: true, requests: 4, sleeps: []time.Duration{3 * time.Second, 3 * time.Second},
		},
		{
			name:   "429 with Retry-After, then fine",
			faults: map[string][]fault{create: {{status: 429, message: "Too Many Requests", header: map[string]string{"Retry-After": "2"}}}},
			wantOK: true, requests: 3, sleeps: []time.Duration{2 * time.Second},
		},
		{
			name:   "401 bad token",
			faults: map[string][]fault{list: {{status: 401, message: "Bad credentials"}}},
			status: 401, requests: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFakeGitHub(t)
			if tt.existing {
				f.seed(pr, botUser, testMarker+"\nold")
			}
			for k, v := range tt.faults {
				f.fail(k, v...)
			}
			s, sleeps := f.store(t)
			url, err := Upsert(t.Context(), s, pr, testMarker, testMarker+"\nbody", CommentAlways, gate.Fail, false)
			var reqs []string
			for _, r := range f.takeRequests() {
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
				if n := len(f.all(pr)); n != 1 {
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
	f := newFakeGitHub(t)
	for range 250 {
		f.seed(pr, botUser, "unrelated")
	}
	s, _ := f.store(t)
	s.maxPages = 2
	_, err := Upsert(t.Context(), s, pr, testMarker, testMarker, CommentAlways, gate.Fail, false)
	if err == nil || !strings.Contains(err.Error(), "gave up after 2 pages") {
		t.Fatalf("err = %v, want giving up after 2 pages", err)
	}
	if n := len(f.all(pr)); n != 250 {
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
	f := newFakeGitHub(t)
	s, err := NewGitHubStore("test-token", f.apiURL()+"/", "octo/repo")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Create(t.Context(), pr, "hello"); err != nil {
		t.Fatal(err)
	}
	if got := s.client.BaseURL.String(); got != f.apiURL()+"/" {
		t.Errorf("BaseURL = %q", got)
	}
	_ = http.MethodGet
}
