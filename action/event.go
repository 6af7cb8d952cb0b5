package action

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/agentv/action/internal/safefile"
)

// DependabotLogin is the actor of Dependabot's runs; GitHub treats them like fork PRs:
// read-only token, no Actions secrets.
const DependabotLogin = "dependabot[bot]"

// Event is what the Action needs from the triggering event.
type Event struct {
	Name     string // GITHUB_EVENT_NAME, e.g. pull_request, push
	PRNumber int    // 0 when the event is not about a pull request
	// HeadSHA is the PR's head commit (pull_request.head.sha; workflow_run.head_sha), the
	// commit links to source should use: GITHUB_SHA on pull_request is the test merge.
	HeadSHA  string
	BaseRef  string
	BaseRepo string // owner/name the PR targets
	HeadRepo string // owner/name the PR comes from; "" when the fork was deleted
	// Fork is true when the head repository differs from the base repository, or the
	// actor is Dependabot.
	Fork  bool
	Actor string // login that triggered the run
}

// IsPR reports whether the event concerns a pull request.
func (e Event) IsPR() bool { return e.PRNumber > 0 }

// SecretsWithheld reports whether GitHub withholds secrets and write scopes from this run: a
// pull_request-family event from a fork (pull_request_target runs in the base repository's
// context), or any run triggered by Dependabot.
func (e Event) SecretsWithheld() bool {
	if e.Actor == DependabotLogin {
		return true
	}
	return e.Fork && strings.HasPrefix(e.Name, "pull_request") && e.Name != "pull_request_target"
}

// LoadEvent reads GITHUB_EVENT_NAME and the payload at GITHUB_EVENT_PATH. Without a payload (a
// local run) it returns the name alone; with an unreadable or malformed one, the name alone and
// an error the caller reports as a warning.
func LoadEvent(getenv func(string) string) (Event, error) {
	name := strings.TrimSpace(getenv("GITHUB_EVENT_NAME"))
	actor := cmp.Or(strings.TrimSpace(getenv("GITHUB_TRIGGERING_ACTOR")), strings.TrimSpace(getenv("GITHUB_ACTOR")))
	base := Event{Name: name, Actor: actor}
	path := strings.TrimSpace(getenv("GITHUB_EVENT_PATH"))
	if path == "" {
		return base, nil
	}
	data, err := safefile.ReadFile(path, safefile.LimitContent)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return base, fmt.Errorf("could not read event payload: GITHUB_EVENT_PATH %q does not exist", path)
		}
		return base, fmt.Errorf("could not read event payload: %w", err)
	}
	ev, err := ParseEvent(name, data, actor)
	if err != nil {
		return base, fmt.Errorf("could not parse event payload %s: %w", path, err)
	}
	return ev, nil
}

// payload holds the fields of the webhook payloads ParseEvent reads.
type payload struct {
	Number      int       `json:"number"`
	PullRequest *prObject `json:"pull_request"`
	Repository  *repoRef  `json:"repository"`
	Sender      *struct {
		Login string `json:"login"`
	} `json:"sender"`
	WorkflowRun *struct {
		HeadSHA        string     `json:"head_sha"`
		HeadRepository *repoRef   `json:"head_repository"`
		Repository     *repoRef   `json:"repository"`
		PullRequests   []prObject `json:"pull_requests"`
	} `json:"workflow_run"`
}

type prObject struct {
	Number int        `json:"number"`
	Head   prEndpoint `json:"head"`
	Base   prEndpoint `json:"base"`
}

type prEndpoint struct {
	SHA  string   `json:"sha"`
	Ref  string   `json:"ref"`
	Repo *repoRef `json:"repo"` // null when the fork was deleted
}

type repoRef struct {
	FullName string `json:"full_name"`
}

func (r *repoRef) name() string {
	if r == nil {
		return ""
	}
	return r.FullName
}

// ParseEvent extracts the event context from a webhook payload; actor, from the environment,
// defaults to the payload's sender. Only the pull_request family and workflow_run have a PR.
func ParseEvent(name string, data []byte, actor string) (Event, error) {
	ev := Event{Name: name, Actor: actor}
	var p payload
	if err := json.Unmarshal(data, &p); err != nil {
		return ev, err
	}
	if ev.Actor == "" && p.Sender != nil {
		ev.Actor = p.Sender.Login
	}
	switch {
	case strings.HasPrefix(name, "pull_request") && p.PullRequest != nil:
		pr := p.PullRequest
		ev.PRNumber = cmp.Or(pr.Number, p.Number)
		ev.HeadSHA, ev.HeadRepo = pr.Head.SHA, pr.Head.Repo.name()
		ev.BaseRef, ev.BaseRepo = pr.Base.Ref, cmp.Or(pr.Base.Repo.name(), p.Repository.name())
		ev.Fork = !strings.EqualFold(ev.HeadRepo, ev.BaseRepo)
	case name == "workflow_run" && p.WorkflowRun != nil:
		// The privileged half of the fork recipe. GitHub leaves pull_requests empty for
		// fork PRs, so the PR number then comes from a validated input instead.
		wr := p.WorkflowRun
		ev.HeadSHA, ev.HeadRepo = wr.HeadSHA, wr.HeadRepository.name()
		ev.BaseRepo = cmp.Or(wr.Repository.name(), p.Repository.name())
		ev.Fork = ev.HeadRepo != "" && !strings.EqualFold(ev.HeadRepo, ev.BaseRepo)
		if len(wr.PullRequests) == 1 && wr.PullRequests[0].Head.SHA == wr.HeadSHA {
			ev.PRNumber = wr.PullRequests[0].Number
			ev.BaseRef = wr.PullRequests[0].Base.Ref
		}
	}
	ev.PRNumber = max(ev.PRNumber, 0)
	if ev.Actor == DependabotLogin {
		ev.Fork = true
	}
	return ev, nil
}
