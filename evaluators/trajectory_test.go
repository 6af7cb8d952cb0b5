package evaluators

import (
	"cmp"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentv/action/results"
	"github.com/agentv/action/suite"
	"github.com/agentv/action/targets"
)

// trajectoryOutput is an answer that searched twice, read a file and ran a shell command.
var trajectoryOutput = []suite.Message{
	{Role: "assistant", ToolCalls: json.RawMessage(`[
		{"tool": "search", "input": {"q": "agentv", "limit": 10, "lang": "en"}, "start_time": "2026-01-01T00:00:02Z"},
		{"tool": "Read", "input": "{\"file_path\": \"notes.md\"}", "start_time": "2026-01-01T00:00:01Z"},
		{"tool": "shell", "input": {"command": ["ls", "-la"]}, "start_time": "2026-01-01T00:00:03Z"}]`)},
	{Role: "assistant", ToolCalls: json.RawMessage(`[{"name": "search", "arguments": "{\"q\": \"more\", \"opts\": {\"deep\": true, \"n\": 2}}", "start_time": "2026-01-01T00:00:04Z"}]`)},
	text("assistant", "done"),
}

func TestTrajectoryAssertions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, typ, settings string
		output              []suite.Message
		pass                bool
		text                string
	}{
		// tool-used
		{"used: one tool", "trajectory:tool-used", `{"value": "search"}`, trajectoryOutput, true, "Observed required tool(s): search. Actual tools: tool:Read, tool:search, tool:search"},
		{"used: glob ignoring case", "trajectory:tool-used", `{"value": ["rea?", "SEARCH*"]}`, trajectoryOutput, true, ""},
		{"used: missing", "trajectory:tool-used", `{"value": ["search", "write"]}`, trajectoryOutput, false, "Missing required tool(s): write"},
		{"used: shell commands are not tools", "trajectory:tool-used", `{"value": "shell"}`, trajectoryOutput, false, "Missing required tool(s): shell"},
		{"used: count", "trajectory:tool-used", `{"value": {"name": "search", "min": 2, "max": 2}}`, trajectoryOutput, true, `Matched tool "search" 2 time(s) (expected 2-2). Matches: tool:search, tool:search`},
		{"used: count too few", "trajectory:tool-used", `{"value": {"pattern": "read", "min": 2}}`, trajectoryOutput, false, "(expected at least 2)"},
		{"used: another step type never matches a tool", "trajectory:tool-used", `{"value": {"name": "search", "type": "message"}}`, trajectoryOutput, false, ""},
		{"used: no trace", "trajectory:tool-used", `{"value": "search"}`, nil, false, "No trace data available for trajectory:tool-used assertion"},
		{"used: no tools at all", "trajectory:tool-used", `{"value": "search"}`, []suite.Message{text("assistant", "hi")}, false, "Actual tools: (none)"},
		// inverse: forbidden tools fail when any was used (not the opposite of the list check)
		{"not used: one of two used", "not-trajectory:tool-used", `{"value": ["search", "write"]}`, trajectoryOutput, false, "Forbidden tool(s) were used: search"},
		{"not used: none used", "not-trajectory:tool-used", `{"value": ["write", "delete"]}`, trajectoryOutput, true, "Forbidden tool(s) were not used: write, delete"},
		{"negate is the inverse", "trajectory:tool-used", `{"value": ["search", "write"], "negate": true}`, trajectoryOutput, false, "Forbidden tool(s) were used"},
		{"not used: count", "not-trajectory:tool-used", `{"value": {"name": "search", "max": 1}}`, trajectoryOutput, true, "did not satisfy the forbidden match condition"},
		// tool-sequence (calls ordered by their start time)
		{"sequence in order", "trajectory:tool-sequence", `{"value": ["read", "search"]}`, trajectoryOutput, true, "Observed tool sequence in order: tool:Read, tool:search"},
		{"sequence out of order", "trajectory:tool-sequence", `{"value": ["search", "read"]}`, trajectoryOutput, false, `Expected tool "read" was not observed in order`},
		{"sequence exact", "trajectory:tool-sequence", `{"value": {"mode": "exact", "steps": ["Read", "search", {"name": "search"}]}}`, trajectoryOutput, true, "Observed exact tool sequence"},
		{"sequence exact too short", "trajectory:tool-sequence", `{"value": {"mode": "exact", "steps": ["read", "search"]}}`, trajectoryOutput, false, "Expected exact tool sequence of read, search, but actual tools were tool:Read, tool:search, tool:search"},
		// An empty list loads and fails whatever the answer (5.3.1-next.1 throws when it runs).
		{"sequence empty", "trajectory:tool-sequence", `{"value": {"mode": "exact", "steps": []}}`, []suite.Message{text("assistant", "hi")}, false, "value.steps is an empty list"},
		{"sequence empty list", "trajectory:tool-sequence", `{"value": []}`, trajectoryOutput, false, "needs at least one expected step"},
		{"sequence without steps", "trajectory:tool-sequence", `{"value": {"mode": "exact"}}`, trajectoryOutput, false, "needs at least one expected step"},
		{"not sequence empty", "not-trajectory:tool-sequence", `{"value": []}`, trajectoryOutput, false, "needs at least one expected step"},
		{"not sequence", "not-trajectory:tool-sequence", `{"value": ["search", "read"]}`, trajectoryOutput, true, "Forbidden tool sequence was not observed"},
		// tool-args-match
		{"args partial", "trajectory:tool-args-match", `{"value": {"name": "search", "args": {"q": "agentv"}}}`, trajectoryOutput, true, `Tool "search" matched expected arguments (partial) on tool:search`},
		{"args partial nested from a JSON string", "trajectory:tool-args-match", `{"value": {"name": "search", "args": {"opts": {"deep": true}}}}`, trajectoryOutput, true, ""},
		{"args exact fails on extra keys", "trajectory:tool-args-match", `{"value": {"name": "search", "args": {"q": "agentv"}, "mode": "exact"}}`, trajectoryOutput, false, `No call to tool "search" matched expected arguments (exact)`},
		{"args exact with ignore and defaults", "trajectory:tool-args-match", `{"value": {"name": "search", "arguments": {"q": "agentv", "lang": "fr"}, "mode": "exact", "ignore": "lang", "defaults": {"limit": 10}}}`,
			trajectoryOutput, true, "Ignored argument(s): lang. Ignored default argument(s): limit"},
		{"args glob ignore", "trajectory:tool-args-match", `{"value": {"name": "search", "args": {"q": "agentv"}, "mode": "exact", "ignore": ["l*"]}}`, trajectoryOutput, true, ""},
		{"args no such tool", "trajectory:tool-args-match", `{"value": {"name": "write", "args": {}}}`, trajectoryOutput, false, `No tool call matched "write"`},
		{"args on a call without arguments", "trajectory:tool-args-match", `{"value": {"name": "ping", "args": {}}}`,
			[]suite.Message{{Role: "assistant", ToolCalls: json.RawMessage(`[{"tool": "ping"}]`)}}, false, "was observed but no arguments were captured"},
		{"not args", "not-trajectory:tool-args-match", `{"value": {"name": "search", "args": {"q": "agentv"}}}`, trajectoryOutput, false, "Forbidden argument match"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			spec := loadedSpec(t, "traj", tt.typ, tt.settings)
			in := riskInput(riskCase(t.TempDir(), spec), "done")
			in.Response.OutputMessages = tt.output
			res := Evaluate(t.Context(), in, &Options{}).Results[0]
			want := map[bool]float64{true: 1, false: 0}[tt.pass]
			verdict := map[bool]string{true: results.BandPass, false: results.BandFail}[tt.pass]
			if res.Error != "" || res.Score != want || res.Verdict != verdict {
				t.Errorf("score %v verdict %s error %q, want %v (hits %q misses %q)", res.Score, res.Verdict, res.Error, want, res.Hits, res.Misses)
			}
			if all := strings.Join(append(res.Hits, res.Misses...), "|"); !strings.Contains(all, tt.text) {
				t.Errorf("texts %q lack %q", all, tt.text)
			}
		})
	}
}

func TestTrajectorySettings(t *testing.T) {
	t.Parallel()
	tests := []struct{ typ, settings, err string }{
		{"trajectory:tool-used", `{}`, "needs `value`"},
		{"trajectory:tool-used", `{"value": []}`, "at least one expected tool"},
		{"trajectory:tool-used", `{"value": [1]}`, "value[0]: must be a tool name"},
		{"trajectory:tool-used", `{"value": 3}`, "value must be a tool name"},
		{"trajectory:tool-used", `{"value": {"min": 1}}`, "must include a name or pattern"},
		{"trajectory:tool-sequence", `{"value": ["a", ""]}`, "value[1]: trajectory:tool-sequence assertion step 2 must include a name or pattern"},
		{"trajectory:tool-sequence", `{"value": "a"}`, "must be a list of steps"},
		{"trajectory:tool-args-match", `{"value": "search"}`, "must be {name, args, mode?}"},
		{"trajectory:tool-args-match", `{"value": {"name": "a"}}`, "needs `args`"},
		{"trajectory:tool-args-match", `{"value": {"name": "a", "args": {}, "mode": "loose"}}`, `value.mode: must be "partial" or "exact"`},
		{"trajectory:tool-args-match", `{"value": {"name": "a", "args": {}, "defaults": 1}}`, "value.defaults: must be a mapping"},
		{"trajectory:tool-args-match", `{"value": {"name": "a", "args": {}, "ignore": [""]}}`, "value.ignore: must be a non-empty string"},
		{"skill-used", `{}`, "skill-used needs `value`"},
		{"skill-used", `{"value": {"name": "a", "min": 1.5}}`, "value.min: must be a whole number"},
		{"skill-used", `{"value": {"name": "a", "min": 3, "max": 1}}`, "value.max: must be greater than or equal to min"},
		{"not-skill-used", `{"value": {"name": "a", "min": 1}}`, "not-skill-used takes a name or pattern with no count bounds"},
		{"skill-used", `{"value": [""]}`, "value[0]: must be a skill name"},
	}
	for _, tt := range tests {
		typ, _ := suite.LookupEvaluator(tt.typ)
		_, err := typ.Parse(&suite.EvaluatorSpec{Type: tt.typ, Settings: json.RawMessage(tt.settings)})
		if err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("%s %s: error = %v, want %q", tt.typ, tt.settings, err, tt.err)
		}
	}
}

func TestSkillUsed(t *testing.T) {
	t.Parallel()
	output := []suite.Message{{Role: "assistant", ToolCalls: json.RawMessage(`[
		{"tool": "Skill", "input": {"skill": "csv-analyzer"}},
		{"tool": "Read", "input": {"file_path": "/repo/.agents/skills/pdf/SKILL.md"}},
		{"tool": "Bash", "input": {"command": "cat skills/docx/SKILL.md"}, "output": "see skills/docx/SKILL.md"},
		{"tool": "Skill", "input": {"skill": "broken"}, "status": "error"}]`)}}
	tests := []struct {
		name, typ, settings string
		metadata            map[string]any
		score               float64
		text                string
		kind                string // the target's; default claude-code
	}{
		// 5.x derives skills from the tool calls of Claude Code and Codex targets only.
		{name: "a cli target reports none", typ: "skill-used", settings: `{"value": "csv-analyzer"}`, kind: targets.KindCLI, score: 0,
			text: "Missing required skill(s): csv-analyzer. Actual skills: (none)"},
		{"one skill", "skill-used", `{"value": "csv-analyzer"}`, nil, 1,
			"Observed required skill(s): csv-analyzer. Actual skills: csv-analyzer (tool), pdf (heuristic, /repo/.agents/skills/pdf/SKILL.md), docx (heuristic, skills/docx/SKILL.md)", ""},
		{"all of a list", "skill-used", `{"value": ["pdf", "docx"]}`, nil, 1, "", ""},
		{"a failed call does not count", "skill-used", `{"value": "broken"}`, nil, 0, "Missing required skill(s): broken", ""},
		{"count by pattern", "skill-used", `{"value": {"pattern": "*x*", "min": 1, "max": 1}}`, nil, 1, `Matched skill "*x*" 1 time(s) (expected 1-1)`, ""},
		{"max alone allows none", "skill-used", `{"value": {"name": "nope", "max": 2}}`, nil, 1, "(expected 0-2)", ""},
		{"forbidden list", "not-skill-used", `{"value": ["pdf", "xlsx"]}`, nil, 0, "Forbidden skill(s) were used: pdf", ""},
		{"forbidden not used", "not-skill-used", `{"value": "xlsx"}`, nil, 1, "Forbidden skill(s) were not used: xlsx", ""},
		{"forbidden object", "not-skill-used", `{"value": {"name": "pdf", "max": 0}}`, nil, 0, `Forbidden skill "pdf" was used 1 time(s)`, ""},
		// 5.x inverts skill-used for negate and negates the score again (skill-used.ts:32, orchestrator.ts:3312).
		{"negate inverts twice", "skill-used", `{"value": ["pdf", "xlsx"], "negate": true}`, nil, 1, "", ""},
		{"provider metadata wins", "skill-used", `{"value": "reported"}`,
			map[string]any{"skill_calls": []any{map[string]any{"name": "reported"}, map[string]any{"name": "csv-analyzer", "isError": true}}}, 1, "Actual skills: reported", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			spec := loadedSpec(t, "skill", tt.typ, tt.settings)
			in := riskInput(riskCase(t.TempDir(), spec), "done")
			in.Response.OutputMessages = output
			in.Response.Metadata = tt.metadata
			in.Target.Kind = cmp.Or(tt.kind, targets.KindClaude)
			res := Evaluate(t.Context(), in, &Options{}).Results[0]
			if res.Error != "" || res.Score != tt.score {
				t.Errorf("score %v error %q, want %v (hits %q misses %q)", res.Score, res.Error, tt.score, res.Hits, res.Misses)
			}
			if all := strings.Join(append(res.Hits, res.Misses...), "|"); !strings.Contains(all, tt.text) {
				t.Errorf("texts %q lack %q", all, tt.text)
			}
		})
	}
}

// FuzzV5Settings reads fuzzed settings of the AgentV 5.x types, and scores the ones that
// need no process or call.
func FuzzV5Settings(f *testing.F) {
	f.Add("trajectory:tool-used", `{"value": {"name": "a*", "min": 1, "max": 3}}`)
	f.Add("trajectory:tool-sequence", `{"value": {"mode": "exact", "steps": ["a", {"pattern": "b?", "type": ["tool"]}]}}`)
	f.Add("trajectory:tool-args-match", `{"value": {"name": "a", "args": {"x": [1, {"y": 2}]}, "ignore": "z*", "defaults": {"k": 1}}}`)
	f.Add("skill-used", `{"value": {"pattern": "pdf*", "max": 0}}`)
	// Settings only for these (evaluating them would start processes or calls).
	f.Add("javascript", `{"value": "file://a.js:fn", "threshold": 0.5, "config": {"k": 1}}`)
	f.Add("python", `{"value": "x\nreturn 1"}`)
	f.Add("webhook", `{"value": "http://127.0.0.1:1/x"}`)
	f.Add("similar", `{"value": "v", "provider": {"base_url": "http://127.0.0.1:1", "model": "m"}, "config": {"embedding_provider": 1}}`)
	f.Add("assert-set", `{"threshold": 1, "config": {"a": 1}, "assert": [{"type": "trajectory:tool-used", "value": "a"}]}`)
	f.Fuzz(func(t *testing.T, typ, settings string) {
		et, ok := suite.LookupEvaluator(typ)
		if !ok || !json.Valid([]byte(settings)) {
			return
		}
		parsed, err := et.Parse(&suite.EvaluatorSpec{Type: typ, Settings: json.RawMessage(settings)})
		if err != nil || typ == "javascript" || typ == "python" || typ == "webhook" || typ == "similar" || typ == "assert-set" {
			return // only the settings: these would start processes or make calls (a set through its members)
		}
		spec := &suite.EvaluatorSpec{Name: "x", Type: typ, Weight: 1, Settings: json.RawMessage(settings), Parsed: parsed}
		in := riskInput(riskCase(t.TempDir(), spec), "done")
		in.Response.OutputMessages = trajectoryOutput
		_ = Evaluate(t.Context(), in, &Options{}) // must not panic
	})
}

// loadedSpec is an entry as the loader leaves it: its settings parsed (Parsed set), which is
// where the trajectory types take over `negate`.
func loadedSpec(t *testing.T, name, typ, settings string) *suite.EvaluatorSpec {
	t.Helper()
	spec := &suite.EvaluatorSpec{Name: name, Type: typ, Weight: 1, Settings: json.RawMessage(settings)}
	et, ok := suite.LookupEvaluator(typ)
	if !ok {
		t.Fatalf("type %q is not registered", typ)
	}
	parsed, err := et.Parse(spec)
	if err != nil {
		t.Fatal(err)
	}
	spec.Parsed = parsed
	return spec
}
