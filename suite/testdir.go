package suite

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	yaml "go.yaml.in/yaml/v4"

	"github.com/agentv/action/internal/safefile"
)

// caseFileNames are the file names of one test in a test directory, in the order tried.
var caseFileNames = []string{"case.yaml", "case.yml"}

// isTestDir reports whether `tests: rel` names a directory of tests (not a glob).
func (l *Reader) isTestDir(rel string) (string, bool) {
	if strings.ContainsAny(rel, "*?{") {
		return "", false
	}
	abs := AbsPath(l.Suite.Dir, rel)
	fi, err := os.Stat(abs)
	return abs, err == nil && fi.IsDir()
}

// v4TestDir loads `tests: <directory>` as AgentV 4.x does: each subdirectory, in name order, is
// one test in its case.yaml (or case.yml), its id defaulting to the subdirectory's name.
func (l *Reader) v4TestDir(sx *v4Suite, at *yaml.Node, dir string) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		l.Errorf(at, KindFile, "", "could not read test directory %q: %s", DisplayPath(dir, l.Cwd), ErrText(err))
		return
	}
	var subs []string
	for _, e := range ents {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			subs = append(subs, e.Name())
		}
	}
	sort.Strings(subs)
	if len(subs) == 0 {
		l.Warnf(at, KindStructure, "", "test directory %q has no test subdirectories (each holds a case.yaml)", DisplayPath(dir, l.Cwd))
		return
	}
	for _, name := range subs {
		file := caseFile(filepath.Join(dir, name))
		if file == "" {
			l.Warnf(at, KindMissingFile, "", "test directory %q skipped: it has no case.yaml", DisplayPath(filepath.Join(dir, name), l.Cwd))
			continue
		}
		l.v4CaseFile(sx, file, name)
	}
}

// caseFile returns the case file of a test's directory, or "".
func caseFile(dir string) string {
	for _, n := range caseFileNames {
		p := filepath.Join(dir, n)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p
		}
	}
	return ""
}

// v4CaseFile loads one test from its case file; id is the test's id when the file sets none.
func (l *Reader) v4CaseFile(sx *v4Suite, abs, id string) {
	src, err := safefile.ReadFile(abs, safefile.LimitEvalFile)
	defer l.InFile(abs)()
	if err != nil {
		l.Errorf(nil, KindFile, "", "could not read test file: %s", ErrText(err))
		return
	}
	doc := l.v4Doc(src)
	if doc == nil {
		return
	}
	n := l.RootOf(doc, yaml.MappingNode, func(got string) string {
		return fmt.Sprintf("a case file must be a mapping with the test's input and assertions, got %s (case %q not loaded)", got, id)
	})
	if n == nil {
		return
	}
	if ValueOf(n, "id") == nil {
		m := Mapping(n, "id", StrNode(n, id))
		m.Content = append(m.Content, n.Content...)
		n = m
	}
	if fi, err := os.Stat(filepath.Join(filepath.Dir(abs), "workspace")); err == nil && fi.IsDir() && ValueOf(n, "workspace") == nil {
		l.Warnf(&yaml.Node{Line: n.Line, Column: n.Column}, KindIgnored, ValueOf(n, "id").Value,
			"the test's workspace/ directory is not supported yet (ignored)")
	}
	l.AddCase(l.v4Test(sx, n))
}
