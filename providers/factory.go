package providers

import (
	"fmt"
	"maps"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/agentv/action/internal/retry"
	"github.com/agentv/action/suite"
	"github.com/agentv/action/targets"
)

// Options are run-wide settings every provider may use.
type Options struct {
	Verbose bool
	// Timeout is --timeout. The caller's context enforces it on each invocation; subprocess
	// providers also give it to the process (the smaller of it and their own setting), so the
	// timeout error says how long the command ran, and healthchecks are bounded by it.
	Timeout time.Duration
	// HTTPClient is used by API providers (tests inject a loopback TLS client); nil: default.
	HTTPClient *http.Client
	// Env is the environment for child processes (cli, codex); nil: the process environment.
	Env []string
	// Sleep waits between HTTP retries; nil: retry.Wait. Tests inject a fake clock.
	Sleep retry.Sleep
	// Logf receives verbose diagnostics (already redacted by the caller's sink).
	Logf func(format string, args ...any)
}

func (o Options) environ() []string {
	if o.Env == nil {
		return os.Environ()
	}
	return o.Env
}

// constructor builds a provider from a validated target.
type constructor func(t *targets.Target, opts Options) (Provider, error)

var constructors = map[string]constructor{}

// register adds a provider kind; each provider file registers itself in init.
func register(kind string, c constructor) { constructors[kind] = c }

// commonKeys are settings every target may carry; they are never "unknown".
var commonKeys = []string{"name", "provider", "judge_target", "grader_target", "workers", "provider_batching", "price", "cache", "$schema"}

// New builds the provider of a target. Settings the provider did not read are returned
// as warnings (unknown settings never fail a run); invalid values are errors.
func New(t *targets.Target, opts Options) (Provider, []suite.Diagnostic, error) {
	c, ok := constructors[t.Kind]
	if !ok {
		return nil, nil, &targets.SettingError{Target: t.Name, Field: "provider", Pos: t.Pos,
			Msg: fmt.Sprintf("provider %q is not supported here yet (supported: %s)", t.Provider, strings.Join(Kinds(), ", "))}
	}
	t.MarkUsed(commonKeys...)
	// `cache` (read by the response cache) is checked here, so validate reports a bad value.
	if _, _, err := t.Bool("cache"); err != nil {
		return nil, nil, err
	}
	p, err := c(t, opts)
	if err != nil {
		return nil, nil, err
	}
	var warns []suite.Diagnostic
	for _, s := range t.Unused() {
		warns = append(warns, suite.Diagnostic{File: s.Pos.File, Line: s.Pos.Line, Col: s.Pos.Col,
			Severity: suite.SeverityWarning, Kind: "unknown-setting",
			Message: fmt.Sprintf("target %q: unknown setting %q for provider %s (ignored)", t.Name, s.Key, t.Kind)})
	}
	return p, warns, nil
}

// Kinds lists the provider kinds this build supports.
func Kinds() []string { return slices.Sorted(maps.Keys(constructors)) }
