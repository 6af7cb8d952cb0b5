package plan

import (
	"github.com/agentv/action/providers"
	"github.com/agentv/action/suite"
	"github.com/agentv/action/targets"
)

// Targets an AgentV 5.x eval file defines itself (suite.Suite.TargetDefs) are built as a
// targets file of their own, one per eval file. A `targets` item's definition counts only
// when the targets file has no target of that id, and the `target` mapping's always
// (5.3.1-next.1: selectMultipleTargets, overlayTargetDefinition).

// inlineFile returns the targets s defines (built once), nil when it defines none.
func (p *Planner) inlineFile(s *suite.Suite) *targets.File {
	if len(s.TargetDefs) == 0 {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if f, ok := p.inline[s]; ok {
		return f
	}
	envDir := s.Dir
	if p.opts.NoDotenv {
		envDir = "" // as for the targets file (loadTargets notices the .env files left unread)
	}
	env, err := targets.LoadEnv(p.opts.Environ, envDir, s.RepoRoot)
	f := targets.Inline(s, env, p.opts.Redactor)
	if err != nil {
		f.Diagnostics = append(f.Diagnostics, suite.Diagnostic{File: s.Path, Severity: suite.SeverityError, Kind: suite.KindFile, Message: err.Error()})
	}
	p.inline[s], p.inlineOf[f] = f, s
	p.diags = append(p.diags, f.Diagnostics...)
	return f
}

// definedIn returns the eval file's own definition file when name should be built from it.
func (p *Planner) definedIn(s *suite.Suite, name string, tf *targets.File, tfErr error) *targets.File {
	f := p.inlineFile(s)
	if f == nil || !f.Has(name) {
		return nil
	}
	for _, d := range s.TargetDefs {
		if d.Name == name && d.Overrides {
			return f
		}
	}
	if tfErr != nil || tf == nil || !tf.Has(name) {
		return f
	}
	return nil
}

// inlineJudge resolves a judge of a target defined in eval file s: another target s
// defines, else one of its targets file.
func (p *Planner) inlineJudge(s *suite.Suite, name string) (providers.Provider, error) {
	tf, err := p.targetsFile(s)
	if f := p.definedIn(s, name, tf, err); f != nil {
		return p.build(f, name)
	}
	if err != nil {
		return nil, err
	}
	return p.build(tf, name)
}
