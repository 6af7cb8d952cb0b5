package action

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sync"

	"github.com/agentv/action/config"
)

// MaxHistory is the most runs the history input reads: each is one download.
const MaxHistory = config.MaxHistory

// historyWorkers bounds the downloads in flight: artifacts are fetched concurrently, but a
// history of 30 must not open 30 connections against the API's secondary rate limit.
const historyWorkers = 4

// HistoryRun is a base run whose results were downloaded, and the file that holds them.
type HistoryRun struct {
	*BaselineRun
	Path string
}

// FetchHistory downloads the results artifacts of the newest n (at most MaxHistory)
// successful push runs of the workflow on q.Branch into dir, one results file each, the way
// FetchBaseline downloads one and within the same limits. It returns the runs it could read,
// oldest first, and a warning naming each run it could not (no artifact, expired, too large,
// an API error): a history with gaps is still a history. err is set only when no run could
// be listed (ErrNoBaselineRun for none, else an API error).
func (s *GitHubStore) FetchHistory(ctx context.Context, q BaselineQuery, n int, dir string) (runs []HistoryRun, warnings []string, err error) {
	n = min(max(n, 1), MaxHistory)
	base, err := s.baseRuns(ctx, q, n)
	if err != nil {
		return nil, nil, err
	}
	got := make([]error, len(base))
	var wg sync.WaitGroup
	sem := make(chan struct{}, historyWorkers)
	for i, r := range base {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				got[i] = ctx.Err()
				return
			}
			defer func() { <-sem }()
			got[i] = s.fetchResults(ctx, r, q, historyFile(dir, r))
		}()
	}
	wg.Wait()
	for i, r := range base {
		if got[i] != nil {
			warnings = append(warnings, fmt.Sprintf("history: %s (%s) is left out: %v", r.Describe(), r.URL, got[i]))
			continue
		}
		runs = append(runs, HistoryRun{BaselineRun: r, Path: historyFile(dir, r)})
	}
	slices.Reverse(runs) // baseRuns lists the newest first
	slices.Reverse(warnings)
	return runs, warnings, nil
}

func historyFile(dir string, r *BaselineRun) string {
	return filepath.Join(dir, fmt.Sprintf("run-%d.jsonl", r.ID))
}
