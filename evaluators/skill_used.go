package evaluators

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"

	"github.com/agentv/action/suite"
	"github.com/agentv/action/targets"
)

// skill-used and not-skill-used (AgentV 5.x, graders/skill-used.ts) check which agent skills
// the target used: a skill name or a list of them (each required, or for not-skill-used each
// forbidden), or {name | pattern, min?, max?} counting the uses. It scores 1 or 0.
func init() {
	for _, name := range []string{"skill-used", "not-skill-used"} {
		inverse := name == "not-skill-used"
		register(name, nil, []string{"value", "metric", "transform"}, func(spec *suite.EvaluatorSpec) (*skillUsedConfig, error) {
			return parseSkillUsed(spec, inverse)
		}, skillUsed)
	}
}

type skillUsedConfig struct {
	names   []string // the list form
	count   *skillCount
	inverse bool
}

type skillCount struct {
	name, pattern    string
	minimum, maximum *float64
}

func (c *skillCount) label() string {
	switch {
	case c.pattern != "":
		return c.pattern
	case c.name != "":
		return c.name
	}
	return "*"
}

// parseSkillUsed reads the value. In 5.x `negate: true` makes skill-used its inverse and is
// then applied to the score again (skill-used.ts:32 and orchestrator.ts:3312): both happen
// here too, so a negated skill-used scores as in 5.x.
func parseSkillUsed(spec *suite.EvaluatorSpec, inverse bool) (*skillUsedConfig, error) {
	s, err := settingsOf(spec)
	if err != nil {
		return nil, err
	}
	cfg := &skillUsedConfig{inverse: inverse || commonOf(spec).negate}
	raw, _ := s.raw("value")
	if raw == nil {
		return nil, fmt.Errorf("%s needs `value`: a skill name, a list of them, or {name, min?, max?}", spec.Type)
	}
	switch v := decodeValue(raw).(type) {
	case string:
		if strings.TrimSpace(v) == "" {
			return nil, settingErr("value", "must not be empty")
		}
		cfg.names = []string{strings.TrimSpace(v)}
	case []any:
		for i, item := range v {
			s, _ := item.(string)
			if strings.TrimSpace(s) == "" {
				return nil, settingErr(fmt.Sprintf("value[%d]", i), "must be a skill name, got %s", jsKind(item))
			}
			cfg.names = append(cfg.names, strings.TrimSpace(s))
		}
		if len(cfg.names) == 0 {
			return nil, settingErr("value", "must name at least one skill")
		}
	case map[string]any:
		c := &skillCount{}
		c.name, _ = v["name"].(string)
		c.pattern, _ = v["pattern"].(string)
		c.name, c.pattern = strings.TrimSpace(c.name), strings.TrimSpace(c.pattern)
		if c.name == "" && c.pattern == "" {
			return nil, settingErr("value", "must include a name or pattern property")
		}
		for _, b := range []struct {
			key string
			dst **float64
		}{{"min", &c.minimum}, {"max", &c.maximum}} {
			x, has := v[b.key]
			if !has {
				continue
			}
			f, ok := x.(float64)
			if !ok || f < 0 || f != math.Trunc(f) {
				return nil, settingErr("value."+b.key, "must be a whole number >= 0")
			}
			*b.dst = &f
		}
		if c.minimum != nil && c.maximum != nil && *c.maximum < *c.minimum {
			return nil, settingErr("value.max", "must be greater than or equal to min")
		}
		if cfg.inverse && (c.minimum != nil || c.maximum != nil && *c.maximum != 0) {
			return nil, settingErr("value", "not-skill-used takes a name or pattern with no count bounds, or max: 0")
		}
		cfg.count = c
	default:
		return nil, settingErr("value", "must be a skill name, a list of them, or {name, min?, max?}, got %s", jsKind(v))
	}
	return cfg, nil
}

// skillCall is one use of a skill found in the answer.
type skillCall struct{ name, path, source string }

func (c skillCall) String() string {
	var details []string
	for _, d := range []string{c.source, c.path} {
		if d != "" {
			details = append(details, d)
		}
	}
	if len(details) == 0 {
		return c.name
	}
	return c.name + " (" + strings.Join(details, ", ") + ")"
}

func skillUsed(_ context.Context, r *caseRun, _ *suite.EvaluatorSpec, cfg *skillUsedConfig) verdict {
	calls := skillCalls(r)
	actual := "(none)"
	if len(calls) > 0 {
		parts := make([]string, len(calls))
		for i, c := range calls {
			parts[i] = c.String()
		}
		actual = strings.Join(parts, ", ")
	}
	if cfg.count == nil {
		var missing, matched []string
		for _, n := range cfg.names {
			if slices.ContainsFunc(calls, func(c skillCall) bool { return c.name == n }) {
				matched = append(matched, n)
			} else {
				missing = append(missing, n)
			}
		}
		names := strings.Join(cfg.names, ", ")
		switch {
		case cfg.inverse && len(matched) == 0:
			return passFail(true, "Forbidden skill(s) were not used: "+names)
		case cfg.inverse:
			return passFail(false, fmt.Sprintf("Forbidden skill(s) were used: %s. Actual skills: %s", strings.Join(matched, ", "), actual))
		case len(missing) == 0:
			return passFail(true, fmt.Sprintf("Observed required skill(s): %s. Actual skills: %s", names, actual))
		}
		return passFail(false, fmt.Sprintf("Missing required skill(s): %s. Actual skills: %s", strings.Join(missing, ", "), actual))
	}
	c := cfg.count
	var matches []string
	for _, call := range calls {
		if (c.name == "" || call.name == c.name) && (c.pattern == "" || globMatch(c.pattern, call.name)) {
			matches = append(matches, call.String())
		}
	}
	n := float64(len(matches))
	if cfg.inverse {
		if n == 0 {
			return passFail(true, fmt.Sprintf("Forbidden skill %q was not used. Actual skills: %s", c.label(), actual))
		}
		return passFail(false, fmt.Sprintf("Forbidden skill %q was used %d time(s). Matches: %s", c.label(), len(matches), strings.Join(matches, ", ")))
	}
	minimum := 1.0
	switch {
	case c.minimum != nil:
		minimum = *c.minimum
	case c.maximum != nil:
		minimum = 0 // a maximum alone allows none
	}
	pass := n >= minimum && (c.maximum == nil || n <= *c.maximum)
	text := fmt.Sprintf("Matched skill %q %d time(s)", c.label(), len(matches))
	if c.maximum != nil {
		text += fmt.Sprintf(" (expected %s-%s)", jsNumber(minimum), jsNumber(*c.maximum))
	} else {
		text += fmt.Sprintf(" (expected at least %s)", jsNumber(minimum))
	}
	if len(matches) > 0 {
		text += ". Matches: " + strings.Join(matches, ", ")
	}
	return passFail(pass, text)
}

var (
	skillFileToken  = regexp.MustCompile(`(?:^|/)(?:\.agents/)?skills/([^/\s]+)/SKILL\.md$`)
	skillFileInText = regexp.MustCompile(`(?:^|[/"'\s])(?:\.agents/)?skills/([^/"'\s]+)/SKILL\.md(?:$|[)"'\s,;:])`)
	skillFilePath   = regexp.MustCompile(`(?:\.agents/)?skills/([^/"'\s]+)/SKILL\.md`)
	skillName       = regexp.MustCompile(`^[A-Za-z0-9._:-]+$`)
	tokenEdges      = regexp.MustCompile("^[`\"'(\\[{<]+|[`\"',;:)\\]}>]+$")
)

// skillCalls are the skills the target used: those its provider reported (metadata
// skill_calls), else, for a Claude Code or Codex target, those 5.x's providers of these
// agents derive from the tool calls (providers/skill-calls.ts, called by claude*.ts and
// codex*.ts only): a Skill tool's `skill` (or `name`), a Read of skills/<name>/SKILL.md, and
// such paths in a Bash command or in any tool's output. Calls of a tool that failed do not
// count. Other targets (cli, the model APIs) report no skills in 5.x, and none here.
func skillCalls(r *caseRun) []skillCall {
	if calls, ok := reportedSkillCalls(r); ok {
		return calls
	}
	if r.in.Response == nil || r.in.Target == nil || (r.in.Target.Kind != targets.KindClaude && r.in.Target.Kind != targets.KindCodex) {
		return nil
	}
	var calls []skillCall
	seen := map[string]bool{}
	heuristic := func(c skillCall) {
		key := c.name + "\x00" + c.path + "\x00" + c.source
		if !seen[key] {
			seen[key] = true
			calls = append(calls, c)
		}
	}
	for _, m := range r.in.Response.OutputMessages {
		var items []struct {
			Tool   string          `json:"tool"`
			Name   string          `json:"name"`
			Input  json.RawMessage `json:"input"`
			Output json.RawMessage `json:"output"`
			Status json.RawMessage `json:"status"`
		}
		if isNull(m.ToolCalls) || json.Unmarshal(m.ToolCalls, &items) != nil {
			continue
		}
		for _, it := range items {
			var status string
			_ = json.Unmarshal(it.Status, &status)
			if status != "" && status != "ok" && status != "unknown" {
				continue // 5.x marks these isError, and skill-used leaves them out
			}
			in, _ := decodeValue(it.Input).(map[string]any)
			str := func(keys ...string) string {
				for _, k := range keys {
					if s, ok := in[k].(string); ok && strings.TrimSpace(s) != "" {
						return strings.TrimSpace(s)
					}
				}
				return ""
			}
			switch strings.ToLower(firstNonEmpty(it.Tool, it.Name)) {
			case "skill":
				if n := str("skill", "name"); n != "" {
					calls = append(calls, skillCall{name: n, source: "tool"})
				}
				continue
			case "read":
				if p := str("file_path", "path", "filePath"); p != "" {
					if sm := skillFileToken.FindStringSubmatch(strings.ReplaceAll(p, `\`, "/")); sm != nil && skillName.MatchString(sm[1]) {
						heuristic(skillCall{name: sm[1], path: p, source: "heuristic"})
					}
				}
				continue
			case "bash":
				if cmd := str("command"); cmd != "" {
					for _, c := range skillPaths(cmd) {
						heuristic(c)
					}
				}
			}
			if !isNull(it.Output) {
				for _, c := range skillPaths(outputText(it.Output)) {
					heuristic(c)
				}
			}
		}
	}
	return calls
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// skillPaths finds skills/<name>/SKILL.md paths in text: whole tokens, then mentions inside
// other text; one entry per path.
func skillPaths(text string) []skillCall {
	var out []skillCall
	seen := map[string]int{}
	add := func(name, path string) {
		if !skillName.MatchString(name) {
			return
		}
		if i, ok := seen[path]; ok {
			out[i] = skillCall{name: name, path: path, source: "heuristic"}
			return
		}
		seen[path] = len(out)
		out = append(out, skillCall{name: name, path: path, source: "heuristic"})
	}
	for _, tok := range strings.Fields(text) {
		tok = strings.ReplaceAll(tokenEdges.ReplaceAllString(tok, ""), `\`, "/")
		if sm := skillFileToken.FindStringSubmatch(tok); sm != nil {
			add(sm[1], tok)
		}
	}
	for _, m := range skillFileInText.FindAllString(strings.ReplaceAll(text, `\`, "/"), -1) {
		if pm := skillFilePath.FindStringSubmatch(m); pm != nil {
			add(pm[1], pm[0])
		}
	}
	return out
}

// reportedSkillCalls reads skill calls a provider put in its metadata (skill_calls or
// skillCalls, at the top or under metadata), as 5.x's getSkillCalls does.
func reportedSkillCalls(r *caseRun) ([]skillCall, bool) {
	if r.in.Response == nil || r.in.Response.Metadata == nil {
		return nil, false
	}
	md := r.in.Response.Metadata
	raw, ok := md["skill_calls"]
	if !ok {
		raw, ok = md["skillCalls"]
	}
	if !ok {
		if inner, isMap := md["metadata"].(map[string]any); isMap {
			if raw, ok = inner["skillCalls"]; !ok {
				raw, ok = inner["skill_calls"]
			}
		}
	}
	list, isList := raw.([]any)
	if !ok || !isList {
		return nil, false
	}
	var calls []skillCall
	for _, item := range list {
		e, _ := item.(map[string]any)
		name, _ := e["name"].(string)
		if strings.TrimSpace(name) == "" || e["isError"] == true || e["is_error"] == true {
			continue
		}
		path, _ := e["path"].(string)
		source, _ := e["source"].(string)
		calls = append(calls, skillCall{name: name, path: path, source: source})
	}
	return calls, true
}
