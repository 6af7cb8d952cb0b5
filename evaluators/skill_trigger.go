package evaluators

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/agentv/action/internal/jsonx"
	"github.com/agentv/action/suite"
)

type skillTriggerConfig struct {
	skill         string
	shouldTrigger bool
}

// skill-trigger (AgentV 4.x) checks whether the target used a named agent skill.
func init() {
	register("skill-trigger", []string{"skill_trigger"}, nil, parseSkillTrigger, skillTrigger)
}

func parseSkillTrigger(spec *suite.EvaluatorSpec) (*skillTriggerConfig, error) {
	s, err := settingsOf(spec)
	if err != nil {
		return nil, err
	}
	cfg := &skillTriggerConfig{shouldTrigger: true}
	if _, err := s.decode(&cfg.skill, "skill"); err != nil {
		return nil, err
	}
	if cfg.skill == "" {
		return nil, errors.New("skill-trigger needs `skill` (the skill's name)")
	}
	if _, err := s.decode(&cfg.shouldTrigger, "should_trigger", "shouldTrigger"); err != nil {
		return nil, err
	}
	return cfg, nil
}

// skillTrigger looks through every tool call of the answer for the skill being used: a tool
// named "skill" (any case) whose input.skill contains the name, a tool named "read" whose
// input.file_path (else input.path) contains skills/<name>/, or any tool whose output mentions
// skills/<name>/. It scores 1 when that matches should_trigger (default true), else 0.
func skillTrigger(_ context.Context, r *caseRun, _ *suite.EvaluatorSpec, cfg *skillTriggerConfig) verdict {
	name := cfg.skill
	dir := "skills/" + name + "/"
	calls := toolCalls(r)
	triggered, evidence := false, ""
	for _, c := range calls {
		in, _ := c.input.(map[string]any)
		switch strings.ToLower(c.name) {
		case "skill":
			if arg := jsString(in["skill"]); strings.Contains(arg, name) {
				triggered, evidence = true, fmt.Sprintf("Skill tool invoked with skill=\"%s\"", arg)
			}
		case "read":
			p, ok := in["file_path"]
			if !ok || p == nil {
				p = in["path"]
			}
			if path := jsString(p); strings.Contains(path, dir) {
				triggered, evidence = true, "Read tool loaded skill file: "+path
			}
		}
		if !triggered && !isNull(c.output) && strings.Contains(outputText(c.output), dir) {
			triggered, evidence = true, fmt.Sprintf("Tool \"%s\" output referenced skill file for \"%s\"", c.name, name)
		}
		if triggered {
			break
		}
	}
	if triggered == cfg.shouldTrigger {
		text := fmt.Sprintf("Skill \"%s\" correctly did not trigger", name)
		if cfg.shouldTrigger {
			text = evidence
		}
		return assertion(true, text, "")
	}
	text := evidence
	switch {
	case !cfg.shouldTrigger && text == "":
		text = fmt.Sprintf("Skill \"%s\" triggered unexpectedly", name)
	case cfg.shouldTrigger && len(calls) > 0:
		text = fmt.Sprintf("Skill \"%s\" not found in %d tool call(s)", name, len(calls))
	case cfg.shouldTrigger:
		text = "No tool calls recorded"
	}
	return assertion(false, "", text)
}

// outputText is a tool's output as text: a string as it is, anything else as compact JSON.
func outputText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	b, err := jsonx.Marshal(v)
	if err != nil {
		return string(raw)
	}
	return string(b)
}

// jsString converts a decoded JSON value to text as JavaScript's String() does; absent and
// null are empty.
func jsString(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case float64:
		return jsNumber(x)
	case bool:
		if x {
			return "true"
		}
		return "false"
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = jsString(e)
		}
		return strings.Join(parts, ",")
	}
	return "[object Object]"
}
