package main

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentv/action/action"
	"github.com/agentv/action/config"
	"github.com/agentv/action/history"
	"github.com/agentv/action/internal/safefile"
	"github.com/agentv/action/internal/textfmt"
)

// historyTimeout bounds the history's downloads (up to 30 artifacts, four at a time).
const historyTimeout = 3 * time.Minute

// actionHistory reads the history input's earlier runs: the base branch's latest successful
// push runs' results artifacts, oldest first. Nothing here fails the run: without a pull
// request, a token or any readable run there is a notice and no history (nil), and each run
// that cannot be read is a warning naming it.
func actionHistory(ctx context.Context, in action.Inputs, env action.Env, ev action.Event, getenv func(string) string, cmds *action.Commands) *history.History {
	if in.History <= 0 {
		return nil
	}
	notice := func(msg string) { cmds.Message(action.LevelNotice, "agentv history", msg) }
	branch := cmp.Or(ev.BaseRef, strings.TrimSpace(getenv("GITHUB_BASE_REF")))
	if !ev.IsPR() || branch == "" {
		notice("history shows pull requests the trend of their base branch's runs; this run has no history")
		return nil
	}
	runID, _ := strconv.ParseInt(env.RunID, 10, 64)
	store, err := action.NewGitHubStore(in.GitHubToken, env.APIURL, env.Repository)
	if err != nil {
		notice("no history: " + err.Error())
		return nil
	}
	dir, err := os.MkdirTemp(env.RunnerTemp, "agentv-history-")
	if err != nil {
		notice("no history: " + err.Error())
		return nil
	}
	defer os.RemoveAll(dir)
	// The history is a view of the past, not worth holding the job for: the downloads that
	// did not finish in time are warnings like any other run that could not be read.
	fetchCtx, cancel := context.WithTimeout(ctx, historyTimeout)
	defer cancel()
	runs, warnings, err := store.FetchHistory(fetchCtx, action.BaselineQuery{RunID: runID, Branch: branch, Artifact: in.BaselineArtifact}, in.History, dir)
	if err != nil {
		notice("no history: " + err.Error())
		return nil
	}
	for _, w := range warnings {
		cmds.Message(action.LevelWarning, "agentv history", w)
	}
	h := history.New()
	for _, r := range runs {
		run := history.Run{Label: fmt.Sprintf("#%d", r.Number), URL: r.URL, Started: r.Created}
		if err := readHistoryRun(h, run, r.Path, in.Gate.CaseThreshold); err != nil {
			cmds.Message(action.LevelWarning, "agentv history", fmt.Sprintf("history: %s (%s) is left out: its results: %v", r.Describe(), r.URL, err))
		}
	}
	if h.Len() == 0 {
		notice("no history: no earlier run's results could be read")
		return nil
	}
	notice(fmt.Sprintf("history: %d earlier %s of %s", h.Len(), textfmt.Plural(h.Len(), "run", "runs"), branch))
	return h
}

func readHistoryRun(h *history.History, run history.Run, path string, threshold float64) error {
	f, err := safefile.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return h.ReadRun(run, f, threshold)
}

// localHistory reads `agentv report --history` globs: earlier runs' results files, ordered
// by their runs' start (history.Files), the newest config.MaxHistory kept. A file the report
// is rendering (the glob often matches it too) is not its own history. nil: no glob given.
func localHistory(cwd string, patterns, current []string, threshold float64) (*history.History, error) {
	if len(patterns) == 0 {
		return nil, nil
	}
	paths, err := expandResults(cwd, patterns)
	if err != nil {
		return nil, fmt.Errorf("--history: %w", err)
	}
	paths = slices.DeleteFunc(paths, func(p string) bool { return isAnyOf(p, current) })
	files, err := history.Files(paths, config.MaxHistory)
	if err != nil {
		return nil, err
	}
	return history.ReadFiles(files, threshold)
}
