package action

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
)

// fakeGitHub is a stateful loopback server speaking the part of GitHub's REST API the
// sticky comment uses, under the GHES-style prefix /api/v3/ so that absolute URLs are
// caught: GET /user, list (paginated with Link headers), create and edit issue comments.
type fakeGitHub struct {
	t   *testing.T
	srv *httptest.Server

	mu       sync.Mutex
	viewer   string // login GET /user answers with; "" answers 403 like GITHUB_TOKEN
	author   fakeUser
	comments map[int][]*fakeComment
	nextID   int64
	requests []string           // "METHOD /path?query" without the prefix
	faults   map[string][]fault // by "METHOD /path"; consumed in order
}

type fakeUser struct {
	Login string `json:"login"`
	Type  string `json:"type"`
}

type fakeComment struct {
	ID      int64    `json:"id"`
	HTMLURL string   `json:"html_url"`
	Body    string   `json:"body"`
	User    fakeUser `json:"user"`
}

// fault is one canned error response.
type fault struct {
	status  int
	header  map[string]string
	message string
	docURL  string
}

const apiPrefix = "/api/v3"

var botUser = fakeUser{Login: "github-actions[bot]", Type: "Bot"}

func newFakeGitHub(t *testing.T) *fakeGitHub {
	t.Helper()
	f := &fakeGitHub{t: t, author: botUser, comments: map[int][]*fakeComment{}, nextID: 1000, faults: map[string][]fault{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+apiPrefix+"/user", f.user)
	mux.HandleFunc("GET "+apiPrefix+"/repos/{owner}/{repo}/issues/{n}/comments", f.list)
	mux.HandleFunc("POST "+apiPrefix+"/repos/{owner}/{repo}/issues/{n}/comments", f.create)
	mux.HandleFunc("PATCH "+apiPrefix+"/repos/{owner}/{repo}/issues/comments/{id}", f.edit)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("unexpected request %s %s", r.Method, r.URL)
		http.Error(w, `{"message":"Not Found"}`, http.StatusNotFound)
	})
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if got := r.Header.Get("Authorization"); got != "Bearer test-token" {
			t.Errorf("%s %s: Authorization = %q", r.Method, r.URL.Path, got)
		}
		key := r.Method + " " + strings.TrimPrefix(r.URL.Path, apiPrefix)
		f.mu.Lock()
		req := key
		if r.URL.RawQuery != "" {
			req += "?" + r.URL.RawQuery
		}
		f.requests = append(f.requests, req)
		var flt *fault
		if q := f.faults[key]; len(q) > 0 {
			flt, f.faults[key] = &q[0], q[1:]
		}
		f.mu.Unlock()
		if flt != nil {
			for k, v := range flt.header {
				w.Header().Set(k, v)
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(flt.status)
			_ = json.NewEncoder(w).Encode(map[string]string{"message": flt.message, "documentation_url": flt.docURL})
			return
		}
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeGitHub) apiURL() string { return f.srv.URL + apiPrefix }

// store returns a GitHubStore on octo/repo whose retry waits are recorded, not slept.
func (f *fakeGitHub) store(t *testing.T, opts ...StoreOption) (*GitHubStore, *[]time.Duration) {
	t.Helper()
	var mu sync.Mutex
	var sleeps []time.Duration
	all := append([]StoreOption{WithSleep(func(_ context.Context, d time.Duration) error {
		mu.Lock()
		defer mu.Unlock()
		sleeps = append(sleeps, d)
		return nil
	})}, opts...)
	s, err := NewGitHubStore("test-token", f.apiURL(), "octo/repo", all...)
	if err != nil {
		t.Fatal(err)
	}
	return s, &sleeps
}

func (f *fakeGitHub) fail(key string, fs ...fault) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.faults[key] = append(f.faults[key], fs...)
}

// seed adds a comment by user to pr.
func (f *fakeGitHub) seed(pr int, user fakeUser, body string) *fakeComment {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.addLocked(pr, user, body)
}

func (f *fakeGitHub) addLocked(pr int, user fakeUser, body string) *fakeComment {
	f.nextID++
	c := &fakeComment{
		ID: f.nextID, Body: body, User: user,
		HTMLURL: fmt.Sprintf("https://github.example/octo/repo/pull/%d#issuecomment-%d", pr, f.nextID),
	}
	f.comments[pr] = append(f.comments[pr], c)
	return c
}

func (f *fakeGitHub) all(pr int) []fakeComment {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]fakeComment, 0, len(f.comments[pr]))
	for _, c := range f.comments[pr] {
		out = append(out, *c)
	}
	return out
}

func (f *fakeGitHub) takeRequests() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	r := f.requests
	f.requests = nil
	return r
}

func (f *fakeGitHub) user(w http.ResponseWriter, _ *http.Request) {
	f.mu.Lock()
	viewer := f.viewer
	f.mu.Unlock()
	if viewer == "" {
		writeJSON(w, http.StatusForbidden, map[string]string{"message": "Resource not accessible by integration"})
		return
	}
	writeJSON(w, http.StatusOK, fakeUser{Login: viewer, Type: "User"})
}

func (f *fakeGitHub) list(w http.ResponseWriter, r *http.Request) {
	pr, _ := strconv.Atoi(r.PathValue("n"))
	perPage := 30 // GitHub's default
	if v, err := strconv.Atoi(r.URL.Query().Get("per_page")); err == nil {
		perPage = min(v, 100)
	}
	page := 1
	if v, err := strconv.Atoi(r.URL.Query().Get("page")); err == nil && v > 0 {
		page = v
	}
	all := f.all(pr)
	last := max((len(all)+perPage-1)/perPage, 1)
	lo, hi := min((page-1)*perPage, len(all)), min(page*perPage, len(all))
	link := func(p int, rel string) string {
		return fmt.Sprintf(`<%s%s%s?per_page=%d&page=%d>; rel="%s"`, f.srv.URL, apiPrefix, strings.TrimPrefix(r.URL.Path, apiPrefix), perPage, p, rel)
	}
	var links []string
	if page < last {
		links = append(links, link(page+1, "next"), link(last, "last"))
	}
	if page > 1 {
		links = append(links, link(1, "first"), link(page-1, "prev"))
	}
	if len(links) > 0 {
		w.Header().Set("Link", strings.Join(links, ", "))
	}
	writeJSON(w, http.StatusOK, all[lo:hi])
}

func (f *fakeGitHub) create(w http.ResponseWriter, r *http.Request) {
	pr, _ := strconv.Atoi(r.PathValue("n"))
	var in struct{ Body string }
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"message": "Problems parsing JSON"})
		return
	}
	if utf8.RuneCountInString(in.Body) > 65536 {
		writeJSON(w, http.StatusUnprocessableEntity, map[string]string{"message": "Validation Failed"})
		return
	}
	f.mu.Lock()
	author := f.author
	if f.viewer != "" {
		author = fakeUser{Login: f.viewer, Type: "User"}
	}
	c := *f.addLocked(pr, author, in.Body)
	f.mu.Unlock()
	writeJSON(w, http.StatusCreated, c)
}

func (f *fakeGitHub) edit(w http.ResponseWriter, r *http.Request) {
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	var in struct{ Body string }
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"message": "Problems parsing JSON"})
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, cs := range f.comments {
		for _, c := range cs {
			if c.ID == id {
				c.Body = in.Body
				writeJSON(w, http.StatusOK, c)
				return
			}
		}
	}
	writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
