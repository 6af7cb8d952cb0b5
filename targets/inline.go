package targets

import (
	"errors"

	yaml "go.yaml.in/yaml/v4"

	"github.com/agentv/action/internal/redact"
	"github.com/agentv/action/suite"
)

// Inline builds the targets an AgentV 5.x eval file defines itself (Suite.TargetDefs) into
// a File of their own, named after the eval file: each is read as a 5.x targets file entry
// (the same settings, checks and messages), its relative paths from the eval file's folder.
// Messages point at the definition's line, since its settings come from the model.
func Inline(s *suite.Suite, env LookupEnv, red *redact.Redactor) *File {
	f := &File{Path: s.Path, Abs: s.Abs, invalid: map[string]error{}, budget: decodeBudget}
	seen := map[string]bool{}
	for _, d := range s.TargetDefs {
		if d.Provider != "" { // a promptfoo provider
			t, err := fromDef(d, s.Dir, env, red)
			t.File = f.Path
			if err != nil {
				f.add(diagnosticOf(err, t))
				f.invalid[t.Name] = err
			}
			f.Targets = append(f.Targets, t)
			continue
		}
		var doc yaml.Node
		if err := yaml.Load(d.Settings, &doc); err != nil {
			f.errorf(d.Pos, "target %q: %v", d.Name, err)
			continue
		}
		root := deref(&doc)
		if root.Kind == yaml.DocumentNode && len(root.Content) > 0 {
			root = deref(root.Content[0])
		}
		placeAt(root, d.Pos, 0)
		registerRefs(root, env, red)
		v5err := f.v5Entry(root, env, red)
		if errors.Is(v5err, errNoID) {
			continue
		}
		t := f.loadEntry(root, env, red)
		if t == nil {
			continue
		}
		t.EnvSyntax5 = true
		if v5err != nil && f.invalid[t.Name] == nil {
			f.invalid[t.Name] = v5err
		}
		if seen[t.Name] {
			f.errorf(t.Pos, "duplicate target name %q in the eval file", t.Name)
			continue
		}
		seen[t.Name] = true
		f.Targets = append(f.Targets, t)
	}
	suite.SortDiagnostics(f.Diagnostics)
	return f
}

// Has reports whether the file defines a target called name (valid or not).
func (f *File) Has(name string) bool {
	for _, t := range f.Targets {
		if t.Name == name {
			return true
		}
	}
	return false
}

// placeAt gives every node below n the position p (the nodes were decoded from JSON).
func placeAt(n *yaml.Node, p suite.Position, depth int) {
	if n == nil || depth > 64 {
		return
	}
	n.Line, n.Column = p.Line, p.Col
	for _, c := range n.Content {
		placeAt(c, p, depth+1)
	}
}
