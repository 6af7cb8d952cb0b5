package suite

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	yaml "go.yaml.in/yaml/v4"

	"github.com/agentv/action/internal/safefile"
)

// evalExts are the eval file extensions.
var evalExts = map[string]bool{".yaml": true, ".yml": true, ".jsonl": true}

// Expand turns CLI arguments (files, directories or doublestar globs, relative to cwd) into
// eval file paths: de-duplicated (also across links), sorted, relative to cwd when inside it. A
// .json file (Agent Skills evals.json) is taken when named, or matched as skillsFile says.
// Walking and globbing skip targets files, `.agentv` config, JSONL sidecars and hidden folders,
// and follow no link to a directory below what was named (a link to `..` would repeat the tree,
// one to `/` walk the machine). A pattern that matches nothing is an error.
func Expand(patterns []string, cwd string) ([]string, []Diagnostic) {
	if a, err := filepath.Abs(cwd); err == nil { // "" is the process's working directory
		cwd = a
	}
	var diags []Diagnostic
	bad := func(file, format string, args ...any) {
		diags = append(diags, Diagnostic{File: file, Severity: SeverityError, Kind: KindFile,
			Message: fmt.Sprintf(format, args...)})
	}
	seen := map[string]bool{}
	var out []string
	add := func(files ...string) {
		for _, abs := range files {
			key := abs
			if real, err := filepath.EvalSymlinks(abs); err == nil {
				key = real
			}
			if !seen[key] {
				seen[key] = true
				out = append(out, DisplayPath(abs, cwd))
			}
		}
	}
	if len(patterns) == 0 {
		bad("", "no eval paths given: pass eval files, directories or globs")
	}
	for _, pat := range patterns {
		abs := AbsPath(cwd, pat)
		fi, err := os.Stat(abs)
		switch {
		case err == nil && !fi.IsDir():
			if ext := strings.ToLower(filepath.Ext(abs)); !evalExts[ext] && ext != ".json" {
				bad(DisplayPath(abs, cwd), "%s", unsupportedFormat(ext))
				continue
			}
			add(abs)
		case err == nil:
			found := dropIncluded(walkDir(abs))
			if len(found) == 0 {
				msg := fmt.Sprintf("no eval files (.yaml, .yml, .jsonl) found in directory %q", pat)
				if hasSkillsFile(abs) {
					msg += fmt.Sprintf("; Agent Skills evals.json files run when named or matched by a glob such as %q",
						filepath.ToSlash(filepath.Join(pat, "**", "evals.json")))
				}
				bad(DisplayPath(abs, cwd), "%s", msg)
			}
			add(found...)
		default:
			matches, err := globFiles(abs)
			switch {
			case err != nil:
				bad("", "invalid pattern %q: %v", pat, err)
			case len(matches) == 0:
				bad("", "no eval files matched %q", pat)
			default:
				add(dropIncluded(matches)...)
			}
		}
	}
	sort.Strings(out)
	return out, diags
}

func unsupportedFormat(ext string) string {
	return fmt.Sprintf("unsupported file format %q: eval files must end in .yaml, .yml, .jsonl or .json "+
		"(Agent Skills evals.json)", ext)
}

// skipFile reports whether a file found by walking or globbing is not an eval file.
func skipFile(abs string) bool {
	base := strings.ToLower(filepath.Base(abs))
	ext := filepath.Ext(base)
	if !evalExts[ext] || strings.HasPrefix(base, ".") {
		return true
	}
	switch base {
	case "targets.yaml", "targets.yml":
		return true
	}
	if ext != ".jsonl" {
		// A YAML file beside a JSONL file of the same name is that file's sidecar.
		if _, err := os.Stat(strings.TrimSuffix(abs, filepath.Ext(abs)) + ".jsonl"); err == nil {
			return true
		}
		// A YAML list is a file of tests that a suite includes (`tests: file.yaml`), not a suite.
		return isYAMLList(abs)
	}
	return false
}

// isYAMLList reports whether a YAML file's top level is a list, from its first lines.
func isYAMLList(abs string) bool {
	f, err := safefile.Open(abs) // a FIFO found by a walk must not block it
	if err != nil {
		return false
	}
	defer f.Close()
	buf := make([]byte, 8<<10)
	n, _ := io.ReadFull(f, buf)
	for _, line := range strings.Split(string(buf[:n]), "\n") {
		t := strings.TrimSpace(line)
		if t == "" || t == "---" || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "%") {
			continue
		}
		return strings.HasPrefix(line, "- ") || t == "-" || strings.HasPrefix(line, "[")
	}
	return false
}

// walkFiles visits the files below root, hidden folders and node_modules left out, until visit
// returns false.
func walkFiles(root string, visit func(path string, d fs.DirEntry) bool) {
	_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
		case d.IsDir():
			if path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
		case !visit(path, d):
			return fs.SkipAll
		}
		return nil
	})
}

func walkDir(root string) []string {
	var out []string
	walkFiles(root, func(path string, d fs.DirEntry) bool {
		if (d.Type()&fs.ModeSymlink == 0 || !linksToDir(path)) && !skipFile(path) {
			out = append(out, path)
		}
		return true
	})
	return out
}

// hasSkillsFile reports whether an evals.json lies below root.
func hasSkillsFile(root string) bool {
	found := false
	walkFiles(root, func(_ string, d fs.DirEntry) bool {
		found = strings.EqualFold(d.Name(), "evals.json")
		return !found
	})
	return found
}

// globFiles expands an absolute doublestar pattern; hidden files match only when it names them.
func globFiles(abs string) ([]string, error) {
	pattern := filepath.ToSlash(abs)
	if !doublestar.ValidatePattern(pattern) {
		return nil, doublestar.ErrBadPattern
	}
	base, rest := doublestar.SplitPattern(pattern)
	if rest == "" || base == "" {
		return nil, nil
	}
	matches, err := doublestar.Glob(os.DirFS(filepath.FromSlash(base)), rest,
		doublestar.WithFilesOnly(), doublestar.WithNoHidden(), doublestar.WithNoFollow())
	if err != nil {
		return nil, err
	}
	var out []string
	for _, m := range matches {
		p := filepath.Join(filepath.FromSlash(base), filepath.FromSlash(m))
		// Without following links the glob reports a link to a directory as a file.
		if (!skipFile(p) || skillsFile(p, pattern)) && !inNodeModules(m) && !linksToDir(p) {
			out = append(out, p)
		}
	}
	return out, nil
}

// skillsFile reports whether a glob match is an Agent Skills evals file to run: evals.json, or
// any .json file when the pattern ends in .json. Walking a directory picks none, as in 4.x.
func skillsFile(path, pattern string) bool {
	base := strings.ToLower(filepath.Base(path))
	if filepath.Ext(base) != ".json" || strings.HasPrefix(base, ".") {
		return false
	}
	return base == "evals.json" || strings.HasSuffix(strings.ToLower(pattern), ".json")
}

// linksToDir reports whether path is a symbolic link that leads to a directory.
func linksToDir(path string) bool {
	li, err := os.Lstat(path)
	if err != nil || li.Mode()&fs.ModeSymlink == 0 {
		return false
	}
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

func inNodeModules(rel string) bool {
	return strings.Contains("/"+rel+"/", "/node_modules/")
}

// dropIncluded leaves out the files that a 4.x suite among files includes as its tests
// (`tests: cases.jsonl`, `tests: <directory>`, `file://` items): they are parts of that suite.
func dropIncluded(files []string) []string {
	included := map[string]bool{}
	for _, f := range files {
		if ext := strings.ToLower(filepath.Ext(f)); ext == ".yaml" || ext == ".yml" {
			for _, inc := range includedTests(f) {
				included[inc] = true
			}
		}
	}
	if len(included) == 0 {
		return files
	}
	out := files[:0:0]
	for _, f := range files {
		if !included[filepath.Clean(f)] {
			out = append(out, f)
		}
	}
	return out
}

// includedTests lists the absolute paths of the test files a 4.x suite file includes.
func includedTests(abs string) []string {
	src, err := safefile.ReadFile(abs, safefile.LimitEvalFile)
	if err != nil || !bytes.Contains(src, []byte("tests:")) {
		return nil
	}
	var doc yaml.Node
	if yaml.Unmarshal(src, &doc) != nil || len(doc.Content) == 0 {
		return nil
	}
	tests := ValueOf(doc.Content[0], "tests")
	if tests == nil {
		return nil
	}
	var refs []string
	switch tests.Kind {
	case yaml.ScalarNode:
		refs = append(refs, tests.Value)
	case yaml.SequenceNode:
		for _, it := range tests.Content {
			if it = Deref(it); it != nil && it.Kind == yaml.ScalarNode && strings.HasPrefix(it.Value, "file://") {
				refs = append(refs, strings.TrimPrefix(it.Value, "file://"))
			}
		}
	}
	var out []string
	for _, r := range refs {
		if r = AbsPath(filepath.Dir(abs), r); strings.ContainsAny(r, "*?{") {
			m, _ := doublestar.FilepathGlob(r, doublestar.WithFilesOnly())
			out = append(out, m...)
		} else if fi, err := os.Stat(r); err == nil && fi.IsDir() {
			// A directory of tests: each subdirectory's case file is part of the suite.
			for _, n := range caseFileNames {
				m, _ := filepath.Glob(filepath.Join(r, "*", n))
				out = append(out, m...)
			}
		} else {
			out = append(out, r)
		}
	}
	return out
}
