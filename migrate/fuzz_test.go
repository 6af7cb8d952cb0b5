package migrate

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzFile: migrate never panics on any input, and what it writes reads back as a file it
// can migrate again.
func FuzzFile(f *testing.F) {
	ins, _ := filepath.Glob(filepath.Join("testdata", "*", "in.yaml"))
	for _, in := range ins {
		if src, err := os.ReadFile(in); err == nil {
			f.Add(src)
		}
	}
	f.Add([]byte("tests: &a [*a]\n"))
	f.Add([]byte("tests:\n  - &t {id: a, input: x, assertions: [{type: rubrics, criteria: [a]}]}\n  - *t\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		res, err := File("fuzz.yaml", src)
		if err != nil {
			return
		}
		if res.Changed {
			if _, err := File("fuzz.yaml", res.Out); err != nil {
				t.Fatalf("the migrated file does not read again: %v\n--- in:\n%s\n--- out:\n%s", err, src, res.Out)
			}
		}
	})
}
