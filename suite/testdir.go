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
func (l *loader) isTestDir(rel string) (string, bool) {
	if strings.ContainsAny(rel, "*?{") {
		return "", false
	}
	abs := absPath(l.s.Dir, rel)
	fi, err := os.Stat(abs)
	return abs, err == nil && fi.IsDir()
}

// v4TestDir loads `tests: <directory>` as AgentV 4.x does: each subdirectory, in name order, is
// one test in its case.yaml (or case.yml), its id defaulting to the subdirectory's name.
func (l *loader) v4TestDir(sx *v4Suite, at *yaml.Node, dir string) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		l.errorf(at, KindFile, "", "could not read test directory %q: %s", displayPath(dir, l.cwd), errText(err))
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
		l.warnf(at, KindStructure, "", "test directory %q has no test subdirectories (each holds a case.yaml)", displayPath(dir, l.cwd))
		return
	}
	for _, name := range subs {
		file := caseFile(filepath.Join(dir, name))
		if file == "" {
			l.warnf(at, KindMissingFile, "", "test directory %q skipped: it has no case.yaml", displayPath(filepath.Join(dir, name), l.cwd))
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
func (l *loader) v4CaseFile(sx *v4Suite, abs, id string) {
	src, err := safefile.ReadFile(abs, safefile.LimitEvalFile)
	defer l.inFile(abs)()
	if err != nil {
		l.errorf(nil, KindFile, "", "could not read test file: %s", errText(err))
		return
	}
	doc := l.v4Doc(src)
	if doc == nil {
		return
	}
	n := l.rootOf(doc, yaml.MappingNode, func(got string) string {
		return fmt.Sprintf("a case file must be a mapping with the test's input and assertions, got %s (case %q not loaded)", got, id)
	})
	if n == nil {
		return
	}
	if valueOf(n, "id") == nil {
		m := mapping(n, "id", strNode(n, id))
		m.Content = append(m.Content, n.Content...)
		n = m
	}
	if fi, err := os.Stat(filepath.Join(filepath.Dir(abs), "workspace")); err == nil && fi.IsDir() && valueOf(n, "workspace") == nil {
		l.warnf(&yaml.Node{Line: n.Line, Column: n.Column}, KindIgnored, valueOf(n, "id").Value,
			"the test's workspace/ directory is not supported yet (ignored)")
	}
	l.addCase(l.v4Test(sx, n))
}
