package suite

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v4"

	"github.com/agentv/action/internal/safefile"
)

// LoadOptions configure Load.
type LoadOptions struct {
	Cwd       string // working directory; "" means the process's
	Workspace string // GITHUB_WORKSPACE, may be ""
	// OnCase, when set, streams a JSONL suite: each case that loads is handed to it (with its
	// diagnostics already in Suite.Diagnostics) instead of kept in Suite.Cases, so a run need
	// not hold every case at once. Returning false stops reading. YAML files ignore it.
	OnCase func(*Case) bool
	// Env returns the lookup for `${{ VAR }}` in 4.x files, given the eval file's directory and
	// repository root (for .env files), at most once per file; nil reads the process
	// environment. Secret receives every non-blank value so resolved, so reports can mask it.
	Env    func(evalDir, repoRoot string) func(name string) (string, bool)
	Secret func(value string)
	// CheckScript checks that a code judge's command can run here; an error is reported at
	// the command and the cases using the judge are not loaded, so a run stops at load rather
	// than erroring every case it reaches.
	CheckScript func(argv []string, cwd string) error
}

// Diagnostic kinds produced by the loader.
const (
	KindSyntax      = "syntax"       // malformed YAML or JSON
	KindFile        = "file"         // eval file unreadable or of an unsupported format
	KindStructure   = "structure"    // missing or mistyped top-level value
	KindCase        = "case"         // a case that cannot be loaded
	KindDuplicateID = "duplicate-id" // a second case with the same id
	KindUnknownKey  = "unknown-key"  // a key the loader does not know (warning)
	KindIgnored     = "ignored-key"  // an alias or duplicate key that lost to another (warning)
	KindMissingFile = "missing-file" // a referenced content file that exists nowhere (warning)
	KindEvaluator   = "evaluator"    // an invalid evaluator entry
	KindTemplate    = "template"     // custom judge template validation (warning)
	KindConfig      = "config"       // a bad .agentv.yaml / .agentv/config.yaml (warning)
)

// Reader holds the state of one Load call. A dialect's front-end (FrontEnd) is handed it: its
// exported methods and fields are the toolkit a front-end reads a file with (positioned
// diagnostics, referenced files, cases built through the one case reader, the 4.x reader's
// parts); the rest stays the loader's.
type Reader struct {
	Suite *Suite // the model being built
	Cwd   string // the working directory, absolute; display paths are relative to it
	roots []string

	file string // display path of the file being parsed (eval file or sidecar)
	Src  []byte // source of the YAML being parsed (inline template positions); nil for JSONL

	refs      map[string]*FileRef
	texts     map[string]string
	templates map[string]bool // template files already validated
	seen      map[diagKey]int // diagnostic → its index in Suite.Diagnostics
	IDs       map[string]int  // case id → line of its first definition
	intern    map[string]string
	lists     map[*yaml.Node]*EvalList // evaluator lists shared through YAML aliases
	// listsByText shares identical evaluator lists between JSONL lines.
	listsByText map[string]*EvalList

	suiteList *EvalList // the suite default evaluators
	// sidecarAsserts is a JSONL sidecar's `execution.assertions`, the suite assertions of the
	// file's AgentV 4.x lines.
	sidecarAsserts *Entry

	opts   LoadOptions                 // OnCase nil but for JSONL
	envFor func(string) (string, bool) // opts.Env's lookup, once asked for

	custom map[string]string // custom assertion type → its script (AgentV 4.x), once found

	Includes []*IncludeFile // assertion templates read, by number (see IncludeLineBase)

	Deps map[*Case][]*yaml.Node // where each 4.x test wrote its depends_on items (parallel to DependsOn)

	stopped bool // OnCase asked to stop reading
}

type diagKey struct {
	file, msg, kind, caseID string
	line, col               int
	sev                     Severity
}

// Load reads one eval file. It never returns nil: every problem is a Diagnostic, and cases that
// cannot be loaded are left out of Suite.Cases while the others load.
func Load(path string, opts LoadOptions) *Suite {
	cwd := opts.Cwd
	if a, err := filepath.Abs(cwd); err == nil { // "" is the process's working directory
		cwd = a
	}
	abs := AbsPath(cwd, path)
	s := &Suite{Abs: abs, Dir: filepath.Dir(abs), Path: DisplayPath(abs, cwd)}
	s.RepoRoot = FindRepoRoot(s.Dir, opts.Workspace, cwd)
	ext := strings.ToLower(filepath.Ext(abs))
	s.Dataset = strings.TrimSuffix(filepath.Base(abs), filepath.Ext(abs))
	l := &Reader{
		Suite: s, Cwd: cwd, file: s.Path,
		roots:       searchRoots(s.Dir, s.RepoRoot, cwd),
		refs:        map[string]*FileRef{},
		texts:       map[string]string{},
		templates:   map[string]bool{},
		seen:        map[diagKey]int{},
		IDs:         map[string]int{},
		intern:      map[string]string{},
		lists:       map[*yaml.Node]*EvalList{},
		listsByText: map[string]*EvalList{},
		Deps:        map[*Case][]*yaml.Node{},
		opts:        opts,
	}
	if ext != ".jsonl" {
		l.opts.OnCase = nil
	}
	switch ext {
	case ".yaml", ".yml":
		s.Format = "yaml"
	case ".jsonl":
		s.Format = "jsonl"
		s.SetDialect(Dialect25)
	case ".json":
		s.Format = "json" // Agent Skills evals.json
		s.SetDialect(Dialect4)
	default:
		l.add(Diagnostic{File: s.Path, Severity: SeverityError, Kind: KindFile, Message: unsupportedFormat(ext)})
		return s
	}
	if fi, err := os.Stat(abs); err != nil || !fi.Mode().IsRegular() {
		switch {
		case err == nil:
			err = errors.New("it is " + safefile.Describe(fi.Mode()) + ", not a regular file")
		case errors.Is(err, os.ErrNotExist):
			err = errors.New("no such file")
		}
		l.readError(0, err)
		return s
	}
	s.GuidelinePatterns = l.guidelinePatterns()
	switch s.Format {
	case "yaml":
		l.loadYAML()
	case "json":
		l.loadSkills()
	default:
		l.loadJSONL()
	}
	l.finishSuiteList()
	SortDiagnostics(s.Diagnostics)
	return s
}

// InFile makes abs the file being parsed, for positions and messages, until the returned
// function restores the one before.
func (l *Reader) InFile(abs string) (restore func()) {
	file, src := l.file, l.Src
	l.file = DisplayPath(abs, l.Cwd)
	return func() { l.file, l.Src = file, src }
}

// readError reports that the eval file could not be read (at line, when not 0).
func (l *Reader) readError(line int, err error) {
	l.add(Diagnostic{File: l.Suite.Path, Line: line, Severity: SeverityError, Kind: KindFile,
		Message: "could not read eval file: " + ErrText(err)})
}

// ErrText drops the path from an *os.PathError: messages already name the file.
func ErrText(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// add records a diagnostic once. Warnings repeat across cases when YAML aliases share a node;
// the first case that triggers one is named and later copies are dropped.
func (l *Reader) add(d Diagnostic) {
	k := diagKey{file: d.File, msg: d.Message, kind: d.Kind, line: d.Line, col: d.Col, sev: d.Severity}
	if d.Severity == SeverityError {
		k.caseID = d.CaseID
	}
	if i, ok := l.seen[k]; ok {
		// A warning is printed once and still shown on each case it affects (cases are read in
		// order: a case already noted is the last one). A streamed suite notes none, so 100,000
		// lines naming one missing file keep no list of 100,000 ids.
		prev := &l.Suite.Diagnostics[i]
		if n := len(prev.AlsoCases); d.CaseID != "" && d.CaseID != prev.CaseID && (n == 0 || prev.AlsoCases[n-1] != d.CaseID) && l.opts.OnCase == nil {
			prev.AlsoCases = append(prev.AlsoCases, d.CaseID)
		}
		return
	}
	l.seen[k] = len(l.Suite.Diagnostics)
	l.Suite.Diagnostics = append(l.Suite.Diagnostics, d)
}

// at builds a diagnostic positioned at node n of the file being parsed.
func (l *Reader) at(n *yaml.Node, sev Severity, kind, caseID, format string, args ...any) Diagnostic {
	d := Diagnostic{File: l.file, Severity: sev, Kind: kind, CaseID: caseID, Message: fmt.Sprintf(format, args...)}
	if n != nil {
		d.File, d.Line = l.Where(n.Line)
		d.Col = n.Column
	}
	return d
}

func (l *Reader) Warnf(n *yaml.Node, kind, caseID, format string, args ...any) {
	l.add(l.at(n, SeverityWarning, kind, caseID, format, args...))
}

func (l *Reader) Errorf(n *yaml.Node, kind, caseID, format string, args ...any) {
	l.add(l.at(n, SeverityError, kind, caseID, format, args...))
}

// str interns a string when it repeats (system prompts, outcomes, evaluator names) so thousands
// of cases share one copy. The table is bounded so unique strings do not pay for it.
func (l *Reader) str(s string) string {
	if v, ok := l.intern[s]; ok {
		return v
	}
	if len(l.intern) < 4096 && len(s) <= 64<<10 {
		l.intern[s] = s
	}
	return s
}

// RootOf returns the document's top node when it is of kind, else nil after reporting message
// for what is there instead.
func (l *Reader) RootOf(doc *yaml.Node, kind yaml.Kind, message func(got string) string) *yaml.Node {
	var n *yaml.Node
	if len(doc.Content) > 0 {
		n = Deref(doc.Content[0])
	}
	if n != nil && n.Kind == kind {
		return n
	}
	l.Errorf(cmp.Or(n, &yaml.Node{Line: 1, Column: 1}), KindStructure, "", "%s", message(KindName(n)))
	return nil
}

// ParseYAML decodes a YAML document; nil when it is unusable (reported).
func (l *Reader) ParseYAML(src []byte) *yaml.Node {
	dec, err := yaml.NewLoader(bytes.NewReader(src))
	if err != nil {
		l.yamlError(err)
		return nil
	}
	var doc yaml.Node
	if err := dec.Load(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return &yaml.Node{Kind: yaml.DocumentNode, Line: 1, Column: 1}
		}
		l.yamlError(err)
		return nil
	}
	var extra yaml.Node
	if err := dec.Load(&extra); err == nil {
		line, col := extra.Line, extra.Column
		if len(extra.Content) > 0 {
			line, col = extra.Content[0].Line, extra.Content[0].Column
		}
		l.add(Diagnostic{File: l.file, Line: line, Col: col, Severity: SeverityError, Kind: KindSyntax,
			Message: "invalid YAML: the file holds more than one document (---); put every case in one document"})
		return nil
	} else if !errors.Is(err, io.EOF) {
		l.yamlError(err)
		return nil
	}
	return &doc
}

func (l *Reader) yamlError(err error) {
	d := Diagnostic{File: l.file, Severity: SeverityError, Kind: KindSyntax}
	var le *yaml.LoadError
	var les *yaml.LoadErrors
	switch {
	case errors.As(err, &les) && len(les.Errors) > 0:
		le = les.Errors[0]
		fallthrough
	case le != nil || errors.As(err, &le):
		d.Line, d.Col = le.Mark.Line, le.Mark.Column
		d.Message = "invalid YAML: " + le.Message
		if le.ContextMsg != "" && le.ContextMark.Line > 0 {
			d.Message += fmt.Sprintf(" (%s started at line %d, column %d)", le.ContextMsg, le.ContextMark.Line, le.ContextMark.Column)
		}
	default:
		d.Message = "invalid YAML: " + err.Error()
	}
	l.add(d)
}

// UnknownKey warns about a key the loader does not use, suggesting a close known one.
func (l *Reader) UnknownKey(e Entry, where, caseID string, known []string) {
	l.Warnf(e.KeyNode, KindUnknownKey, caseID, "%s", UnknownKeyMsg(e.Key, where, known))
}

// UnknownKeys warns about each key of es that is not in known.
func (l *Reader) UnknownKeys(es []Entry, where, caseID string, known []string) {
	for _, e := range es {
		if !slices.Contains(known, e.Key) {
			l.UnknownKey(e, where, caseID, known)
		}
	}
}

func UnknownKeyMsg(key, where string, known []string) string {
	msg := fmt.Sprintf("unknown key %q %s (ignored)", key, where)
	if s := Suggest(key, known); s != "" {
		msg += fmt.Sprintf("; did you mean %q?", s)
	}
	return msg
}

// Dupes warns about duplicate keys of a mapping (the last value is used).
func (l *Reader) Dupes(es []Entry, caseID string) {
	for _, e := range es {
		if e.dupe != nil {
			l.Warnf(e.KeyNode, KindIgnored, caseID, "duplicate key %q (also at line %d); this later value is used", e.Key, e.dupe.Line)
		}
	}
}

// Suggest returns the known word closest to key when it is a plausible typo.
func Suggest(key string, known []string) string {
	if len(key) > 64 {
		return "" // no typo of a known word, and too long to compare cheaply
	}
	best, bestD := "", 3
	for _, k := range known {
		if d := EditDistance(strings.ToLower(key), k); d < bestD && d < len(k)/2+1 {
			best, bestD = k, d
		}
	}
	return best
}

// EditDistance is the Levenshtein distance between a and b, in runes.
func EditDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
