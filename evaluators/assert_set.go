package evaluators

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/agentv/action/results"
	"github.com/agentv/action/suite"
)

// assert-set (AgentV 5.x, promptfoo) scores a group of assertions as one: the weighted mean
// of their scores, passing when the mean reaches `threshold` or, without one, when every
// member of non-zero weight passes (graders/promptfoo-assertions.ts, AssertSetGrader).
func init() {
	register("assert-set", nil, []string{"assert", "threshold", "metric", "transform"}, parseAssertSet, assertSet)
}

type assertSetConfig struct {
	members   []*suite.EvaluatorSpec
	threshold *float64
}

// parseAssertSet reads the members: those the loader parsed from `assert`
// (EvaluatorSpec.Members), else, for an entry built without the loader, its own `assert`
// list, each item a registered type whose settings are read here. Each gets the set's
// `config` under its own (a member's keys win, as 5.x's withAssertSetConfig merges them).
// Problems name the member ("assert[1].value").
func parseAssertSet(spec *suite.EvaluatorSpec) (*assertSetConfig, error) {
	s, err := settingsOf(spec)
	if err != nil {
		return nil, err
	}
	cfg := &assertSetConfig{members: spec.Members}
	if cfg.threshold, err = unitThreshold(s); err != nil {
		return nil, err
	}
	var parentConfig map[string]json.RawMessage
	if raw, _ := s.raw("config"); raw != nil {
		if err := decodeAt(raw, &parentConfig, "config"); err != nil {
			return nil, err
		}
	}
	if len(cfg.members) > 0 {
		return cfg, cfg.inheritConfig(parentConfig)
	}
	raw, _ := s.raw("assert")
	if raw == nil {
		return nil, errors.New("assert-set needs `assert`: a list of the assertions it groups")
	}
	var items []json.RawMessage
	if err := decodeAt(raw, &items, "assert"); err != nil {
		return nil, err
	}
	if len(items) == 0 {
		return nil, settingErr("assert", "must list at least one assertion")
	}
	var errs []error
	for i, item := range items {
		m, err := memberSpec(spec, item, parentConfig, fmt.Sprintf("assert[%d]", i))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		cfg.members = append(cfg.members, m)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	nameMembers(cfg.members)
	return cfg, nil
}

// inheritConfig gives members the loader parsed the set's config under their own: each
// is copied with the merged config and its settings read again.
func (cfg *assertSetConfig) inheritConfig(parent map[string]json.RawMessage) error {
	if len(parent) == 0 {
		return nil
	}
	var errs []error
	for i, m := range cfg.members {
		var entry map[string]json.RawMessage
		if json.Unmarshal(m.Settings, &entry) != nil || entry == nil {
			entry = map[string]json.RawMessage{}
		}
		cp := *m
		merged, err := mergeConfig(parent, entry["config"], fmt.Sprintf("assert[%d].config", i))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		entry["config"] = merged
		cp.Settings, _ = json.Marshal(entry)
		if !isNull(cp.Config) {
			if cp.Config, err = mergeConfig(parent, cp.Config, fmt.Sprintf("assert[%d].config", i)); err != nil {
				errs = append(errs, err)
				continue
			}
		}
		if t, ok := suite.LookupEvaluator(cp.Type); ok && t.Parse != nil {
			parsed, err := t.Parse(&cp)
			if err != nil {
				errs = append(errs, underPath(err, fmt.Sprintf("assert[%d]", i)))
				continue
			}
			cp.Parsed = parsed
		}
		cfg.members[i] = &cp
	}
	return errors.Join(errs...)
}

// mergeConfig is parent's keys overlaid by own's (a mapping or nothing).
func mergeConfig(parent map[string]json.RawMessage, own json.RawMessage, path string) (json.RawMessage, error) {
	merged := map[string]json.RawMessage{}
	for k, v := range parent {
		merged[k] = v
	}
	if !isNull(own) {
		var m map[string]json.RawMessage
		if err := decodeAt(own, &m, path); err != nil {
			return nil, err
		}
		for k, v := range m {
			merged[k] = v
		}
	}
	b, err := json.Marshal(merged)
	return b, err
}

// memberSpec reads one member of the set's own `assert` list at path.
func memberSpec(parent *suite.EvaluatorSpec, item json.RawMessage, parentConfig map[string]json.RawMessage, path string) (*suite.EvaluatorSpec, error) {
	var entry map[string]json.RawMessage
	if err := json.Unmarshal(item, &entry); err != nil || entry == nil {
		return nil, settingErr(path, "an assertion must be a mapping with a type, got %s", kindOf(item))
	}
	var typ string
	if json.Unmarshal(entry["type"], &typ) != nil || strings.TrimSpace(typ) == "" {
		return nil, settingErr(path, "an assertion needs a `type`")
	}
	t, ok := suite.LookupEvaluator(typ)
	if !ok {
		return nil, settingErr(path+".type", "unknown assertion type %q (valid here: %s)", typ, suite.EvaluatorTypeNames())
	}
	m := &suite.EvaluatorSpec{Type: t.Name, Weight: 1, Pos: parent.Pos}
	for _, k := range []string{"name", "metric"} {
		if raw, ok := entry[k]; ok && !isNull(raw) {
			if json.Unmarshal(raw, &m.Name) != nil {
				return nil, settingErr(path+"."+k, "must be a string, got %s", kindOf(raw))
			}
			break
		}
	}
	if raw, ok := entry["weight"]; ok && !isNull(raw) {
		w, err := nonNegative(raw, path+".weight")
		if err != nil {
			return nil, err
		}
		m.Weight, m.WeightSet = w, true
	}
	if len(parentConfig) > 0 {
		merged, err := mergeConfig(parentConfig, entry["config"], path+".config")
		if err != nil {
			return nil, err
		}
		entry["config"] = merged
	}
	m.Settings, _ = json.Marshal(entry)
	if m.Config = entry["config"]; isNull(m.Config) {
		m.Config = nil
	}
	if t.Parse != nil {
		parsed, err := t.Parse(m)
		if err != nil {
			return nil, underPath(err, path)
		}
		m.Parsed = parsed
	}
	return m, nil
}

// underPath moves a member's setting errors under its path in the set.
func underPath(err error, path string) error {
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	out := make([]error, 0, len(errs))
	for _, e := range errs {
		var se *suite.SettingError
		switch {
		case errors.As(e, &se) && se.Path != "":
			out = append(out, &suite.SettingError{Path: path + "." + se.Path, Msg: se.Msg})
		case errors.As(e, &se):
			out = append(out, &suite.SettingError{Path: path, Msg: se.Msg})
		default:
			out = append(out, &suite.SettingError{Path: path, Msg: e.Error()})
		}
	}
	return errors.Join(out...)
}

// nameMembers names unnamed members after their type, -2, -3 for repeats.
func nameMembers(ms []*suite.EvaluatorSpec) {
	used := map[string]bool{}
	for _, m := range ms {
		used[m.Name] = m.Name != ""
	}
	for _, m := range ms {
		if m.Name != "" {
			continue
		}
		name := m.Type
		for i := 2; used[name]; i++ {
			name = fmt.Sprintf("%s-%d", m.Type, i)
		}
		m.Name, used[name] = name, true
	}
}

// assertSet runs the members in order. Their own negate, required and min_score do not act
// inside the set (5.x applies them to the test's own list only); a member that cannot score
// leaves the set unable to score, as a member's exception fails the whole set in 5.x.
func assertSet(ctx context.Context, r *caseRun, _ *suite.EvaluatorSpec, cfg *assertSetConfig) verdict {
	children := make([]results.EvaluatorResult, 0, len(cfg.members))
	var sum, wsum float64
	passed := true
	var failed []string
	for _, m := range cfg.members {
		c := r.run(ctx, m)
		if r.rules.SetMembersNegate && commonOf(m).negate {
			r.negate(&c) // promptfoo negates a not- member inside a set too
			r.zeroWeight(&c)
		}
		children = append(children, c)
		sum += c.Weight * c.Score
		wsum += c.Weight
		if c.Weight != 0 && c.Verdict != results.BandPass {
			passed = false
		}
		if c.Error != "" {
			failed = append(failed, fmt.Sprintf("member %q could not score: %s", c.Name, c.Error))
		}
	}
	// A total weight of 0 divides by 1 (promptfoo-assertions.ts, AssertSetGrader): the set scores 0.
	v := verdict{score: sum / cmp.Or(wsum, 1), hits: []string{}, misses: []string{}, children: children}
	if cfg.threshold != nil {
		passed = v.score >= *cfg.threshold
		v.details, _ = json.Marshal(map[string]float64{"threshold": *cfg.threshold})
	}
	var reasons []string
	for _, c := range children {
		v.hits = append(v.hits, c.Hits...)
		v.misses = append(v.misses, c.Misses...)
		v.assertions = append(v.assertions, c.Assertions...)
		if c.Reasoning != "" {
			reasons = append(reasons, c.Name+": "+c.Reasoning)
		}
	}
	v.reasoning = strings.Join(reasons, "; ")
	v.forcePass, v.forceFail = passed, !passed
	if len(failed) > 0 {
		v.err = errors.New(strings.Join(failed, "; "))
	}
	return v
}
