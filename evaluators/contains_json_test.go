package evaluators

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentv/action/suite"
)

// TestExtractJSONObjects: the objects promptfoo's extractJsonObjects finds in a text.
func TestExtractJSONObjects(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, text string
		want       []string // each object as JSON
	}{
		{"none", "no json here", nil},
		{"array only", "[1, 2, 3]", nil},
		{"whole object", `{"a": 1}`, []string{`{"a":1}`}},
		{"embedded, two", `x {"ok": true} y {"n": [1, {"m": 2}]} z`, []string{`{"ok":true}`, `{"n":[1,{"m":2}]}`}},
		{"yaml flow mapping counts", `see {a: 1, b: two}`, []string{`{"a":1,"b":"two"}`}},
		{"unclosed at the end gets its braces", `start {"a": {"b": 1`, []string{`{"a":{"b":1}}`}},
		{"a brace that reads as no YAML is skipped", `a {5, 6]} then {"k": "v"}`, []string{`{"k":"v"}`}},
		{"prose in braces is a YAML mapping", `a { not json }`, []string{`{"not json":null}`}},
		{"slash comments", "{\n  \"a\": 1, // one\n  \"u\": \"http://x\"\n}", []string{`{"a":1,"u":"http://x"}`}},
		{"duplicate keys: the last wins", `{"a": 1, "a": 2}`, []string{`{"a":2}`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got []string
			for _, o := range extractJSONObjects(tt.text) {
				b, err := json.Marshal(o)
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, string(b))
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestSlashCommentsToHash(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		`a // b`:                  `a # b`,
		`a //// b`:                `a ## b`,
		`"x // y" // z`:           `"x // y" # z`,
		`u: http://host/p // c`:   `u: http://host/p # c`,
		`it's // here`:            `it's # here`,
		`'quoted // not' // yes`:  `'quoted // not' # yes`,
		"l1 // a\nl2 \"//\" // b": "l1 # a\nl2 \"//\" # b",
	} {
		if got := slashCommentsToHash(in); got != want {
			t.Errorf("slashCommentsToHash(%q) = %q, want %q", in, got, want)
		}
	}
}

func schemaSpec(typ, value string, negate bool) *suite.EvaluatorSpec {
	s := `{"type": "` + typ + `"`
	if value != "" {
		s += `, "value": ` + value
	}
	if negate {
		s += `, "negate": true`
	}
	return &suite.EvaluatorSpec{Name: typ, Type: typ, Weight: 1, Settings: json.RawMessage(s + "}")}
}

// TestJSONSchemaAssertions: is-json and contains-json with and without a schema, under
// promptfoo's rules and, for is-json, AgentV's (which ignore the value).
func TestJSONSchemaAssertions(t *testing.T) {
	t.Parallel()
	const person = `{"type": "object", "required": ["name", "age"], "properties": {"name": {"type": "string"}, "age": {"type": "number"}}}`
	tests := []struct {
		name      string
		spec      *suite.EvaluatorSpec
		answer    string
		agentv    bool // AgentV's rules instead of promptfoo's
		score     float64
		miss, err string
	}{
		{"is-json valid, no schema", schemaSpec("is-json", "", false), `{"a": 1}`, false, 1, "", ""},
		{"is-json conforms", schemaSpec("is-json", person, false), `{"name": "Ada", "age": 36}`, false, 1, "", ""},
		{"is-json misses a field", schemaSpec("is-json", person, false), `{"name": "Ada"}`, false, 0, "missing property 'age'", ""},
		{"is-json: AgentV ignores the schema", schemaSpec("is-json", person, false), `{"name": "Ada"}`, true, 1, "", ""},
		{"is-json schema as YAML text", schemaSpec("is-json", `"type: object\nproperties:\n  count: {type: string}\n"`, false), `{"count": 2}`, false, 0, "want string", ""},
		{"is-json not JSON: the schema is not asked", schemaSpec("is-json", person, false), `nope`, false, 0, "not valid JSON", ""},
		{"not-is-json conforming", schemaSpec("is-json", person, true), `{"name": "Ada", "age": 1}`, false, 0, "", ""},
		{"not-is-json not JSON", schemaSpec("is-json", person, true), `nope`, false, 1, "", ""},
		{"is-json format asserted", schemaSpec("is-json", `{"type": "string", "format": "email"}`, false), `"not-an-email"`, false, 0, "email", ""},
		{"is-json pattern is JavaScript's", schemaSpec("is-json", `{"type": "string", "pattern": "^(?=a)\\w+$"}`, false), `"abc"`, false, 1, "", ""},
		{"is-json bad schema under promptfoo's rules", schemaSpec("is-json", `{"type": "nope"}`, false), `{}`, false, 0, "", "not a valid JSON schema"},
		{"is-json bad schema ignored by AgentV", schemaSpec("is-json", `{"type": "nope"}`, false), `{}`, true, 1, "", ""},
		{"contains-json found", schemaSpec("contains-json", "", false), `Here: {"ok": true}.`, false, 1, "", ""},
		{"contains-json none", schemaSpec("contains-json", "", false), `plain`, false, 0, "does not contain valid JSON", ""},
		{"contains-json second object conforms", schemaSpec("contains-json", `{"required": ["ok"]}`, false), `{"x": 1} and {"ok": 1}`, false, 1, "", ""},
		{"contains-json none conforms", schemaSpec("contains-json", `{"required": ["missing"]}`, false), `{"x": 1}`, false, 0, "missing property 'missing'", ""},
		{"not-contains-json none", schemaSpec("contains-json", "", true), `plain`, false, 1, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := riskCase(t.TempDir(), tt.spec)
			c.Suite.Grading = suite.GradingRulesOf(suite.Dialect5)
			if !tt.agentv {
				c.Suite.Grading = pfRules()
				c.Suite.Grading.JSONSchemaValue, c.Suite.Grading.GraderErrorFails = true, true
			}
			out := Evaluate(t.Context(), riskInput(c, tt.answer), &Options{})
			r := out.Results[0]
			if r.Score != tt.score {
				t.Errorf("score %v, want %v (%+v)", r.Score, tt.score, r)
			}
			if tt.miss != "" && !strings.Contains(strings.Join(r.Misses, "\n"), tt.miss) {
				t.Errorf("misses %q, want one with %q", r.Misses, tt.miss)
			}
			if tt.err != "" && !strings.Contains(r.Error+strings.Join(r.Misses, "\n"), tt.err) {
				t.Errorf("error %q misses %q, want %q", r.Error, r.Misses, tt.err)
			}
		})
	}
}

// TestContainsJSONBadSchema: a contains-json value that is no schema is a load error.
func TestContainsJSONBadSchema(t *testing.T) {
	t.Parallel()
	for value, want := range map[string]string{
		`{"type": 5}`:                         "not a valid JSON schema",
		`[1]`:                                 "must be a JSON schema",
		`true`:                                "got a boolean",
		`"- a\n- b"`:                          "got a list",
		`"file://s.json"`:                     "not supported",
		`{"type": "object", "propertes": {}}`: `at '/propertes': unknown keyword "propertes"`,
		`{"properties": {"a": {"items": [{"typ": "string"}]}}}`: `at '/properties/a/items/0/typ': unknown keyword`,
		`{"type": "string", "format": "emial"}`:                 `at '/format': unknown format "emial"`,
	} {
		_, err := parseContainsJSON(schemaSpec("contains-json", value, false))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("value %s: error %v, want one with %q", value, err, want)
		}
	}
	// Every keyword Ajv knows compiles, the metadata ones included.
	ok := `{"$comment": "c", "title": "t", "type": ["object", "null"], "nullable": true, "examples": [{}],
		"properties": {"d": {"type": "string", "format": "date-time", "deprecated": true}},
		"dependencies": {"a": ["b"], "c": {"required": ["d"]}}, "if": {"required": ["a"]}, "then": {"minProperties": 2}}`
	if _, err := parseContainsJSON(schemaSpec("contains-json", ok, false)); err != nil {
		t.Errorf("a schema of known keywords: %v", err)
	}
}
