package targets

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v4"

	"github.com/agentv/action/internal/redact"
	"github.com/agentv/action/internal/safefile"
	"github.com/agentv/action/suite"
)

// File is a loaded targets.yaml. Loading never stops at the first problem: every
// invalid entry or setting becomes a positioned Diagnostic and the other targets still load.
type File struct {
	Path        string // as shown to users: relative to the working directory when inside it
	Abs         string // absolute path
	Targets     []*Target
	Diagnostics []suite.Diagnostic

	// invalid holds the first load error of each target that cannot be used.
	invalid map[string]error
	// budget bounds the YAML nodes decoding may visit in the whole file (see decodeBudget).
	budget int
}

// candidates are the names searched in each directory, in order (AgentV 2.5's).
var candidates = []string{"targets.yaml", "targets.yml", filepath.Join(".agentv", "targets.yaml"), filepath.Join(".agentv", "targets.yml")}

// LoadWithEnv loads a targets file with LoadEnv's lookup of environ and the .env files from
// evalDir up ("": none); a .env file that cannot be used is an error diagnostic of the file.
func LoadWithEnv(path string, environ []string, evalDir, repoRoot string, red *redact.Redactor) *File {
	env, err := LoadEnv(environ, evalDir, repoRoot)
	tf := Load(path, env, red)
	if err != nil {
		tf.Diagnostics = append(tf.Diagnostics, suite.Diagnostic{Severity: suite.SeverityError, Kind: suite.KindFile, Message: err.Error()})
	}
	return tf
}

// Load reads a targets file. env resolves `${{ VAR }}` in the common settings and is
// kept on each Target for its provider; literal values of secret-like settings are registered
// with red at once. CLI targets are validated here; other providers validate
// their settings when built (New).
func Load(path string, env LookupEnv, red *redact.Redactor) *File {
	f := &File{Path: displayPath(path), invalid: map[string]error{}, budget: decodeBudget}
	f.Abs, _ = filepath.Abs(path)
	data, err := safefile.ReadFile(path, safefile.LimitConfig)
	if err != nil {
		f.errorf(suite.Position{}, "could not read targets file: %v", pathErr(err))
		return f
	}
	if len(bytes.TrimSpace(data)) == 0 {
		f.errorf(suite.Position{}, "the targets file is empty; expected a `targets:` list")
		return f
	}
	var doc yaml.Node
	if err := yaml.Load(data, &doc); err != nil {
		f.yamlError(err)
		return f
	}
	registerRefs(&doc, env, red)
	root := deref(&doc)
	if root.Kind == yaml.DocumentNode && len(root.Content) > 0 {
		root = deref(root.Content[0])
	}
	if root.Kind != yaml.MappingNode {
		f.errorf(f.pos(root), "a targets file must be a map with a `targets:` list")
		return f
	}
	var list *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], deref(root.Content[i+1])
		switch k.Value {
		case "targets":
			list = v
		case "$schema":
		default:
			if v.Anchor != "" {
				continue // a block of shared settings for `<<: *anchor`
			}
			f.warnf(f.pos(k), "unknown-key", "unknown key %q (expected `targets`)", k.Value)
		}
	}
	if list == nil {
		f.errorf(f.pos(root), "missing `targets:` list")
		return f
	}
	if list.Kind != yaml.SequenceNode {
		f.errorf(f.pos(list), "`targets` must be a list of {name, provider, ...settings}")
		return f
	}
	seen := map[string]*Target{}
	v5 := f.isV5File(list)
	for _, item := range list.Content {
		var v5err error
		if v5 {
			if v5err = f.v5Entry(deref(item), env, red); errors.Is(v5err, errNoID) {
				continue
			}
		}
		t := f.loadEntry(deref(item), env, red)
		if t == nil {
			continue
		}
		t.EnvSyntax5 = v5
		if v5err != nil && f.invalid[t.Name] == nil {
			f.invalid[t.Name] = v5err
		}
		if first, dup := seen[t.Name]; dup {
			f.errorf(t.Pos, "duplicate target name %q (first defined at line %d); names must be unique", t.Name, first.Pos.Line)
			continue
		}
		seen[t.Name] = t
		f.Targets = append(f.Targets, t)
	}
	suite.SortDiagnostics(f.Diagnostics)
	return f
}

// registerRefs registers with red the value of every `${{ VAR }}` reference in the
// file, whatever target or setting holds it and whether or not that target runs: child
// processes inherit the environment, so any of them could print a value another target
// uses. Numbers and booleans are left out: they cannot be keys, and masking them would
// corrupt numbers in JSON. Aliases are not followed (the nodes they point to are visited
// where defined).
func registerRefs(n *yaml.Node, env LookupEnv, red *redact.Redactor) {
	if n == nil || env == nil {
		return
	}
	if n.Kind == yaml.ScalarNode {
		if name, ok := EnvRef(n.Value); ok {
			if v, ok := env(name); ok && !plainValue(v) {
				red.Add(v)
			}
		}
		return
	}
	for _, c := range n.Content {
		registerRefs(c, env, red)
	}
}

// loadEntry builds one target from its mapping node; nil when it has no usable name.
func (f *File) loadEntry(n *yaml.Node, env LookupEnv, red *redact.Redactor) *Target {
	if n.Kind != yaml.MappingNode {
		f.errorf(f.pos(n), "a target must be a map with `name` and `provider`")
		return nil
	}
	t := &Target{Pos: f.pos(n), File: f.Path, Dir: filepath.Dir(f.Abs), Settings: map[string]*Setting{}, Env: env, Redactor: red}
	pairs := mappingPairs(n)
	for _, kv := range pairs {
		if kv[0].Value == "name" && deref(kv[1]).Kind == yaml.ScalarNode {
			t.Name, t.Pos = strings.TrimSpace(deref(kv[1]).Value), f.pos(kv[0])
		}
	}
	if t.Name == "" {
		f.errorf(t.Pos, "a target needs a non-empty `name`")
		return nil
	}
	fail := func(err error) {
		f.add(diagnosticOf(err, t))
		if f.invalid[t.Name] == nil {
			f.invalid[t.Name] = err
		}
	}
	failAt := func(p suite.Position, field, format string, args ...any) {
		fail(&SettingError{Target: t.Name, Field: field, Pos: p, Msg: fmt.Sprintf(format, args...)})
	}
	keys := map[string]*yaml.Node{} // normalized key → key node, for nested positions
	vals := map[string]*yaml.Node{}
	for _, kv := range pairs {
		k, v := kv[0], kv[1]
		if k.Kind != yaml.ScalarNode || k.Value == "" {
			failAt(f.pos(k), "(key)", "setting names must be non-empty strings")
			continue
		}
		norm := SnakeCase(k.Value)
		if prev, dup := t.Settings[norm]; dup {
			using := prev.Key
			switch {
			case prev.Key == k.Value:
				failAt(f.pos(k), k.Value, "set twice (first at line %d)", prev.Pos.Line)
				continue
			case k.Value == norm:
				using = k.Value // the snake_case spelling wins
			}
			f.warnf(f.pos(k), "duplicate-setting", "target %q: both %q and %q are set; using %q", t.Name, prev.Key, k.Value, using)
			if using == prev.Key {
				continue
			}
		}
		val, err := decodeNode(v, 0, &f.budget)
		if err != nil {
			failAt(f.pos(v), k.Value, "%v", err)
			continue
		}
		t.Settings[norm] = &Setting{Key: k.Value, Value: val, Pos: f.pos(k)}
		keys[norm], vals[norm] = k, v
		if s, ok := val.(string); ok && IsSecretKey(norm) && !plainValue(s) {
			red.Add(s)
		}
	}
	prov := t.Settings["provider"].scalarString()
	t.Provider = prov
	t.Kind = CanonicalKind(prov)
	switch {
	case strings.TrimSpace(prov) == "":
		failAt(t.Pos, "provider", "required setting is missing (supported: %s)", kindList())
	case t.Kind == "":
		fail(t.ErrorAt(t.Settings["provider"], "provider", "unknown provider %q (supported: %s)", prov, kindList()))
	}
	at := func(path ...string) suite.Position { return f.nestedPos(keys, vals, path) }
	for _, err := range t.loadCommon(at) {
		fail(err)
	}
	if t.Kind == KindCLI {
		_, errs := ParseCLI(t, false, at)
		for _, err := range errs {
			fail(err)
		}
	}
	return t
}

// loadCommon fills the common settings every provider shares.
func (t *Target) loadCommon(at func(path ...string) suite.Position) []error {
	var errs []error
	// AgentV 4.x names the judge's target grader_target; the 2.5 name wins when both are set.
	if v, ok, err := t.String("judge_target", "grader_target"); err != nil {
		errs = append(errs, err)
	} else if ok {
		t.JudgeTarget = strings.TrimSpace(v)
	}
	if v, ok, err := t.Int("workers"); err != nil {
		errs = append(errs, err)
	} else if ok && v < 1 {
		errs = append(errs, t.Error("workers", "want a whole number of at least 1, got %d", v))
	} else if ok {
		t.Workers = v
	}
	if v, ok, err := t.Bool("provider_batching"); err != nil {
		errs = append(errs, err)
	} else if ok {
		t.ProviderBatching = v
	}
	if s, ok := t.Raw("price"); ok {
		p, err := t.loadPrice(s, at)
		if err != nil {
			errs = append(errs, err)
		} else {
			t.Price = p
		}
	}
	return errs
}

// loadPrice reads `price: {input_per_mtok, output_per_mtok}` (USD per million tokens).
func (t *Target) loadPrice(s *Setting, at func(path ...string) suite.Position) (*Price, error) {
	m, ok := s.Value.(map[string]any)
	if !ok {
		return nil, t.ErrorAt(s, "price", "want a map {input_per_mtok, output_per_mtok}, got %s", typeName(s.Value))
	}
	p := &Price{}
	for k, v := range m {
		var dst *float64
		switch strings.ReplaceAll(SnakeCase(k), "_m_tok", "_mtok") {
		case "input_per_mtok":
			dst = &p.InputPerMTok
		case "output_per_mtok":
			dst = &p.OutputPerMTok
		default:
			return nil, &SettingError{Target: t.Name, Field: "price." + k, Pos: at("price", SnakeCase(k)), Msg: "unknown key (expected input_per_mtok, output_per_mtok)"}
		}
		f, ok := number(v)
		if !ok || f < 0 {
			return nil, &SettingError{Target: t.Name, Field: "price." + k, Pos: at("price", SnakeCase(k)), Msg: fmt.Sprintf("want a number of USD per million tokens (>= 0), got %v", v)}
		}
		*dst = f
	}
	return p, nil
}

// Find returns the target called name, or an error listing the available ones. A target
// whose entry had errors is found but returned with its first error.
func (f *File) Find(name string) (*Target, error) {
	for _, t := range f.Targets {
		if t.Name == name {
			if err := f.invalid[name]; err != nil {
				return t, fmt.Errorf("target %q in %s is invalid: %w", name, f.Path, err)
			}
			return t, nil
		}
	}
	names := make([]string, 0, len(f.Targets))
	for _, t := range f.Targets {
		names = append(names, t.Name)
	}
	avail := cmp.Or(strings.Join(names, ", "), "none")
	return nil, fmt.Errorf("target %q not found in %s; available targets: %s", name, f.Path, avail)
}

// FindFile is the targets file of eval files in evalDir: the `--targets` value when set (see
// resolveFlag), else the first targets.yaml, targets.yml, .agentv/targets.yaml or
// .agentv/targets.yml in evalDir and each parent up to repoRoot, then cwd.
func FindFile(flag, evalDir, repoRoot, cwd string) (string, error) {
	if flag != "" {
		return resolveFlag(flag)
	}
	var tried []string
	dirs := ancestors(evalDir, repoRoot)
	if cwd != "" {
		dirs = append(dirs, cwd)
	}
	seen := map[string]bool{}
	for _, d := range dirs {
		if seen[d] {
			continue
		}
		seen[d] = true
		if p, ok := findIn(d, &tried); ok {
			return p, nil
		}
	}
	return "", fmt.Errorf("could not find a targets file (tried %s); create targets.yaml or pass --targets <file>", strings.Join(tried, ", "))
}

// resolveFlag turns a `--targets` value into a file: a file is used as is, a
// directory is searched for the usual names.
func resolveFlag(p string) (string, error) {
	st, err := os.Stat(p)
	if err != nil {
		return "", fmt.Errorf("could not use targets file %q: %w", p, pathErr(err))
	}
	if !st.IsDir() {
		return p, nil
	}
	var tried []string
	if q, ok := findIn(p, &tried); ok {
		return q, nil
	}
	return "", fmt.Errorf("no targets file in directory %q (tried %s)", p, strings.Join(tried, ", "))
}

// findIn returns the first of the candidate names that is a file in dir, adding the paths it
// tried to tried.
func findIn(dir string, tried *[]string) (string, bool) {
	for _, c := range candidates {
		p := filepath.Join(dir, c)
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, true
		}
		*tried = append(*tried, p)
	}
	return "", false
}

// ancestors lists dir and its parents up to and including root. When dir is not
// inside root, only dir itself is searched: walking to / would pick up unrelated files.
func ancestors(dir, root string) []string {
	if dir == "" {
		return nil
	}
	dir, _ = filepath.Abs(dir)
	out := []string{dir}
	if root == "" {
		return out
	}
	root, _ = filepath.Abs(root)
	if rel, err := filepath.Rel(root, dir); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return out
	}
	for d := dir; d != root; {
		p := filepath.Dir(d)
		if p == d {
			break
		}
		d = p
		out = append(out, d)
	}
	return out
}

func (f *File) add(d suite.Diagnostic) { f.Diagnostics = append(f.Diagnostics, d) }

func (f *File) errorf(p suite.Position, format string, args ...any) {
	f.add(suite.Diagnostic{File: f.Path, Line: p.Line, Col: p.Col, Severity: suite.SeverityError, Kind: "targets", Message: fmt.Sprintf(format, args...)})
}

func (f *File) warnf(p suite.Position, kind, format string, args ...any) {
	f.add(suite.Diagnostic{File: f.Path, Line: p.Line, Col: p.Col, Severity: suite.SeverityWarning, Kind: kind, Message: fmt.Sprintf(format, args...)})
}

func (f *File) pos(n *yaml.Node) suite.Position {
	return suite.Position{File: f.Path, Line: n.Line, Col: n.Column}
}

// yamlError turns a parse error into diagnostics with line:col when the parser knows them.
func (f *File) yamlError(err error) {
	if strings.Contains(err.Error(), "no documents in stream") {
		f.errorf(suite.Position{}, "the targets file is empty; expected a `targets:` list")
		return
	}
	var les *yaml.LoadErrors
	if errors.As(err, &les) && len(les.Errors) > 0 {
		for _, le := range les.Errors {
			f.errorf(suite.Position{Line: le.Mark.Line, Col: le.Mark.Column}, "invalid YAML: %s", strings.TrimPrefix(le.Message, "yaml: "))
		}
		return
	}
	var le *yaml.LoadError
	if errors.As(err, &le) {
		f.errorf(suite.Position{Line: le.Mark.Line, Col: le.Mark.Column}, "invalid YAML: %s", le.Message)
		return
	}
	f.errorf(suite.Position{}, "invalid YAML: %v", err)
}

// nestedPos is the position of the deepest key of path (normalized names) that exists.
func (f *File) nestedPos(keys, vals map[string]*yaml.Node, path []string) suite.Position {
	if len(path) == 0 || keys[path[0]] == nil {
		return suite.Position{File: f.Path}
	}
	pos := f.pos(keys[path[0]])
	n := deref(vals[path[0]])
	for _, p := range path[1:] {
		if n.Kind != yaml.MappingNode {
			break
		}
		var next *yaml.Node
		for _, kv := range mappingPairs(n) {
			if SnakeCase(kv[0].Value) == p {
				pos, next = f.pos(kv[0]), deref(kv[1])
			}
		}
		if next == nil {
			break
		}
		n = next
	}
	return pos
}

// diagnosticOf turns a target error into a diagnostic at its position.
func diagnosticOf(err error, t *Target) suite.Diagnostic {
	d := suite.Diagnostic{File: t.File, Line: t.Pos.Line, Col: t.Pos.Col, Severity: suite.SeverityError, Kind: "target", Message: err.Error()}
	var se *SettingError
	var ue *UnsetVarError
	switch {
	case errors.As(err, &se):
		d.Line, d.Col = se.Pos.Line, se.Pos.Col
		d.Message = fmt.Sprintf("target %q: %s: %s", se.Target, se.Field, se.Msg)
	case errors.As(err, &ue):
		d.Line, d.Col, d.Kind = ue.Pos.Line, ue.Pos.Col, "unset-var"
		d.Message = fmt.Sprintf("target %q: %s: environment variable %s is not set", ue.Target, ue.Field, ue.Var)
	}
	return d
}

// kindList names every accepted provider, aliases in parentheses.
func kindList() string {
	aliases := map[string][]string{}
	for a, k := range kindAliases {
		aliases[k] = append(aliases[k], a)
	}
	kinds := slices.Sorted(maps.Keys(aliases))
	for i, k := range kinds {
		a := slices.DeleteFunc(aliases[k], func(a string) bool { return a == k })
		if len(a) > 0 {
			slices.Sort(a)
			kinds[i] = k + " (" + strings.Join(a, ", ") + ")"
		}
	}
	return strings.Join(kinds, ", ")
}

func displayPath(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return filepath.ToSlash(p)
	}
	if wd, err := os.Getwd(); err == nil {
		if rel, ok := safefile.RelWithin(abs, wd); ok {
			return filepath.ToSlash(rel)
		}
	}
	return filepath.ToSlash(p)
}

// pathErr drops the path os errors repeat (the caller names the file).
func pathErr(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// deref follows aliases (bounded, so an alias cycle cannot loop).
func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && n.Alias != nil && i < 32; i++ {
		n = n.Alias
	}
	return n
}

// mappingPairs lists the key/value pairs of a mapping, expanding `<<` merge keys
// (explicit keys win over merged ones, earlier merge sources over later ones). Merges nest
// a few levels at most and expand to a bounded number of pairs, so alias tricks end.
func mappingPairs(n *yaml.Node) [][2]*yaml.Node {
	budget := 1000
	return mappingPairsDepth(n, 0, &budget)
}

func mappingPairsDepth(n *yaml.Node, depth int, budget *int) [][2]*yaml.Node {
	var out, merged [][2]*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.Value == "<<" && k.Tag != "!!str" {
			if depth < 8 {
				for _, m := range mergeSources(deref(v)) {
					if *budget <= 0 {
						break
					}
					merged = append(merged, mappingPairsDepth(m, depth+1, budget)...)
				}
			}
			continue
		}
		*budget--
		out = append(out, [2]*yaml.Node{k, v})
	}
	if len(merged) == 0 {
		return out
	}
	seen := make(map[string]bool, len(out)+len(merged))
	for _, o := range out {
		seen[o[0].Value] = true
	}
	for _, kv := range merged {
		if !seen[kv[0].Value] {
			seen[kv[0].Value] = true
			out = append(out, kv)
		}
	}
	return out
}

// decodeBudget bounds the nodes (and merged pairs) the settings of one file may
// expand to: aliases can make a small file describe an enormous value ("billion laughs").
const decodeBudget = 20000

// decodeNode turns a node into the value types Setting documents: string, int,
// float64, bool, []any, map[string]any or nil, spending budget.
func decodeNode(n *yaml.Node, depth int, budget *int) (any, error) {
	n = deref(n)
	*budget--
	if depth > 64 || *budget < 0 {
		return nil, errors.New("value nested too deeply or too large (alias loop?)")
	}
	switch n.Kind {
	case yaml.ScalarNode:
		return scalar(n)
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			v, err := decodeNode(c, depth+1, budget)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case yaml.MappingNode:
		out := map[string]any{}
		for _, kv := range mappingPairsDepth(n, 0, budget) {
			v, err := decodeNode(kv[1], depth+1, budget)
			if err != nil {
				return nil, err
			}
			out[kv[0].Value] = v
		}
		return out, nil
	}
	return nil, nil
}

func scalar(n *yaml.Node) (any, error) {
	switch n.ShortTag() {
	case "!!null":
		return nil, nil
	case "!!bool":
		switch strings.ToLower(n.Value) {
		case "true":
			return true, nil
		case "false":
			return false, nil
		}
		return nil, fmt.Errorf("cannot read %q as a boolean", n.Value)
	case "!!int":
		i, err := strconv.ParseInt(n.Value, 0, 64)
		if err != nil || i > math.MaxInt32 || i < math.MinInt32 {
			f, ferr := strconv.ParseFloat(n.Value, 64)
			if ferr != nil {
				return nil, fmt.Errorf("cannot read %q as a number", n.Value)
			}
			return f, nil
		}
		return int(i), nil
	case "!!float":
		switch strings.ToLower(n.Value) {
		case ".inf", "+.inf":
			return math.Inf(1), nil
		case "-.inf":
			return math.Inf(-1), nil
		case ".nan":
			return math.NaN(), nil
		}
		f, err := strconv.ParseFloat(n.Value, 64)
		if err != nil {
			return nil, fmt.Errorf("cannot read %q as a number", n.Value)
		}
		return f, nil
	}
	return n.Value, nil
}

func number(v any) (float64, bool) {
	switch x := v.(type) {
	case int:
		return float64(x), true
	case float64:
		return x, !math.IsNaN(x) && !math.IsInf(x, 0)
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		return f, err == nil && !math.IsNaN(f) && !math.IsInf(f, 0)
	}
	return 0, false
}

// scalarString is a scalar setting as text ("" when absent or not a scalar).
func (s *Setting) scalarString() string {
	if s == nil {
		return ""
	}
	v, _ := scalarText(s.Value)
	return v
}

// plainValue reports values that cannot be secrets although their key looks like one
// (`max_tokens: "4096"`) and `${{ VAR }}` references (their values are registered instead);
// masking them would shred ordinary text.
func plainValue(s string) bool {
	if _, isRef := EnvRef(s); isRef {
		return true
	}
	if _, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil {
		return true
	}
	switch lower(s) {
	case "true", "false", "yes", "no":
		return true
	}
	return false
}

func mergeSources(v *yaml.Node) []*yaml.Node {
	switch v.Kind {
	case yaml.MappingNode:
		return []*yaml.Node{v}
	case yaml.SequenceNode:
		var out []*yaml.Node
		for _, c := range v.Content {
			if c = deref(c); c.Kind == yaml.MappingNode {
				out = append(out, c)
			}
		}
		return out
	}
	return nil
}
