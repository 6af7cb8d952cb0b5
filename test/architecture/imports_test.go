// Package architecture checks the shape of the code: which package may import which.
package architecture_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/agentv/action"

// house lists the packages from the ground up, as docs/architecture.md draws them: a case
// walks from the eval file (suite) to the reports in this order. A package may import
// packages of its own floor or below, never above: then each stage sees only what came
// before it, and a new dialect, grader, provider or output touches one floor.
//
// Leaf utilities (internal/…, stats, sdk) are the ground floor and import nothing of the
// module but each other. Test support (internal/suitegen, suite/internal/suitetest, test/…,
// action/actiontest, bench/…) stands beside the house and may import anything.
var house = [][]string{
	{"internal/*", "stats", "sdk"},
	{"suite"}, // the model of a suite, and the dialects it reads itself (2.5, 4.x)
	// the newer dialects' front-ends, which register with suite; frontends imports them all
	{"suite/agentv5", "suite/promptfoo", "suite/frontends"},
	{"migrate"},                             // 2.5 and 4.x files rewritten as 5.x (agentv migrate)
	{"targets", "results"},                  // targets files; the record of a finished case
	{"providers"},                           // talking to models and agents
	{"cache", "prompt"},                     // replaying answers; formatting a case into a request
	{"evaluators"},                          // graders
	{"gate"},                                // the outcome of a run
	{"config"},                              // a run's settings, filled by flags, Action inputs and environment
	{"plan", "workspace"},                   // choosing each case's target and judge; the suite's directory
	{"runner"},                              // running jobs in pools
	{"compare", "history"},                  // a run against a baseline; a suite across runs
	{"report", "report/htmlreport", "otlp"}, // rendered reports; OTLP traces
	{"action"},                              // the GitHub Actions adapter
	{"cmd/agentv"},                          // the command: wires settings to the stages
}

var beside = []string{"internal/suitegen", "suite/internal/*", "test/*", "action/actiontest*", "bench/*"}

func floor(pkg string) (int, bool) {
	for i, f := range house {
		for _, p := range f {
			if match(p, pkg) {
				return i, true
			}
		}
	}
	return 0, false
}

func match(pattern, pkg string) bool {
	if prefix, ok := strings.CutSuffix(pattern, "*"); ok {
		return strings.HasPrefix(pkg, prefix)
	}
	return pkg == pattern
}

func isBeside(pkg string) bool {
	for _, p := range beside {
		if match(p, pkg) {
			return true
		}
	}
	return false
}

// TestImportsGoDownTheHouse fails on an import from a lower floor to a higher one, and on a
// package the house does not place.
func TestImportsGoDownTheHouse(t *testing.T) {
	t.Parallel()
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	fset := token.NewFileSet()
	checked := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		pkg := filepath.ToSlash(rel)
		if pkg == "." || isBeside(pkg) {
			return nil
		}
		from, ok := floor(pkg)
		if !ok {
			t.Errorf("%s: package %s has no floor in the house: add it to house in this file and to docs/architecture.md", path, pkg)
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		checked++
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			dep, ok := strings.CutPrefix(p, module+"/")
			if !ok {
				continue
			}
			to, known := floor(dep)
			if known && to > from {
				t.Errorf("%s: %s (floor %d) imports %s (floor %d), which is above it", fset.Position(imp.Pos()), pkg, from, dep, to)
			}
			if from == 0 && to == 0 && !strings.HasPrefix(pkg, "internal/") && pkg != dep {
				t.Errorf("%s: the leaf %s imports %s: leaves stand alone", fset.Position(imp.Pos()), pkg, dep)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 100 {
		t.Fatalf("checked only %d files: is the walk looking at the module?", checked)
	}
}
