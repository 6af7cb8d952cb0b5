package promptfoo

import (
	"fmt"
	"github.com/agentv/action/suite"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v4"
)

// pfProviderPrefixes are the promptfoo provider ids of the supported subset; targets/ turns
// each into a target of ours.
var pfProviderPrefixes = []string{"openai:", "anthropic:messages:", "azure:chat:", "google:", "vertex:", "exec:"}

// pfProviders reads `providers` into the suite's target definitions: each test runs on each.
func (l *reader) pfProviders(v *yaml.Node) bool {
	items := []*yaml.Node{v}
	if v.Kind == yaml.SequenceNode {
		items = v.Content
	}
	if suite.IsNull(v) || len(items) == 0 {
		l.Errorf(v, suite.KindStructure, "", "promptfoo %q is empty: give at least one provider", "providers")
		return false
	}
	ok := true
	for i, it := range items {
		d, good := l.pfProvider(suite.Deref(it), fmt.Sprintf("providers[%d]", i))
		if !good {
			ok = false
			continue
		}
		if j := slices.IndexFunc(l.Suite.TargetDefs, func(x suite.TargetDef) bool { return x.Name == d.Name }); j >= 0 {
			l.Errorf(it, suite.KindStructure, "", "%s: a second provider named %q (the first is at line %d): give each a different %q",
				fmt.Sprintf("providers[%d]", i), d.Name, l.Suite.TargetDefs[j].Pos.Line, "label")
			ok = false
			continue
		}
		l.Suite.TargetDefs = append(l.Suite.TargetDefs, d)
		l.Suite.Targets = append(l.Suite.Targets, d.Name)
	}
	if len(l.Suite.Targets) == 1 {
		l.Suite.Target, l.Suite.Targets = l.Suite.Targets[0], nil
	}
	return ok
}

// pfProvider reads one provider: an id, or {id, label, config}.
func (l *reader) pfProvider(n *yaml.Node, where string) (suite.TargetDef, bool) {
	var d suite.TargetDef
	var idNode, cfg *yaml.Node
	label := ""
	switch {
	case n != nil && suite.IsString(n):
		idNode = n
	case n != nil && n.Kind == yaml.MappingNode:
		for _, x := range suite.MapEntries(n) {
			switch x.Key {
			case "id":
				idNode = x.Value
			case "label":
				if suite.IsString(x.Value) {
					label = strings.TrimSpace(x.Value.Value)
				}
			case "config":
				cfg = x.Value
			default:
				l.Errorf(x.KeyNode, suite.KindStructure, "", "%s: promptfoo provider %q is not supported: agentv reads id, label and config", where, x.Key)
				return d, false
			}
		}
	default:
		l.Errorf(n, suite.KindStructure, "", "%s: a provider must be an id such as openai:chat:gpt-4o-mini or a mapping with %q, got %s", where, "id", suite.KindName(n))
		return d, false
	}
	if idNode == nil || !suite.IsString(idNode) || strings.TrimSpace(idNode.Value) == "" {
		l.Errorf(n, suite.KindStructure, "", "%s: a provider needs an %q", where, "id")
		return d, false
	}
	id := strings.TrimSpace(idNode.Value)
	if !slices.ContainsFunc(pfProviderPrefixes, func(p string) bool { return strings.HasPrefix(id, p) && len(id) > len(p) }) ||
		strings.HasPrefix(id, "openai:embedding:") {
		l.Errorf(idNode, suite.KindStructure, "", "%s: promptfoo provider %q is not supported: agentv runs %s…", where, id, strings.Join(pfProviderPrefixes, "…, "))
		return d, false
	}
	d = suite.TargetDef{Provider: id, Pos: suite.Position{File: l.Suite.Path, Line: idNode.Line, Col: idNode.Column}, Overrides: true}
	if cfg != nil && !suite.IsNull(cfg) {
		if cfg.Kind != yaml.MappingNode {
			l.Errorf(cfg, suite.KindStructure, "", "%s: provider %q must be a mapping, got %s", where, "config", suite.KindName(cfg))
			return d, false
		}
		js, err := suite.ToJSON(cfg)
		if err != nil {
			l.Errorf(cfg, suite.KindStructure, "", "%s: provider %q: %s", where, "config", err)
			return d, false
		}
		d.Config = js
	}
	d.Name = label
	if d.Name == "" {
		d.Name = pfReportedID(id, n.Kind == yaml.MappingNode, cfg)
	}
	return d, true
}

// pfReportedID is the id promptfoo reports a provider by: a string openai:chat:m is openai:m
// (m alone with an apiBaseUrl or apiHost), anthropic:messages:m is anthropic:m, azure:chat:d
// is azure:d; a provider
// written as {id} keeps its id (docs/promptfoo.md, Providers).
func pfReportedID(id string, asMapping bool, cfg *yaml.Node) string {
	if asMapping {
		return id
	}
	switch {
	case strings.HasPrefix(id, "openai:chat:"), strings.HasPrefix(id, "openai:") && strings.Count(id, ":") == 1:
		m := id[strings.LastIndex(id, ":")+1:]
		if strings.HasPrefix(id, "openai:chat:") {
			m = strings.TrimPrefix(id, "openai:chat:")
		}
		if cfg != nil && (suite.HasKey(cfg, "apiBaseUrl") || suite.HasKey(cfg, "apiHost")) {
			return m
		}
		return "openai:" + m
	case strings.HasPrefix(id, "anthropic:messages:"):
		return "anthropic:" + strings.TrimPrefix(id, "anthropic:messages:")
	case strings.HasPrefix(id, "azure:chat:"):
		return "azure:" + strings.TrimPrefix(id, "azure:chat:") // AzureGenericProvider.id
	}
	return id
}

// pfGrader reads a grader provider (`options.provider` or an assertion's `provider`): an id,
// {id, config}, or {text, embedding} whose text provider grades; it is added to the suite's
// target definitions (not to the targets its tests run on) and its name returned.
func (l *reader) pfGrader(v *yaml.Node, graders map[string]string) (string, bool) {
	v = suite.Deref(v)
	if v != nil && v.Kind == yaml.MappingNode && !suite.HasKey(v, "id") {
		ok := true
		name := ""
		for _, x := range suite.MapEntries(v) {
			switch x.Key {
			case "text":
				n, good := l.pfGrader(x.Value, graders)
				name, ok = n, good && ok
			case "embedding":
				// similar's embedding provider: not read yet, the embeddings come from the
				// run's embedding settings.
				l.Warnf(x.KeyNode, suite.KindIgnored, "", "grader provider %q is not read yet (ignored)", x.Key)
			default:
				l.Errorf(x.KeyNode, suite.KindStructure, "", "grader provider %q is not supported: agentv reads an id, {id, config} or {text, embedding}", x.Key)
				ok = false
			}
		}
		return name, ok
	}
	d, ok := l.pfProvider(v, "grader provider")
	if !ok {
		return "", false
	}
	key := d.Provider + "\x00" + string(d.Config)
	if name, seen := graders[key]; seen {
		return name, true
	}
	d.Name = "grader " + d.Name
	graders[key] = d.Name
	l.Suite.TargetDefs = append(l.Suite.TargetDefs, d)
	return d.Name, true
}
