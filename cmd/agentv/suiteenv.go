package main

import (
	"strings"
	"sync"

	"github.com/agentv/action/internal/jsruntime"
	"github.com/agentv/action/internal/redact"
	"github.com/agentv/action/suite"
	"github.com/agentv/action/targets"
)

// loadOptions are the loader options of a run. `${{ VAR }}` in AgentV 4.x eval files reads
// the environment targets files read (the process environment, then .env files unless
// noDotenv), and every value so resolved is masked like a target's secret.
func loadOptions(cwd, workspace string, environ []string, noDotenv bool, red *redact.Redactor) suite.LoadOptions {
	return suite.LoadOptions{Cwd: cwd, Workspace: workspace,
		Env: func(evalDir, repoRoot string) func(string) (string, bool) {
			if noDotenv {
				evalDir, repoRoot = "", ""
			}
			env, _ := targets.LoadEnv(environ, evalDir, repoRoot)
			return env
		},
		Secret:      func(v string) { red.Add(v) },
		CheckScript: checkJudgeOnce(),
	}
}

// checkJudgeOnce checks that a code judge can run here (jsruntime's CheckJudge), once per
// command and directory: a JSONL suite repeats one judge on every line.
func checkJudgeOnce() func(argv []string, cwd string) error {
	var mu sync.Mutex
	seen := map[string]error{}
	return func(argv []string, cwd string) error {
		key := cwd + "\x00" + strings.Join(argv, "\x00")
		mu.Lock()
		defer mu.Unlock()
		err, ok := seen[key]
		if !ok {
			err = (jsruntime.Resolver{}).CheckJudge(argv, cwd)
			seen[key] = err
		}
		return err
	}
}
