package action

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/agentv/action/gate"
)

// Comment is an issue or pull-request comment.
type Comment struct {
	ID   int64
	URL  string // html_url, the link people open
	Body string
}

// CommentStore finds, creates and edits the comments of one repository's pull requests.
type CommentStore interface {
	// Find returns the comment on pr that holds marker and was written by us, or nil.
	Find(ctx context.Context, pr int, marker string) (*Comment, error)
	Create(ctx context.Context, pr int, body string) (*Comment, error)
	Update(ctx context.Context, id int64, body string) (*Comment, error)
}

// MaxCommentChars is GitHub's limit on a comment body: longer bodies get 422 "Body is too
// long (maximum is 65536 characters)". Upsert refuses them without calling the API.
const MaxCommentChars = 65536

// ErrCommentTooLong is returned by Upsert for a body over MaxCommentChars.
var ErrCommentTooLong = errors.New("comment body exceeds 65536 characters")

// markerPrefix starts every marker; the version changes only if the format does.
const markerPrefix = "<!-- agentv-action:v1 "

// Marker returns the hidden marker that identifies the sticky comment of one workflow,
// job and comment key: one comment per PR for each (workflow, job, key). The values are
// percent-encoded (every byte but letters, digits, '.' and '_'), so no workflow or job
// name, key, or model text quoting them can close the HTML comment ("-->") or make one
// marker a prefix of another.
func Marker(workflow, job, key string) string {
	return markerPrefix + "workflow=" + markerEscape(workflow) + " job=" + markerEscape(job) + " key=" + markerEscape(key) + " -->"
}

func markerEscape(s string) string {
	var b strings.Builder
	for _, c := range []byte(s) {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// Upsert keeps the sticky comment on pr current: it edits the comment holding marker in
// place (whatever the mode but off, so it never goes stale), or creates it when mode asks
// for one for this outcome; it never creates a second. It does nothing for pr <= 0 (not a PR
// event) or CommentOff. It returns the comment's URL, or "" when none was written. An error
// is for the caller to report as a warning: the other reports do not depend on the comment.
func Upsert(ctx context.Context, store CommentStore, pr int, marker, body string, mode CommentMode, outcome gate.Outcome, hasWarnings bool) (string, error) {
	switch mode {
	case CommentOff:
		return "", nil
	case CommentAuto, CommentAlways, CommentOnFailure:
	default:
		return "", fmt.Errorf("could not update the PR comment: unknown comment mode %q (want auto, always, on-failure or off)", mode)
	}
	if pr <= 0 {
		return "", nil
	}
	if marker == "" || !strings.HasPrefix(marker, markerPrefix) {
		return "", fmt.Errorf("could not update the PR comment: invalid marker %q (use Marker)", marker)
	}
	if !strings.Contains(body, marker) {
		// Without the marker the next run could not find this comment and would post another.
		body = marker + "\n" + body
	}
	if n := utf8.RuneCountInString(body); n > MaxCommentChars {
		return "", fmt.Errorf("could not update the PR comment: %w (%d characters)", ErrCommentTooLong, n)
	}
	existing, err := store.Find(ctx, pr, marker)
	if err != nil {
		return "", fmt.Errorf("could not look for the PR comment: %w", err)
	}
	if existing != nil {
		return updateComment(ctx, store, existing, body)
	}
	if mode != CommentAlways && outcome == gate.Pass && (mode != CommentAuto || !hasWarnings) {
		return "", nil
	}
	c, err := store.Create(ctx, pr, body)
	if ae := (*APIError)(nil); errors.As(err, &ae) && (ae.StatusCode == 0 || ae.StatusCode >= 500) {
		// A create that timed out or got a 5xx may still have landed: look again rather
		// than post a duplicate.
		if found, ferr := store.Find(ctx, pr, marker); ferr == nil {
			if found != nil {
				return updateComment(ctx, store, found, body)
			}
			c, err = store.Create(ctx, pr, body)
		}
	}
	if err != nil {
		return "", fmt.Errorf("could not create the PR comment: %w", err)
	}
	return c.URL, nil
}

func updateComment(ctx context.Context, store CommentStore, existing *Comment, body string) (string, error) {
	if existing.Body == body {
		return existing.URL, nil
	}
	c, err := store.Update(ctx, existing.ID, body)
	if err != nil {
		return "", fmt.Errorf("could not update the PR comment: %w", err)
	}
	return cmp.Or(c.URL, existing.URL), nil
}

// APIError is a failed GitHub API call, with a hint on how to fix it. It never holds
// the token.
type APIError struct {
	Op          string // e.g. "list comments on PR #7"
	StatusCode  int    // 0 when no HTTP response arrived
	RateLimited bool
	Message     string // GitHub's message
	Err         error
}

func (e *APIError) Error() string {
	var b strings.Builder
	b.WriteString(e.Op + ": ")
	switch {
	case e.StatusCode != 0 && e.Message != "":
		fmt.Fprintf(&b, "%d %s", e.StatusCode, e.Message)
	case e.StatusCode != 0:
		fmt.Fprintf(&b, "HTTP %d", e.StatusCode)
	case e.Err != nil:
		b.WriteString(e.Err.Error())
	default:
		b.WriteString(e.Message)
	}
	if h := e.Hint(); h != "" {
		b.WriteString(" (" + h + ")")
	}
	return b.String()
}

func (e *APIError) Unwrap() error { return e.Err }

// Hint says what the user can do about the error.
func (e *APIError) Hint() string {
	switch {
	case e.RateLimited:
		return "GitHub's API rate limit was reached; the job summary has the full report"
	case e.StatusCode == 401:
		return "the github-token input is invalid or expired"
	case e.StatusCode == 403:
		return "the token may not comment: give the job `permissions: pull-requests: write`; on pull requests from forks the token is read-only, see the workflow_run recipe in docs/action.md"
	case e.StatusCode == 404:
		return "the pull request or repository was not found, or the token cannot see it"
	case e.StatusCode == 422:
		return "GitHub refused the comment body, which may be too long (limit 65536 characters)"
	case e.StatusCode >= 500:
		return "GitHub had a server error; the next run will update the comment"
	}
	return ""
}

// CommentMarker returns the marker of this run's sticky comment for key (comment-key).
func (e Env) CommentMarker(key string) string { return Marker(e.Workflow, e.Job, key) }
