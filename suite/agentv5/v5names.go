package agentv5

import (
	"github.com/agentv/action/suite"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v4"
)

// v5NegatedTrajectory is the trajectory type a `not-trajectory:*` assertion reads, "" for any
// other type. 5.3.1-next.1 takes the prefix off and keeps it as the grader's inverse
// (loaders/grader-parser.ts:616-622), so the results show the plain type, and the name it
// generates is that type's.
func v5NegatedTrajectory(typ string) string {
	rest, ok := strings.CutPrefix(typ, "not-")
	if !ok || !strings.HasPrefix(rest, "trajectory:") || !suite.IsEvaluatorType(rest) {
		return ""
	}
	return rest
}

// v5SkillName is the name 5.3.1-next.1 generates for a skill-used or not-skill-used
// assertion without metric (grader-parser.ts:2065-2075): the type and the trimmed skill
// name, or the number of skills of a list; "" for another type.
func v5SkillName(typ string, n *yaml.Node) string {
	if typ != "skill-used" && typ != "not-skill-used" {
		return ""
	}
	switch v := suite.Deref(suite.ValueOf(n, "value")); {
	case suite.IsString(v) && strings.TrimSpace(v.Value) != "":
		return typ + "-" + strings.TrimSpace(v.Value)
	case v != nil && v.Kind == yaml.SequenceNode:
		return typ + "-" + strconv.Itoa(len(v.Content))
	}
	return typ
}

// v5FlipNegate is the value of `negate` for a not-trajectory assertion read as its plain
// type: the trajectory graders take negate as their inverse, so not-X with negate: true
// stays X, as when the not- type is registered. A value that is not a boolean is kept for
// the grader to report.
func v5FlipNegate(v *yaml.Node) *yaml.Node {
	d := suite.Deref(v)
	if d == nil || d.Kind != yaml.ScalarNode || suite.Classify(d) != suite.ScalarBool {
		return v
	}
	flipped := "true"
	if strings.EqualFold(d.Value, "true") {
		flipped = "false"
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: flipped, Line: d.Line, Column: d.Column}
}
