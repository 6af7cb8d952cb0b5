package suite

import (
	"errors"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	yaml "go.yaml.in/yaml/v4"

	"github.com/agentv/action/internal/safefile"
)

// DefaultGuidelinePatterns apply when no config file sets `guideline_patterns` (AgentV 2.5
// has no defaults; its specification names these).
var DefaultGuidelinePatterns = []string{"**/*.instructions.md", "**/instructions/**", "**/*.prompt.md", "**/prompts/**"}

// guidelinePatterns finds the patterns in force for the eval file: `.agentv.yaml` in its
// directory, else the first valid `.agentv/config.yaml` up to the repo root (AgentV 2.x), else
// the defaults. An invalid config file is reported and skipped.
func (l *Reader) guidelinePatterns() []string {
	if p, ok := l.readConfig(filepath.Join(l.Suite.Dir, ".agentv.yaml")); ok {
		return p
	}
	for _, d := range upTo(l.Suite.Dir, l.Suite.RepoRoot) {
		if p, ok := l.readConfig(filepath.Join(d, ".agentv", "config.yaml")); ok {
			return p
		}
	}
	return slices.Clone(DefaultGuidelinePatterns)
}

// readConfig reads guideline_patterns from one config file; false when it is absent, invalid
// (warned) or does not set them.
func (l *Reader) readConfig(path string) ([]string, bool) {
	b, err := safefile.ReadFile(path, safefile.LimitConfig)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			l.add(Diagnostic{File: DisplayPath(path, l.Cwd), Severity: SeverityWarning, Kind: KindConfig,
				Message: "config file ignored: " + ErrText(err)})
		}
		return nil, false
	}
	defer l.InFile(path)()
	doc := l.parseYAMLWarn(b)
	if doc == nil {
		return nil, false
	}
	root := doc
	if len(doc.Content) > 0 {
		root = Deref(doc.Content[0])
	}
	if IsNull(root) {
		return nil, false
	}
	if root.Kind != yaml.MappingNode {
		l.Warnf(root, KindConfig, "", "config must be a mapping with guideline_patterns; file ignored")
		return nil, false
	}
	e := EntryList(MapEntries(root)).Get("guideline_patterns")
	if e == nil {
		return nil, false
	}
	if e.Value.Kind != yaml.SequenceNode {
		l.Warnf(e.Value, KindConfig, "", "guideline_patterns must be a list of glob strings, got %s; file ignored", KindName(e.Value))
		return nil, false
	}
	pats := []string{}
	for _, c := range e.Value.Content {
		c = Deref(c)
		if c == nil || c.Kind != yaml.ScalarNode || IsNull(c) {
			l.Warnf(c, KindConfig, "", "guideline pattern must be a string, got %s; file ignored", KindName(c))
			return nil, false
		}
		p := strings.TrimPrefix(filepath.ToSlash(c.Value), "./")
		if !doublestar.ValidatePattern(p) {
			l.Warnf(c, KindConfig, "", "invalid guideline pattern %q; file ignored", c.Value)
			return nil, false
		}
		pats = append(pats, p)
	}
	return pats, true
}

// parseYAMLWarn parses a config file; syntax problems are warnings, not errors.
func (l *Reader) parseYAMLWarn(b []byte) *yaml.Node {
	n := len(l.Suite.Diagnostics)
	doc := l.ParseYAML(b)
	for i := n; i < len(l.Suite.Diagnostics); i++ {
		l.Suite.Diagnostics[i].Severity = SeverityWarning
		l.Suite.Diagnostics[i].Kind = KindConfig
		l.Suite.Diagnostics[i].Message += "; config file ignored"
	}
	return doc
}

// isGuideline reports whether the file at abs, inside the repo root, matches the guideline
// patterns by its path from the root.
func (l *Reader) isGuideline(abs string) bool {
	rel, ok := safefile.RelWithin(abs, l.Suite.RepoRoot)
	if !ok {
		return false
	}
	rel = filepath.ToSlash(rel)
	for _, p := range l.Suite.GuidelinePatterns {
		if ok, _ := doublestar.Match(p, rel); ok {
			return true
		}
	}
	return false
}
