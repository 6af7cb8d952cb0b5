package actiontest

import (
	"cmp"
	"fmt"
	"net/http"
	"slices"
	"strconv"
)

// WorkflowRun is a workflow run as the API returns it.
type WorkflowRun struct {
	ID         int64  `json:"id"`
	RunNumber  int    `json:"run_number"`
	WorkflowID int64  `json:"workflow_id"`
	HeadBranch string `json:"head_branch"`
	HeadSHA    string `json:"head_sha"`
	Event      string `json:"event"`
	Status     string `json:"status"`               // completed, in_progress, ...
	Conclusion string `json:"conclusion"`           // success, failure, ...
	CreatedAt  string `json:"created_at,omitempty"` // RFC 3339
	HTMLURL    string `json:"html_url"`
}

// Artifact is a workflow run's artifact as the API returns it; Zip is what its download
// serves.
type Artifact struct {
	ID          int64  `json:"id"`
	Name        string `json:"name"`
	SizeInBytes int64  `json:"size_in_bytes"`
	Expired     bool   `json:"expired"`
	Zip         []byte `json:"-"`
	runID       int64
}

// actionsState is the fake's workflow runs and artifacts.
type actionsState struct {
	runs       []WorkflowRun
	artifacts  []*Artifact
	nextArt    int64
	unfiltered bool // listRuns ignores the query's filters
}

// IgnoreRunFilters makes the list of a workflow's runs ignore branch, event and status, so
// a test can check that a client does not rely on the server's filtering.
func (g *GitHub) IgnoreRunFilters() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.actions.unfiltered = true
}

// AddRun adds a workflow run.
func (g *GitHub) AddRun(r WorkflowRun) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.actions.runs = append(g.actions.runs, r)
}

// AddArtifact adds an artifact named name to run runID, whose download serves zip (an
// expired one answers 410 Gone, as GitHub does). It returns the artifact's id.
func (g *GitHub) AddArtifact(runID int64, name string, zip []byte, expired bool) int64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.actions.nextArt++
	id := 5000 + g.actions.nextArt
	g.actions.artifacts = append(g.actions.artifacts, &Artifact{ID: id, Name: name, SizeInBytes: int64(len(zip)), Expired: expired, Zip: zip, runID: runID})
	return id
}

// actionsRoutes serves workflow runs, their artifacts and artifact downloads.
func (g *GitHub) actionsRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET "+APIPrefix+"/repos/{owner}/{repo}/actions/runs/{id}", g.getRun)
	mux.HandleFunc("GET "+APIPrefix+"/repos/{owner}/{repo}/actions/workflows/{wid}/runs", g.listRuns)
	mux.HandleFunc("GET "+APIPrefix+"/repos/{owner}/{repo}/actions/runs/{id}/artifacts", g.listArtifacts)
	mux.HandleFunc("GET "+APIPrefix+"/repos/{owner}/{repo}/actions/artifacts/{id}/zip", g.downloadArtifact)
	mux.HandleFunc("GET /blobs/{id}", g.blob)
}

func (g *GitHub) getRun(w http.ResponseWriter, r *http.Request) {
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, run := range g.actions.runs {
		if run.ID == id {
			writeJSON(w, http.StatusOK, run)
			return
		}
	}
	writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
}

// listRuns filters as GitHub does: branch, event, and status (a conclusion such as success
// or a status such as completed), newest first.
func (g *GitHub) listRuns(w http.ResponseWriter, r *http.Request) {
	wid, _ := strconv.ParseInt(r.PathValue("wid"), 10, 64)
	q := r.URL.Query()
	g.mu.Lock()
	var out []WorkflowRun
	if g.actions.unfiltered {
		q = nil
	}
	for _, run := range g.actions.runs {
		switch {
		case run.WorkflowID != wid && !g.actions.unfiltered,
			q.Get("branch") != "" && run.HeadBranch != q.Get("branch"),
			q.Get("event") != "" && run.Event != q.Get("event"),
			q.Get("status") != "" && run.Status != q.Get("status") && run.Conclusion != q.Get("status"):
			continue
		}
		out = append(out, run)
	}
	g.mu.Unlock()
	slices.SortFunc(out, func(a, b WorkflowRun) int { return cmp.Compare(b.CreatedAt, a.CreatedAt) })
	perPage := 30
	if v, err := strconv.Atoi(q.Get("per_page")); err == nil && v > 0 {
		perPage = min(v, 100)
	}
	total := len(out)
	out = out[:min(perPage, len(out))]
	writeJSON(w, http.StatusOK, map[string]any{"total_count": total, "workflow_runs": out})
}

func (g *GitHub) listArtifacts(w http.ResponseWriter, r *http.Request) {
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	g.mu.Lock()
	out := []*Artifact{}
	for _, a := range g.actions.artifacts {
		if a.runID == id {
			out = append(out, a)
		}
	}
	g.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"total_count": len(out), "artifacts": out})
}

// downloadArtifact redirects to the archive, as GitHub redirects to a signed storage URL.
func (g *GitHub) downloadArtifact(w http.ResponseWriter, r *http.Request) {
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, a := range g.actions.artifacts {
		if a.ID != id {
			continue
		}
		if a.Expired {
			writeJSON(w, http.StatusGone, map[string]string{"message": "Artifact has expired"})
			return
		}
		w.Header().Set("Location", fmt.Sprintf("%s/blobs/%d?sig=signed", g.base, id))
		w.WriteHeader(http.StatusFound)
		return
	}
	writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
}

// blob serves an archive. A request carrying a token is refused: the signed URL needs none,
// and a client must not send the token to storage.
func (g *GitHub) blob(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Authorization") != "" {
		http.Error(w, "a storage URL takes no token", http.StatusBadRequest)
		return
	}
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, a := range g.actions.artifacts {
		if a.ID == id {
			w.Header().Set("Content-Type", "application/zip")
			_, _ = w.Write(a.Zip)
			return
		}
	}
	http.NotFound(w, r)
}
