package action

import (
	"archive/zip"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/google/go-github/v62/github"
)

// BaselineQuery finds a pull request's baseline: the results of the newest successful push run
// of the same workflow on the pull request's base branch.
type BaselineQuery struct {
	RunID    int64  // the current run (GITHUB_RUN_ID), to learn its workflow
	Branch   string // the pull request's base branch
	Artifact string // the name the results were uploaded under (actions/upload-artifact)
	// MaxBytes bounds the artifact's zip and its results.jsonl (0: DefaultBaselineMaxBytes).
	MaxBytes int64
}

// DefaultBaselineMaxBytes bounds a downloaded baseline: a results file of 100,000 cases with
// their answers is well under it.
const DefaultBaselineMaxBytes = 512 << 20

// BaselineRun is the workflow run a baseline came from.
type BaselineRun struct {
	ID      int64
	Number  int
	Branch  string
	HeadSHA string
	URL     string // its page
	Created time.Time
}

// Describe names the run for reports: "run 41 on main (abc1234)".
func (r *BaselineRun) Describe() string {
	s := fmt.Sprintf("run %d on %s", r.Number, r.Branch)
	if len(r.HeadSHA) >= 7 {
		s += " (" + r.HeadSHA[:7] + ")"
	}
	return s
}

// ErrNoBaselineRun means there is nothing to compare with (no run, no artifact, expired): a
// notice for the user, never a failure of the run.
var ErrNoBaselineRun = errors.New("no baseline")

// runsLooked is how many runs the lookup reads: the newest successful one is on the first page.
const runsLooked = 20

// FetchBaseline finds the baseline run, downloads its results artifact and writes the
// results.jsonl inside to dst, in four API calls at most and one download (actions: read).
// https://docs.github.com/rest/actions/workflow-runs#list-workflow-runs-for-a-workflow
// https://docs.github.com/rest/actions/artifacts#list-workflow-run-artifacts
// https://docs.github.com/rest/actions/artifacts#download-an-artifact
func (s *GitHubStore) FetchBaseline(ctx context.Context, q BaselineQuery, dst string) (*BaselineRun, error) {
	runs, err := s.baseRuns(ctx, q, 1)
	if err != nil {
		return nil, err
	}
	return runs[0], s.fetchResults(ctx, runs[0], q, dst)
}

// baseRuns returns the newest n (at most 100) successful push runs of the current run's
// workflow on the base branch, newest first: at least one, else an ErrNoBaselineRun error.
func (s *GitHubStore) baseRuns(ctx context.Context, q BaselineQuery, n int) ([]*BaselineRun, error) {
	if q.Branch == "" {
		return nil, fmt.Errorf("%w: the event names no base branch (baseline: auto compares pull requests)", ErrNoBaselineRun)
	}
	if q.RunID <= 0 {
		return nil, fmt.Errorf("%w: GITHUB_RUN_ID is not set, so the workflow is unknown", ErrNoBaselineRun)
	}
	cur, _, err := s.client.Actions.GetWorkflowRunByID(ctx, s.owner, s.repo, q.RunID)
	if err != nil {
		return nil, apiError(fmt.Sprintf("get workflow run %d", q.RunID), err)
	}
	workflow := cur.GetWorkflowID()
	runs, _, err := s.client.Actions.ListWorkflowRunsByID(ctx, s.owner, s.repo, workflow, &github.ListWorkflowRunsOptions{
		Branch: q.Branch, Event: "push", Status: "success", ListOptions: github.ListOptions{PerPage: min(100, max(runsLooked, n+runsLooked/2))},
	})
	if err != nil {
		return nil, apiError(fmt.Sprintf("list the runs of workflow %d", workflow), err)
	}
	// The filters are checked again here: the newest runs that match all of them win.
	var picked []*github.WorkflowRun
	for _, r := range runs.WorkflowRuns {
		if r.GetID() == q.RunID || r.GetWorkflowID() != workflow || r.GetHeadBranch() != q.Branch ||
			r.GetEvent() != "push" || r.GetConclusion() != "success" {
			continue
		}
		picked = append(picked, r)
	}
	if len(picked) == 0 {
		return nil, fmt.Errorf("%w: no successful push run of this workflow on %s", ErrNoBaselineRun, q.Branch)
	}
	slices.SortStableFunc(picked, func(a, b *github.WorkflowRun) int {
		return cmp.Or(b.GetCreatedAt().Compare(a.GetCreatedAt().Time), cmp.Compare(b.GetID(), a.GetID()))
	})
	out := make([]*BaselineRun, 0, min(n, len(picked)))
	for _, r := range picked[:min(n, len(picked))] {
		out = append(out, &BaselineRun{ID: r.GetID(), Number: r.GetRunNumber(), Branch: r.GetHeadBranch(),
			HeadSHA: r.GetHeadSHA(), URL: r.GetHTMLURL(), Created: r.GetCreatedAt().Time})
	}
	return out, nil
}

// fetchResults downloads run's results artifact (q.Artifact) and writes its results.jsonl
// to dst, in two API calls and one download, within q.MaxBytes.
func (s *GitHubStore) fetchResults(ctx context.Context, run *BaselineRun, q BaselineQuery, dst string) error {
	maxBytes := cmp.Or(max(q.MaxBytes, 0), DefaultBaselineMaxBytes)
	arts, _, err := s.client.Actions.ListWorkflowRunArtifacts(ctx, s.owner, s.repo, run.ID, &github.ListOptions{PerPage: 100})
	if err != nil {
		return apiError(fmt.Sprintf("list the artifacts of run %d", run.ID), err)
	}
	var art *github.Artifact
	if i := slices.IndexFunc(arts.Artifacts, func(a *github.Artifact) bool { return a.GetName() == q.Artifact }); i >= 0 {
		art = arts.Artifacts[i]
	}
	switch {
	case art == nil:
		return fmt.Errorf("%w: %s has no artifact named %q (upload results-dir with actions/upload-artifact under that name)", ErrNoBaselineRun, run.Describe(), q.Artifact)
	case art.GetExpired():
		return fmt.Errorf("%w: the %q artifact of %s has expired", ErrNoBaselineRun, q.Artifact, run.Describe())
	case art.GetSizeInBytes() > maxBytes:
		return fmt.Errorf("%w: the %q artifact of %s is %d bytes, more than the %d a baseline may be", ErrNoBaselineRun, q.Artifact, run.Describe(), art.GetSizeInBytes(), maxBytes)
	}
	loc, resp, err := s.client.Actions.DownloadArtifact(ctx, s.owner, s.repo, art.GetID(), 1)
	if resp != nil && resp.StatusCode == http.StatusGone {
		return fmt.Errorf("%w: the %q artifact of %s has expired", ErrNoBaselineRun, q.Artifact, run.Describe())
	}
	if err != nil {
		return apiError(fmt.Sprintf("download artifact %d", art.GetID()), err)
	}
	if err := s.downloadResults(ctx, loc.String(), dst, maxBytes); err != nil {
		return fmt.Errorf("the %q artifact of %s: %w", q.Artifact, run.Describe(), err)
	}
	return nil
}

// downloadResults fetches the artifact zip from the signed URL the API redirected to (which
// carries its own authorisation: the token is not sent there) and writes its results.jsonl.
func (s *GitHubStore) downloadResults(ctx context.Context, loc, dst string, maxBytes int64) error {
	if !strings.HasPrefix(loc, "https://") && !strings.HasPrefix(loc, "http://") {
		return fmt.Errorf("download URL %q is not http(s)", loc)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, loc, nil)
	if err != nil {
		return fmt.Errorf("could not download: %w", err)
	}
	resp, err := s.download.Do(req)
	if err != nil {
		return fmt.Errorf("could not download: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		if resp.StatusCode == http.StatusGone || resp.StatusCode == http.StatusNotFound {
			return fmt.Errorf("%w: the download answered %s (expired?)", ErrNoBaselineRun, resp.Status)
		}
		return fmt.Errorf("could not download: %s", resp.Status)
	}
	tmp, err := os.CreateTemp(filepath.Dir(dst), ".baseline-*.zip")
	if err != nil {
		return fmt.Errorf("could not store the download: %w", err)
	}
	defer func() { tmp.Close(); os.Remove(tmp.Name()) }()
	n, err := io.Copy(tmp, io.LimitReader(resp.Body, maxBytes+1))
	if err != nil {
		return fmt.Errorf("could not download: %w", err)
	}
	if n > maxBytes {
		return fmt.Errorf("the download is more than %d bytes", maxBytes)
	}
	zr, err := zip.NewReader(tmp, n)
	if err != nil {
		return fmt.Errorf("the download is not a zip archive: %w", err)
	}
	f, others := resultsEntry(zr)
	if f == nil {
		return fmt.Errorf("%w: the archive holds no results.jsonl (nor an AgentV 4.x run's index.jsonl)", ErrNoBaselineRun)
	}
	if len(others) > 0 {
		// Shards' results side by side: any one of them is part of the run, not its baseline.
		names := append(others, f.Name)
		slices.Sort(names)
		if len(names) > 3 {
			names = append(names[:3], "…")
		}
		return fmt.Errorf("%w: the archive holds no top-level %s but %d at the same depth (%s): "+
			"the results of shards; upload the results-dir of the job that merges them (mode: report) instead",
			ErrNoBaselineRun, path.Base(f.Name), len(others)+1, strings.Join(names, ", "))
	}
	if f.UncompressedSize64 > uint64(maxBytes) {
		return fmt.Errorf("its %s is %d bytes, more than %d", path.Base(f.Name), f.UncompressedSize64, maxBytes)
	}
	rc, err := f.Open()
	if err != nil {
		return fmt.Errorf("could not read %s in the archive: %w", f.Name, err)
	}
	defer rc.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("could not write the baseline: %w", err)
	}
	// The size in the zip's directory is the writer's word: the copy is bounded regardless.
	w, err := io.Copy(out, io.LimitReader(rc, maxBytes+1))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("could not read %s in the archive: %w", f.Name, err)
	}
	if w > maxBytes {
		return fmt.Errorf("its results.jsonl is more than %d bytes", maxBytes)
	}
	return nil
}

// resultsEntry returns the archive's results.jsonl: at its top level, else the shallowest one;
// others names further ones as shallow when there is no top-level one (unmerged shards). Only
// a regular file counts (a symbolic link entry holds a path). Without any results.jsonl, an
// AgentV 4.x run directory's index.jsonl is found the same way.
func resultsEntry(zr *zip.Reader) (best *zip.File, others []string) {
	if best, others = entryNamed(zr, "results.jsonl"); best == nil {
		best, others = entryNamed(zr, "index.jsonl")
	}
	return best, others
}

func entryNamed(zr *zip.Reader, name string) (best *zip.File, others []string) {
	for _, f := range zr.File {
		if !f.Mode().IsRegular() || path.Base(f.Name) != name {
			continue
		}
		switch d := strings.Count(f.Name, "/"); {
		case best == nil || d < strings.Count(best.Name, "/"):
			best, others = f, nil
		case d == strings.Count(best.Name, "/"):
			others = append(others, f.Name)
		}
	}
	if best != nil && !strings.Contains(best.Name, "/") {
		others = nil // an archive's own results.jsonl is the run's, whatever else it holds
	}
	return best, others
}
