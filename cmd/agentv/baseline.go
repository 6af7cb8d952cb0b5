package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/agentv/action/action"

	"github.com/agentv/action/compare"
	"github.com/agentv/action/gate"
)

// baselineFlags binds the flags of a comparison with a baseline run.
func baselineFlags(fs *flag.FlagSet, path *string, g *gate.Options) {
	fs.StringVar(path, "baseline", "", "results file of an earlier run to compare with: per-case and mean score changes, regressions (missing: a notice, no comparison)")
	fs.Var(optCountFlag(&g.MaxRegressions), "max-regressions", "fail when more cases regressed against --baseline than this (default: report only)")
	fs.Var(scoreFlag(&g.RegressionMargin, nil), "regression-margin", "how far a case's score must fall against --baseline to count as a regression")
	fs.Var(optScoreFlag(&g.MaxMeanDrop), "max-mean-drop", "fail when the mean score fell by more than this against --baseline, the whole 95% interval below zero (default: report only)")
}

// loadBaseline reads the baseline at path (relative to cwd) and returns a comparer for it.
// No path: nil, nothing to say. A file that does not exist is a notice, not a problem
// (the step that should have fetched it may have found none): the run is not compared. A
// file that cannot be read as results is a problem of the run. source, when set, names
// the baseline in reports instead of its path.
func loadBaseline(path, cwd, source string, margin float64) (c *compare.Comparer, notice string, err error) {
	if path == "" {
		return nil, "", nil
	}
	abs := absIn(cwd, path)
	base, err := compare.Load(abs)
	if errors.Is(err, compare.ErrNoBaseline) {
		return nil, fmt.Sprintf("no baseline: %s does not exist; the run is not compared with an earlier one", relTo(cwd, abs)), nil
	}
	if err != nil {
		return nil, "", err
	}
	base.Source = cmp.Or(source, relTo(cwd, abs))
	return compare.NewComparer(base, margin), base.Note(), nil
}

// actionBaseline resolves the baseline input to a results file to compare with, and the
// name reports give it. baseline: auto downloads the base branch's results artifact into
// tmp; on any failure to find it the run goes on uncompared, with a notice.
func actionBaseline(ctx context.Context, in action.Inputs, env action.Env, ev action.Event, getenv func(string) string, workspace, tmp string, cmds *action.Commands) (path, source string) {
	switch in.BaselinePath {
	case "":
		return "", ""
	case action.BaselineAuto:
	default:
		return absIn(workspace, in.BaselinePath), ""
	}
	notice := func(msg string) { cmds.Message(action.LevelNotice, "agentv baseline", msg) }
	branch := cmp.Or(ev.BaseRef, strings.TrimSpace(getenv("GITHUB_BASE_REF"))) // the latter set on pull_request events
	if !ev.IsPR() || branch == "" {
		notice("baseline: auto compares pull requests with their base branch; this run is not compared (upload its results-dir as the " +
			in.BaselineArtifact + " artifact on pushes to the default branch, and pull requests compare with it)")
		return "", ""
	}
	runID, _ := strconv.ParseInt(env.RunID, 10, 64)
	store, err := action.NewGitHubStore(in.GitHubToken, env.APIURL, env.Repository)
	if err != nil {
		notice("no baseline: " + err.Error())
		return "", ""
	}
	dst := filepath.Join(tmp, "baseline-results.jsonl")
	run, err := store.FetchBaseline(ctx, action.BaselineQuery{RunID: runID, Branch: branch, Artifact: in.BaselineArtifact}, dst)
	if err != nil {
		notice("no baseline, the run is not compared: " + err.Error())
		return "", ""
	}
	cmds.Message(action.LevelNotice, "agentv baseline", "comparing with "+run.Describe()+" ("+run.URL+")")
	return dst, run.Describe()
}
