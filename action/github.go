package action

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/agentv/action/internal/retry"
	"github.com/google/go-github/v62/github"
)

// GitHubStore is the CommentStore of one repository, through GitHub's REST API
// (https://docs.github.com/rest/issues/comments). It is not safe for concurrent use.
type GitHubStore struct {
	client      *github.Client
	owner, repo string
	maxPages    int

	viewerOnce sync.Once
	viewer     string // the token's login; "" when GET /user does not answer (GITHUB_TOKEN)

	download *http.Client    // fetches artifact archives from their signed URLs, without the token
	retry    *retryTransport // carries every request (tests replace its sleep)
}

// maxCommentPages bounds the search for our comment: 100 pages of 100 comments. Giving
// up is an error, not "not found", so a huge thread never gets a duplicate comment.
const maxCommentPages = 100

// NewGitHubStore returns a store for repo ("owner/name") at apiURL (GITHUB_API_URL:
// https://api.github.com, or https://HOST/api/v3 on GitHub Enterprise Server).
func NewGitHubStore(token, apiURL, repo string) (*GitHubStore, error) {
	owner, name, ok := strings.Cut(repo, "/")
	if !ok || owner == "" || name == "" || strings.Contains(name, "/") {
		return nil, fmt.Errorf("could not use repository %q: want owner/name (GITHUB_REPOSITORY)", repo)
	}
	if strings.TrimSpace(token) == "" {
		return nil, errors.New("could not comment: the github-token input is empty")
	}
	apiURL = cmp.Or(apiURL, defaultAPIURL)
	base, err := url.Parse(strings.TrimRight(apiURL, "/") + "/")
	if err != nil || (base.Scheme != "https" && base.Scheme != "http") || base.Host == "" {
		return nil, fmt.Errorf("could not use GITHUB_API_URL %q: want an http(s) URL", apiURL)
	}
	rt := &retryTransport{base: http.DefaultTransport, sleep: retry.Wait}
	hc := &http.Client{Timeout: 30 * time.Second, Transport: rt}
	client := github.NewClient(hc).WithAuthToken(token)
	// Set BaseURL directly: WithEnterpriseURLs appends api/v3/ to URLs lacking it, which
	// would break GITHUB_API_URL values that are already complete.
	client.BaseURL = base
	// Artifact archives are fetched through the same retrying transport, without the token
	// (WithAuthToken wrapped a copy of hc, not hc).
	dl := &http.Client{Timeout: 5 * time.Minute, Transport: rt}
	return &GitHubStore{client: client, owner: owner, repo: name, maxPages: maxCommentPages, download: dl, retry: rt}, nil
}

// login returns the token's own login from GET /user, once. The workflow's GITHUB_TOKEN
// (an installation token) gets 403 there; comments are then matched as written by a bot.
// https://docs.github.com/rest/users/users#get-the-authenticated-user
func (s *GitHubStore) login(ctx context.Context) string {
	s.viewerOnce.Do(func() {
		u, _, err := s.client.Users.Get(ctx, "")
		if err == nil {
			s.viewer = u.GetLogin()
		}
	})
	return s.viewer
}

// Find returns the comment on pr that holds marker and was written by us: by the token's
// login when GET /user answers, else by a bot account (user.type Bot). It reads every
// page, 100 comments at a time. A human's comment quoting the marker is never returned.
// https://docs.github.com/rest/issues/comments#list-issue-comments
func (s *GitHubStore) Find(ctx context.Context, pr int, marker string) (*Comment, error) {
	me := s.login(ctx)
	opts := &github.IssueListCommentsOptions{ListOptions: github.ListOptions{PerPage: 100}}
	var bot *Comment
	for page := 1; ; page++ {
		if page > s.maxPages {
			return nil, &APIError{
				Op:      fmt.Sprintf("list comments on PR #%d", pr),
				Message: fmt.Sprintf("gave up after %d pages of comments", s.maxPages),
			}
		}
		cs, resp, err := s.client.Issues.ListComments(ctx, s.owner, s.repo, pr, opts)
		if err != nil {
			return nil, apiError(fmt.Sprintf("list comments on PR #%d", pr), err)
		}
		for _, c := range cs {
			if !strings.Contains(c.GetBody(), marker) {
				continue
			}
			u := c.GetUser()
			if me != "" && strings.EqualFold(u.GetLogin(), me) {
				return toComment(c), nil
			}
			if bot == nil && u.GetType() == "Bot" {
				bot = toComment(c)
			}
		}
		if resp == nil || resp.NextPage == 0 {
			return bot, nil
		}
		opts.Page = resp.NextPage
	}
}

// Create posts a new comment on pr.
// https://docs.github.com/rest/issues/comments#create-an-issue-comment
func (s *GitHubStore) Create(ctx context.Context, pr int, body string) (*Comment, error) {
	c, _, err := s.client.Issues.CreateComment(ctx, s.owner, s.repo, pr, &github.IssueComment{Body: &body})
	if err != nil {
		return nil, apiError(fmt.Sprintf("create a comment on PR #%d", pr), err)
	}
	return toComment(c), nil
}

// Update replaces the body of comment id.
// https://docs.github.com/rest/issues/comments#update-an-issue-comment
func (s *GitHubStore) Update(ctx context.Context, id int64, body string) (*Comment, error) {
	c, _, err := s.client.Issues.EditComment(ctx, s.owner, s.repo, id, &github.IssueComment{Body: &body})
	if err != nil {
		return nil, apiError(fmt.Sprintf("update comment %d", id), err)
	}
	return toComment(c), nil
}

func toComment(c *github.IssueComment) *Comment {
	return &Comment{ID: c.GetID(), URL: c.GetHTMLURL(), Body: c.GetBody()}
}

// apiError turns go-github's error types into an *APIError.
func apiError(op string, err error) error {
	ae := &APIError{Op: op, Err: err}
	var (
		rl  *github.RateLimitError
		arl *github.AbuseRateLimitError
		er  *github.ErrorResponse
	)
	var resp *http.Response
	switch {
	case errors.As(err, &rl):
		ae.RateLimited, ae.Message, resp = true, rl.Message, rl.Response
	case errors.As(err, &arl):
		ae.RateLimited, ae.Message, resp = true, arl.Message, arl.Response
	case errors.As(err, &er):
		ae.Message, resp = er.Message, er.Response
	}
	if resp != nil {
		ae.StatusCode = resp.StatusCode
	}
	ae.RateLimited = ae.RateLimited || ae.StatusCode == http.StatusTooManyRequests
	return ae
}
