package agentv5

import (
	"fmt"
	"github.com/agentv/action/suite"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v4"
)

// Top-level keys that say a file is AgentV 5.x. The strong ones exist in no other dialect;
// `assert` and `target` are also (deprecated) 4.x top-level keys, so alone they make a file
// 5.x only when none of its tests has an `input`, which 4.x requires and 5.x rejects
// (yaml-parser.ts at v5.3.1-next.1, rejectAuthoredDirectInput).
var (
	v5StrongKeys = []string{"prompts", "default_test", "evaluate_options", "targets", "threshold"}
	v5WeakKeys   = []string{"assert", "target"}
	// v4OnlyKeys are top-level keys of 4.x that 5.x rejects: with a strong 5.x key, the file
	// mixes the two.
	v4OnlyKeys = []string{"assertions", "execution", "input"}
	// v4TestMarkers are test keys that only a 4.x test has.
	v4TestMarkers = []string{"input", "criteria", "expected_output", "assertions", "expected_outcome"}
)

// v5Detect tells whether root is an AgentV 5.x file. ok is false after the one error for a
// file that mixes 5.x keys with those of 4.x or 2.5.
func (l *reader) v5Detect(root *yaml.Node) (v5, ok bool) {
	var strong, weak, v4, v25 []*yaml.Node
	var tests *yaml.Node
	scenarios := false // 5.x's tests may all come from `scenarios`
	for i := 0; i+1 < len(root.Content); i += 2 {
		k := root.Content[i]
		switch {
		case slices.Contains(v5StrongKeys, k.Value):
			strong = append(strong, k)
		case slices.Contains(v5WeakKeys, k.Value):
			weak = append(weak, k)
		case slices.Contains(v4OnlyKeys, k.Value):
			v4 = append(v4, k)
		case slices.Contains(suite.CaseListKeys, k.Value):
			v25 = append(v25, k)
		case k.Value == "tests":
			tests = suite.Deref(root.Content[i+1])
		case k.Value == "scenarios":
			scenarios = true
		}
	}
	switch {
	case len(strong) == 0 && len(weak) == 0:
		return false, true
	case len(strong) == 0:
		// `assert`/`target` alone: 5.x only when nothing says 4.x or 2.5.
		inline := tests != nil && tests.Kind == yaml.SequenceNode && !v4Tests(tests)
		return len(v4) == 0 && len(v25) == 0 && (inline || tests == nil && scenarios), true
	case len(v4) == 0 && len(v25) == 0:
		return true, true
	}
	other, dialect := v4, "AgentV 4.x"
	if len(v4) == 0 {
		other, dialect = v25, "AgentV 2.5"
	}
	l.Errorf(other[0], suite.KindStructure, "", "the file mixes two dialects: %s (AgentV 5.x) and %s (%s); keep one of them (AgentV 5.x rejects %s)",
		keyList(strong), keyList(other), dialect, keyList(other))
	return false, false
}

// v4Tests reports whether an inline test list has a test written for 4.x.
func v4Tests(tests *yaml.Node) bool {
	for _, t := range tests.Content {
		if t = suite.Deref(t); t == nil || t.Kind != yaml.MappingNode {
			continue
		}
		for _, k := range v4TestMarkers {
			if suite.HasKey(t, k) {
				return true
			}
		}
	}
	return false
}

// keyList names keys with their lines: "prompts" (line 3), "threshold" (line 9).
func keyList(keys []*yaml.Node) string {
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%q (line %d)", k.Value, k.Line)
	}
	return strings.Join(parts, ", ")
}
