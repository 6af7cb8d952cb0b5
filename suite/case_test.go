package suite

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// msgView is a compact, comparable rendering of a message.
type msgView struct {
	Role, Content, ToolCalls string
}

func viewMessages(ms []Message) []msgView {
	var out []msgView
	for _, m := range ms {
		v := msgView{Role: m.Role, ToolCalls: string(m.ToolCalls)}
		switch m.Content.Kind {
		case ContentText:
			v.Content = "text:" + m.Content.Text
		case ContentStructured:
			v.Content = "json:" + string(m.Content.Structured)
		case ContentSegments:
			var parts []string
			for _, s := range m.Content.Segments {
				switch {
				case s.Raw != nil:
					parts = append(parts, "raw:"+string(s.Raw))
				case s.Type == "file":
					parts = append(parts, "file:"+s.Path)
				default:
					parts = append(parts, s.Type+":"+s.Value)
				}
			}
			v.Content = "segs:" + strings.Join(parts, "|")
		}
		out = append(out, v)
	}
	return out
}

func TestInputForms(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		yaml string // case body (indented under "- id: c")
		want []msgView
	}{
		{"input string", "input: What is 2+2?", []msgView{{Role: "user", Content: "text:What is 2+2?"}}},
		{"question", "question: Capital of France?", []msgView{{Role: "user", Content: "text:Capital of France?"}}},
		{"input list", "input:\n  - {role: system, content: Be brief.}\n  - {role: user, content: Hi}",
			[]msgView{{Role: "system", Content: "text:Be brief."}, {Role: "user", Content: "text:Hi"}}},
		{"input single message", "input: {role: user, content: Hi}", []msgView{{Role: "user", Content: "text:Hi"}}},
		{"input_messages wins over input and question", "input_messages: [{role: user, content: canonical}]\ninput: alias\nquestion: other",
			[]msgView{{Role: "user", Content: "text:canonical"}}},
		{"input wins over question", "input: alias\nquestion: other", []msgView{{Role: "user", Content: "text:alias"}}},
		{"number content is text", "input_messages: [{role: user, content: 42}]", []msgView{{Role: "user", Content: "text:42"}}},
		{"structured content keeps key order and YAML 1.2 scalars",
			"input_messages:\n  - role: user\n    content: {zeta: 1, alpha: yes, when: 2025-01-01, n: 0x1F, f: 1.50, big: 12345678901234567890, none: ~, ok: true}",
			[]msgView{{Role: "user", Content: `json:{"zeta":1,"alpha":"yes","when":"2025-01-01","n":31,"f":1.5,"big":12345678901234567890,"none":null,"ok":true}`}}},
		{"segments with other item types kept raw",
			"input_messages:\n  - role: user\n    content:\n      - {type: text, value: Look}\n      - {type: image, url: x.png}",
			[]msgView{{Role: "user", Content: `segs:text:Look|raw:{"type":"image","url":"x.png"}`}}},
		{"list that is not segments is structured", "input_messages:\n  - role: user\n    content: [a, b]",
			[]msgView{{Role: "user", Content: `json:["a","b"]`}}},
		{"tool_calls verbatim", "input_messages:\n  - role: user\n    content: hi\n  - role: assistant\n    tool_calls:\n      - {tool: Read, input: {filePath: a.txt, mode: r}}",
			[]msgView{{Role: "user", Content: "text:hi"}, {Role: "assistant", ToolCalls: `[{"tool":"Read","input":{"filePath":"a.txt","mode":"r"}}]`}}},
		{"merge keys", "input_messages:\n  - &base {role: user, content: base}\n  - <<: *base\n    content: merged",
			[]msgView{{Role: "user", Content: "text:base"}, {Role: "user", Content: "text:merged"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := loadYAMLString(t, "evalcases:\n  - id: c\n"+indent(tt.yaml, "    "))
			c := onlyCase(t, s)
			if diff := cmp.Diff(tt.want, viewMessages(c.Input)); diff != "" {
				t.Errorf("input (-want +got):\n%s", diff)
			}
		})
	}
}

func TestExpectedShorthands(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		yaml string
		want []msgView
	}{
		{"string", "expected_output: \"4\"", []msgView{{Role: "assistant", Content: "text:4"}}},
		{"number", "expected_output: 4", []msgView{{Role: "assistant", Content: "text:4"}}},
		{"object", "expected_output: {riskLevel: High}", []msgView{{Role: "assistant", Content: `json:{"riskLevel":"High"}`}}},
		{"single message", "expected_output: {role: assistant, content: done}", []msgView{{Role: "assistant", Content: "text:done"}}},
		{"message list", "expected_output:\n  - {role: assistant, content: a}\n  - {role: tool, content: b}",
			[]msgView{{Role: "assistant", Content: "text:a"}, {Role: "tool", Content: "text:b"}}},
		{"other list", "expected_output: [1, {a: 2}]", []msgView{{Role: "assistant", Content: `json:[1,{"a":2}]`}}},
		{"expected_messages canonical wins", "expected_messages: [{role: assistant, content: canon}]\nexpected_output: alias",
			[]msgView{{Role: "assistant", Content: "text:canon"}}},
		{"absent", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			body := "input: hi\n" + tt.yaml
			c := onlyCase(t, loadYAMLString(t, "evalcases:\n  - id: c\n"+indent(body, "    ")))
			if diff := cmp.Diff(tt.want, viewMessages(c.Expected)); diff != "" {
				t.Errorf("expected (-want +got):\n%s", diff)
			}
		})
	}
}

func TestOutcomeAndCaseListAliases(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, yaml, wantOutcome string
	}{
		{"expected_outcome", "evalcases:\n  - {id: c, input: hi, expected_outcome: canon}", "canon"},
		{"outcome alias", "evalcases:\n  - {id: c, input: hi, outcome: alias}", "alias"},
		{"canonical wins", "evalcases:\n  - {id: c, input: hi, outcome: alias, expected_outcome: canon}", "canon"},
		{"cases key", "cases:\n  - {id: c, input: hi, outcome: x}", "x"},
		{"eval_cases key", "eval_cases:\n  - {id: c, input: hi, outcome: y}", "y"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := onlyCase(t, loadYAMLString(t, tt.yaml))
			if c.ExpectedOutcome != tt.wantOutcome {
				t.Errorf("ExpectedOutcome = %q, want %q", c.ExpectedOutcome, tt.wantOutcome)
			}
		})
	}
}

func TestSuiteHeader(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, yaml, dataset, target string
	}{
		{"defaults", "evalcases: [{id: c, input: hi}]", "eval", ""},
		{"dataset and root target", "dataset: smoke\ntarget: legacy\nevalcases: [{id: c, input: hi}]", "smoke", "legacy"},
		{"execution.target wins", "target: legacy\nexecution: {target: new}\nevalcases: [{id: c, input: hi}]", "eval", "new"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := loadYAMLString(t, tt.yaml)
			c := onlyCase(t, s)
			if s.Dataset != tt.dataset || s.Target != tt.target || c.Dataset() != tt.dataset {
				t.Errorf("dataset %q target %q, want %q %q", s.Dataset, s.Target, tt.dataset, tt.target)
			}
		})
	}
}

func TestReferenceAnswer(t *testing.T) {
	t.Parallel()
	files := map[string]string{"ref.txt": "line1\r\nline2\r\n"}
	tests := []struct {
		name    string
		yaml    string
		want    string
		wantHas bool
	}{
		{"none", "", "", false},
		{"explicit wins", "expected_output: derived\nreference_answer: explicit", "explicit", true},
		{"explicit mapping is pretty JSON", "reference_answer: {a: 1}", "{\n  \"a\": 1\n}", true},
		{"from last text message", "expected_output:\n  - {role: assistant, content: first}\n  - {role: assistant, content: last}", "last", true},
		{"structured pretty JSON in key order", "expected_output: {b: 1, a: [x]}", "{\n  \"b\": 1,\n  \"a\": [\n    \"x\"\n  ]\n}", true},
		{"tool calls only", "expected_output:\n  - role: assistant\n    tool_calls: [{tool: Read}]", "[\n  {\n    \"tool\": \"Read\"\n  }\n]", true},
		{"segments with resolved file", "expected_messages:\n  - role: assistant\n    content:\n      - {type: text, value: See}\n      - {type: file, value: ref.txt}\n      - {type: file, value: missing.txt}",
			"[\n  {\n    \"type\": \"text\",\n    \"value\": \"See\"\n  },\n  {\n    \"type\": \"file\",\n    \"path\": \"ref.txt\",\n    \"text\": \"line1\\nline2\\n\",\n    \"resolvedPath\": \"ROOT/ref.txt\"\n  }\n]", true},
		{"no HTML escaping", "expected_output: {html: \"<b>&</b>\"}", "{\n  \"html\": \"<b>&</b>\"\n}", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fs := map[string]string{"eval.yaml": "evalcases:\n  - id: c\n" + indent("input: hi\n"+tt.yaml, "    ")}
			for k, v := range files {
				fs[k] = v
			}
			root := writeTree(t, fs)
			s := Load(root+"/eval.yaml", LoadOptions{Cwd: root})
			var c *Case
			if len(s.Cases) == 1 {
				c = s.Cases[0]
			} else {
				t.Fatalf("cases: %d\n%s", len(s.Cases), formatDiags(s.Diagnostics))
			}
			got := strings.ReplaceAll(c.ReferenceAnswer, root, "ROOT")
			if got != tt.want || c.HasReference != tt.wantHas {
				t.Errorf("reference = %q (has %v), want %q (has %v)", got, c.HasReference, tt.want, tt.wantHas)
			}
		})
	}
}

func TestQuestion(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, yaml, want string
	}{
		{"single", "input: \"  padded  \"", "padded"},
		{"all roles joined", "input_messages:\n  - {role: system, content: Sys}\n  - {role: user, content: Q1}\n  - {role: assistant, content: A1}\n  - {role: user, content: \"  \"}",
			"Sys Q1 A1"},
		{"structured as pretty JSON", "input_messages:\n  - {role: user, content: {k: v}}", "{\n  \"k\": \"v\"\n}"},
		{"text segments only, not files", "input_messages:\n  - role: user\n    content:\n      - {type: text, value: \" one \"}\n      - {type: file, value: f.md}\n      - {type: text, value: two}",
			"one two"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := writeTree(t, map[string]string{"f.md": "FILE TEXT", "eval.yaml": "evalcases:\n  - id: c\n" + indent(tt.yaml, "    ")})
			c := onlyCase(t, Load(root+"/eval.yaml", LoadOptions{Cwd: root}))
			if c.Question != tt.want {
				t.Errorf("Question = %q, want %q", c.Question, tt.want)
			}
		})
	}
}

func TestDuplicateIDs(t *testing.T) {
	t.Parallel()
	s := loadYAMLString(t, "evalcases:\n  - {id: a, input: one}\n  - {id: b, input: two}\n  - {id: a, input: three}\n")
	if got := len(s.Cases); got != 2 {
		t.Fatalf("got %d cases, want 2", got)
	}
	if s.Cases[0].Input[0].Content.Text != "one" {
		t.Errorf("first definition must be kept, got %q", s.Cases[0].Input[0].Content.Text)
	}
	d := requireDiag(t, s.Diagnostics, SeverityError, `duplicate case id "a"`, "line 2", "line 4")
	if d.Line != 4 || d.CaseID != "a" || d.Kind != KindDuplicateID {
		t.Errorf("diagnostic = %+v", d)
	}
}

func TestCaseErrorsKeepOtherCases(t *testing.T) {
	t.Parallel()
	s := loadYAMLString(t, "evalcases:\n  - {input: no id}\n  - {id: no-input}\n  - {id: ok, input: hi}\n  - {id: bad-eval, input: hi, evaluators: [{type: nope}]}\n")
	if len(s.Cases) != 1 || s.Cases[0].ID != "ok" {
		t.Fatalf("cases = %v", s.Cases)
	}
	if n := len(diagMessages(s.Diagnostics, SeverityError)); n != 3 {
		t.Errorf("got %d errors, want 3:\n%s", n, formatDiags(s.Diagnostics))
	}
}

func TestUnknownKeysAreWarnings(t *testing.T) {
	t.Parallel()
	s := loadYAMLString(t, "evalcases:\n  - id: a\n    input: hi\n    expected_outcom: x\n")
	c := onlyCase(t, s)
	d := requireDiag(t, s.Diagnostics, SeverityWarning, `unknown key "expected_outcom"`, `did you mean "expected_outcome"`)
	if d.Line != 4 || d.Col != 5 || d.CaseID != "a" {
		t.Errorf("position %d:%d case %q", d.Line, d.Col, d.CaseID)
	}
	if c.ExpectedOutcome != "" {
		t.Errorf("typo key must not set the outcome")
	}
}

func TestUnsupportedAndMissingFiles(t *testing.T) {
	t.Parallel()
	root := writeTree(t, map[string]string{"notes.txt": "{}"})
	tests := []struct{ path, want string }{
		{"notes.txt", `unsupported file format ".txt"`},
		{"absent.yaml", "no such file"},
		{".", "unsupported file format"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			t.Parallel()
			s := Load(tt.path, LoadOptions{Cwd: root})
			_ = requireDiag(t, s.Diagnostics, SeverityError, tt.want)
			if len(s.Cases) != 0 {
				t.Errorf("cases loaded from a bad file")
			}
		})
	}
}

func TestCaseLevelTarget(t *testing.T) {
	t.Parallel()
	c := onlyCase(t, loadYAMLString(t, "evalcases:\n  - {id: a, input: hi, conversation_id: conv, execution: {target: special}}\n"))
	if c.Target != "special" || c.ConversationID != "conv" {
		t.Errorf("target %q conversation %q", c.Target, c.ConversationID)
	}
}

func TestHeaderTypeProblems(t *testing.T) {
	t.Parallel()
	s := loadYAMLString(t, "description: [not, text]\nevalcases: [{id: c, input: hi}]\n")
	onlyCase(t, s)
	_ = requireDiag(t, s.Diagnostics, SeverityWarning, `"description" should be a string, got a list (ignored)`)

	s = loadYAMLString(t, "dataset: {a: 1}\nexecution: [x]\nevalcases: [{id: c, input: hi}]\n")
	_ = requireDiag(t, s.Diagnostics, SeverityError, `"dataset" must be a string, got a mapping`)
	_ = requireDiag(t, s.Diagnostics, SeverityError, `"execution" must be a mapping with target and evaluators, got a list`)
}

// A slip of accented letters is as near as one of plain letters: distances count characters,
// not UTF-8 bytes (two accents are four bytes apart from "timeout" but two letters).
func TestUnknownKeySuggestionCountsCharacters(t *testing.T) {
	t.Parallel()
	s := loadYAMLString(t, "evalcases:\n  - id: a\n    input: hi\n    expected_outcöme: x\n")
	_ = requireDiag(t, s.Diagnostics, SeverityWarning, `unknown key "expected_outcöme"`, `did you mean "expected_outcome"`)
	s = loadYAMLString(t, "evalcases:\n  - id: a\n    input: hi\n    expëcted_outcöme: x\n")
	_ = requireDiag(t, s.Diagnostics, SeverityWarning, `unknown key "expëcted_outcöme"`, `did you mean "expected_outcome"`)
}
