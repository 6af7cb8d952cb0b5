// Package actiontest is a loopback stand-in for the part of GitHub's REST API the Action uses
// (the authenticated user; listing, creating and editing issue comments; a workflow's runs,
// their artifacts and downloads), for the action package's tests and end-to-end runs:
//
//	gh := actiontest.StartGitHub(t)           // stops with the test
//	t.Setenv("GITHUB_API_URL", gh.APIURL())   // the binary's comments go to gh
//	comments := gh.Comments(7)
//
// It keeps state like GitHub (comment ids, authors, pages with Link headers); canned failures
// can be queued per endpoint.
package actiontest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

// APIPrefix is the path the API is served under, as on GitHub Enterprise Server, so that
// a client that ignores GITHUB_API_URL's path is caught.
const APIPrefix = "/api/v3"

// User is a comment author.
type User struct {
	Login string `json:"login"`
	Type  string `json:"type"` // "Bot" or "User"
}

// Bot is the author of comments made with the workflow's GITHUB_TOKEN.
var Bot = User{Login: "github-actions[bot]", Type: "Bot"}

// Comment is an issue comment as the API returns it.
type Comment struct {
	ID      int64  `json:"id"`
	HTMLURL string `json:"html_url"`
	Body    string `json:"body"`
	User    User   `json:"user"`
}

// Request is one request the server received.
type Request struct {
	Method string `json:"method"`
	Path   string `json:"path"` // without APIPrefix
	Query  string `json:"query,omitempty"`
	Auth   string `json:"auth,omitempty"`
	Body   string `json:"body,omitempty"`
}

// String gives "METHOD /path?query".
func (r Request) String() string {
	s := r.Method + " " + r.Path
	if r.Query != "" {
		s += "?" + r.Query
	}
	return s
}

// Fault is a canned error response.
type Fault struct {
	Status  int
	Header  map[string]string
	Message string
	DocURL  string // documentation_url, e.g. the secondary-rate-limit page
}

// GitHub is the fake API. Its zero value is not usable; use NewGitHub or StartGitHub.
type GitHub struct {
	// Viewer is the login GET /user answers with; "" answers 403, as for the workflow's
	// GITHUB_TOKEN. Comments are authored by Viewer (a User) when set, else by Bot.
	Viewer string
	// Token, when set, is the only token accepted (401 otherwise).
	Token string

	mu         sync.Mutex
	base       string // scheme://host of the server, for Link headers
	comments   map[int][]*Comment
	nextID     int64
	requests   []Request
	faults     map[string][]Fault
	unexpected []string
	actions    actionsState
}

// NewGitHub returns a fake whose first comment id is 1001. Serve it with Handler.
func NewGitHub() *GitHub {
	return &GitHub{comments: map[int][]*Comment{}, nextID: 1000, faults: map[string][]Fault{}}
}

// StartGitHub serves a new fake on a loopback port until the test ends, and fails the
// test if the server got a request it does not implement.
func StartGitHub(t testing.TB) *GitHub {
	t.Helper()
	g := NewGitHub()
	srv := httptest.NewServer(g.Handler())
	g.SetBaseURL(srv.URL)
	t.Cleanup(func() {
		srv.Close()
		for _, u := range g.Unexpected() {
			t.Errorf("fake GitHub: unexpected request %s", u)
		}
	})
	return g
}

// SetBaseURL records the server's scheme://host for Link headers.
func (g *GitHub) SetBaseURL(u string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.base = strings.TrimRight(u, "/")
}

// APIURL is the value for GITHUB_API_URL.
func (g *GitHub) APIURL() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.base + APIPrefix
}

// Fail queues canned responses for key ("METHOD /path", e.g.
// "POST /repos/o/r/issues/7/comments"); each request to it consumes one.
func (g *GitHub) Fail(key string, faults ...Fault) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.faults[key] = append(g.faults[key], faults...)
}

// Seed adds a comment by user to pr.
func (g *GitHub) Seed(pr int, user User, body string) Comment {
	g.mu.Lock()
	defer g.mu.Unlock()
	return *g.addLocked(pr, user, body)
}

func (g *GitHub) addLocked(pr int, user User, body string) *Comment {
	g.nextID++
	c := &Comment{
		ID: g.nextID, Body: body, User: user,
		HTMLURL: fmt.Sprintf("https://github.example/pull/%d#issuecomment-%d", pr, g.nextID),
	}
	g.comments[pr] = append(g.comments[pr], c)
	return c
}

// Comments returns pr's comments in creation order.
func (g *GitHub) Comments(pr int) []Comment {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := make([]Comment, 0, len(g.comments[pr]))
	for _, c := range g.comments[pr] {
		out = append(out, *c)
	}
	return out
}

// AllComments returns every PR's comments, by PR number.
func (g *GitHub) AllComments() map[int][]Comment {
	g.mu.Lock()
	prs := make([]int, 0, len(g.comments))
	for pr := range g.comments {
		prs = append(prs, pr)
	}
	g.mu.Unlock()
	out := map[int][]Comment{}
	for _, pr := range prs {
		out[pr] = g.Comments(pr)
	}
	return out
}

// Requests returns the requests received so far and forgets them.
func (g *GitHub) Requests() []Request {
	g.mu.Lock()
	defer g.mu.Unlock()
	r := g.requests
	g.requests = nil
	return r
}

// Unexpected returns requests to endpoints the fake does not implement.
func (g *GitHub) Unexpected() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]string(nil), g.unexpected...)
}

// Handler serves the API.
func (g *GitHub) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+APIPrefix+"/user", g.user)
	mux.HandleFunc("GET "+APIPrefix+"/repos/{owner}/{repo}/issues/{n}/comments", g.list)
	mux.HandleFunc("POST "+APIPrefix+"/repos/{owner}/{repo}/issues/{n}/comments", g.create)
	mux.HandleFunc("PATCH "+APIPrefix+"/repos/{owner}/{repo}/issues/comments/{id}", g.edit)
	g.actionsRoutes(mux)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		g.mu.Lock()
		g.unexpected = append(g.unexpected, r.Method+" "+r.URL.String())
		g.mu.Unlock()
		writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<22))
		r.Body = io.NopCloser(strings.NewReader(string(body)))
		req := Request{Method: r.Method, Path: strings.TrimPrefix(r.URL.Path, APIPrefix), Query: r.URL.RawQuery,
			Auth: r.Header.Get("Authorization"), Body: string(body)}
		g.mu.Lock()
		g.requests = append(g.requests, req)
		key := req.Method + " " + req.Path
		var f *Fault
		if q := g.faults[key]; len(q) > 0 {
			f, g.faults[key] = &q[0], q[1:]
		}
		token := g.Token
		g.mu.Unlock()
		if token != "" && req.Auth != "Bearer "+token && req.Auth != "token "+token && !strings.HasPrefix(req.Path, "/blobs/") {
			writeJSON(w, http.StatusUnauthorized, map[string]string{"message": "Bad credentials"})
			return
		}
		if f != nil {
			for k, v := range f.Header {
				w.Header().Set(k, v)
			}
			writeJSON(w, f.Status, map[string]string{"message": f.Message, "documentation_url": f.DocURL})
			return
		}
		mux.ServeHTTP(w, r)
	})
}

func (g *GitHub) user(w http.ResponseWriter, _ *http.Request) {
	g.mu.Lock()
	viewer := g.Viewer
	g.mu.Unlock()
	if viewer == "" {
		writeJSON(w, http.StatusForbidden, map[string]string{"message": "Resource not accessible by integration"})
		return
	}
	writeJSON(w, http.StatusOK, User{Login: viewer, Type: "User"})
}

func (g *GitHub) list(w http.ResponseWriter, r *http.Request) {
	pr, _ := strconv.Atoi(r.PathValue("n"))
	perPage := 30 // GitHub's default
	if v, err := strconv.Atoi(r.URL.Query().Get("per_page")); err == nil && v > 0 {
		perPage = min(v, 100)
	}
	page := 1
	if v, err := strconv.Atoi(r.URL.Query().Get("page")); err == nil && v > 0 {
		page = v
	}
	all := g.Comments(pr)
	last := max((len(all)+perPage-1)/perPage, 1)
	lo, hi := min((page-1)*perPage, len(all)), min(page*perPage, len(all))
	g.mu.Lock()
	base := g.base
	g.mu.Unlock()
	link := func(p int, rel string) string {
		return fmt.Sprintf(`<%s%s?per_page=%d&page=%d>; rel="%s"`, base, r.URL.Path, perPage, p, rel)
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

// maxBody is GitHub's comment limit in characters.
const maxBody = 65536

// commentBody reads a comment's body as GitHub validates it; false: refused, answered.
func commentBody(w http.ResponseWriter, r *http.Request) (string, bool) {
	var in struct{ Body string }
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"message": "Problems parsing JSON"})
		return "", false
	}
	if utf8.RuneCountInString(in.Body) > maxBody {
		writeJSON(w, http.StatusUnprocessableEntity, map[string]string{"message": "Validation Failed"})
		return "", false
	}
	return in.Body, true
}

func (g *GitHub) create(w http.ResponseWriter, r *http.Request) {
	pr, _ := strconv.Atoi(r.PathValue("n"))
	body, ok := commentBody(w, r)
	if !ok {
		return
	}
	g.mu.Lock()
	author := Bot
	if g.Viewer != "" {
		author = User{Login: g.Viewer, Type: "User"}
	}
	c := *g.addLocked(pr, author, body)
	g.mu.Unlock()
	writeJSON(w, http.StatusCreated, c)
}

func (g *GitHub) edit(w http.ResponseWriter, r *http.Request) {
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	body, ok := commentBody(w, r)
	if !ok {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, cs := range g.comments {
		for _, c := range cs {
			if c.ID == id {
				c.Body = body
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
