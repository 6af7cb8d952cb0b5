package agentv5

import (
	"testing"

	"github.com/agentv/action/suite"

	yaml "go.yaml.in/yaml/v4"
)

// TestV5MergeScenarioRow: a config row and a test row make one test as 5.3.1-next.1's
// mergeScenarioTestRows does: ids, merged mappings, joined assertions, the test's fields over
// the config's.
func TestV5MergeScenarioRow(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, config, test string
		count              int
		want               string // the merged test as JSON
	}{
		{"generated id", "{}", "{vars: {a: 1}}", 1, `{"vars":{"a":1},"id":"scenario-2-3-4"}`},
		{"test id wins", "{id: c}", "{id: t}", 2, `{"id":"t"}`},
		{"config id alone", "{id: c}", "{}", 1, `{"id":"c"}`},
		{"config id per test", "{id: c}", "{}", 3, `{"id":"c__scenario_test_4"}`},
		{"blank ids", "{id: ' '}", "{id: ''}", 1, `{"id":"scenario-2-3-4"}`},
		{"vars merged, test over config", "{vars: {a: 1, b: 2}}", "{vars: {b: 3}}", 1, `{"vars":{"a":1,"b":3},"id":"scenario-2-3-4"}`},
		{"metadata, options and run merged", "{metadata: {x: 1}, options: {o: 1}, run: {threshold: 0.5}}", "{metadata: {y: 2}, run: {threshold: 0.7}}", 1,
			`{"metadata":{"x":1,"y":2},"options":{"o":1},"run":{"threshold":0.7},"id":"scenario-2-3-4"}`},
		{"assert joined, config first", "{assert: [{type: contains, value: a}]}", "{assert: [{type: contains, value: b}]}", 1,
			`{"assert":[{"type":"contains","value":"a"},{"type":"contains","value":"b"}],"id":"scenario-2-3-4"}`},
		{"other fields: the test's", "{criteria: c, threshold: 0.1}", "{criteria: t}", 1, `{"criteria":"t","threshold":0.1,"id":"scenario-2-3-4"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := suite.ToJSON(v5MergeScenarioRow(parseMap(t, tc.config), parseMap(t, tc.test), 1, 2, 3, tc.count))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("merged\n got %s\nwant %s", got, tc.want)
			}
		})
	}
}

func parseMap(t *testing.T, src string) *yaml.Node {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Content[0]
}
