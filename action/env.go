package action

import (
	"cmp"
	"strings"
)

// Env is the part of the runner's environment the Action uses, read once at start-up.
// See https://docs.github.com/actions/reference/variables-reference.
type Env struct {
	Workspace   string // GITHUB_WORKSPACE: the checkout, e.g. /github/workspace in a container action
	APIURL      string // GITHUB_API_URL, default https://api.github.com (GHES: https://host/api/v3)
	ServerURL   string // GITHUB_SERVER_URL, default https://github.com
	Repository  string // GITHUB_REPOSITORY, owner/name
	RunID       string // GITHUB_RUN_ID
	RunAttempt  string // GITHUB_RUN_ATTEMPT
	Workflow    string // GITHUB_WORKFLOW: the workflow's name (its path when it has none)
	Job         string // GITHUB_JOB: the job's id (shared by all legs of a matrix)
	SHA         string // GITHUB_SHA: on pull_request the test-merge commit, not the head
	OutputPath  string // GITHUB_OUTPUT: file command for step outputs
	SummaryPath string // GITHUB_STEP_SUMMARY: file command for the step summary
	RunnerTemp  string // RUNNER_TEMP
}

// Defaults of github.com; GHES runners always set both variables.
const (
	defaultAPIURL    = "https://api.github.com"
	defaultServerURL = "https://github.com"
)

// LoadEnv reads the runner's variables. Missing ones stay empty, except the API and
// server URLs, which default to github.com.
func LoadEnv(getenv func(string) string) Env {
	get := func(k string) string { return strings.TrimSpace(getenv(k)) }
	return Env{
		Workspace:   get("GITHUB_WORKSPACE"),
		APIURL:      cmp.Or(strings.TrimRight(get("GITHUB_API_URL"), "/"), defaultAPIURL),
		ServerURL:   cmp.Or(strings.TrimRight(get("GITHUB_SERVER_URL"), "/"), defaultServerURL),
		Repository:  get("GITHUB_REPOSITORY"),
		RunID:       get("GITHUB_RUN_ID"),
		RunAttempt:  get("GITHUB_RUN_ATTEMPT"),
		Workflow:    get("GITHUB_WORKFLOW"),
		Job:         get("GITHUB_JOB"),
		SHA:         get("GITHUB_SHA"),
		OutputPath:  get("GITHUB_OUTPUT"),
		SummaryPath: get("GITHUB_STEP_SUMMARY"),
		RunnerTemp:  get("RUNNER_TEMP"),
	}
}

// RunURL links to the workflow run's page, or "" when the run is unknown.
func (e Env) RunURL() string {
	if e.Repository == "" || e.RunID == "" {
		return ""
	}
	u := e.ServerURL + "/" + e.Repository + "/actions/runs/" + e.RunID
	if e.RunAttempt != "" && e.RunAttempt != "1" {
		u += "/attempts/" + e.RunAttempt
	}
	return u
}

// ArtifactsURL links to the artifacts of the workflow run (its page's artifacts list), or is
// "" when the run is unknown.
func (e Env) ArtifactsURL() string {
	if e.Repository == "" || e.RunID == "" {
		return ""
	}
	return e.ServerURL + "/" + e.Repository + "/actions/runs/" + e.RunID + "#artifacts"
}
