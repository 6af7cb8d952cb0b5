package suite

import (
	"os"
	"path/filepath"
	"testing"
)

// TestV4Metadata: a test's metadata reaches graders merged with the file's as AgentV 4.42.4
// merges them (checked by running it: its code grader's stdin `metadata`), user keys as written
// and vars not substituted.
func TestV4Metadata(t *testing.T) {
	t.Parallel()
	src := `metadata:
  owner: team-a
  tags: [x, shared]
  nested: {a: 1, list: [1]}
tests:
  - id: merged
    input: hi
    criteria: ok
    metadata:
      riskLevel: high
      owner: me
      tags: [shared, y]
      nested: {b: 2, list: [1, 2]}
  - id: inherited
    input: hi
    criteria: ok
  - id: vars
    input: hi
    criteria: ok
    vars: {who: ops}
    metadata: {team: "{{who}}"}
`
	want := map[string]string{
		"merged":    `{"riskLevel":"high","owner":"me","tags":["x","shared","y"],"nested":{"b":2,"list":[1,2],"a":1}}`,
		"inherited": `{"owner":"team-a","tags":["x","shared"],"nested":{"a":1,"list":[1]}}`,
		"vars":      `{"team":"{{who}}","owner":"team-a","tags":["x","shared"],"nested":{"a":1,"list":[1]}}`,
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "EVAL.yaml")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	s := Load(path, LoadOptions{Cwd: dir})
	if len(s.Diagnostics) > 0 {
		t.Fatalf("diagnostics:\n%s", formatDiags(s.Diagnostics))
	}
	for _, c := range s.Cases {
		if got := string(c.Metadata); got != want[c.ID] {
			t.Errorf("%s: metadata %s\nwant %s", c.ID, got, want[c.ID])
		}
	}

	// No metadata anywhere: none; a metadata that is not a mapping: a warning, none.
	src = "metadata: [1]\ntests:\n  - id: a\n    input: hi\n    criteria: ok\n    metadata: text\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	s = Load(path, LoadOptions{Cwd: dir})
	if len(s.Diagnostics) != 2 || len(s.Cases) != 1 || s.Cases[0].Metadata != nil {
		t.Errorf("non-mapping metadata: cases %d, metadata %s, diagnostics:\n%s", len(s.Cases), s.Cases[0].Metadata, formatDiags(s.Diagnostics))
	}
}
