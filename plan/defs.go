package plan

import (
	"github.com/agentv/action/suite"
	"github.com/agentv/action/targets"
)

// defsFile returns (once per eval file) the targets a suite defines itself (a promptfoo
// config's providers) as a targets file of their own, so the cases run on them, judges find
// them, and their diagnostics are reported as a targets file's are.
func (p *Planner) defsFile(s *suite.Suite) (*targets.File, error) {
	cfg := &p.opts
	envDir := s.Dir
	if cfg.NoDotenv {
		envDir = ""
	}
	env, envErr := targets.LoadEnv(cfg.Environ, envDir, s.RepoRoot)
	p.mu.Lock()
	defer p.mu.Unlock()
	if tf, ok := p.files[s.Abs+"#providers"]; ok {
		return tf, nil
	}
	tf := targets.FromDefs(s, env, p.opts.Redactor)
	if envErr != nil {
		tf.Diagnostics = append(tf.Diagnostics, suite.Diagnostic{Severity: suite.SeverityError, Kind: suite.KindFile, Message: envErr.Error()})
	}
	p.files[tf.Abs] = tf
	p.reported[tf.Abs] = true
	p.diags = append(p.diags, tf.Diagnostics...)
	return tf, nil
}
