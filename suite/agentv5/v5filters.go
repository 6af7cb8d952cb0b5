package agentv5

import (
	"bufio"
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	yaml "go.yaml.in/yaml/v4"

	"github.com/agentv/action/internal/jsruntime"
	"github.com/agentv/action/internal/proc"
	"github.com/agentv/action/suite"
)

// filtersJS runs the filter modules (see its header).
//
//go:embed filters.mjs
var filtersJS []byte

const (
	filterMarker = "AGENTV_FILTER "
	// filterTimeout bounds the runtime's start (imports included) and each filter call: a
	// filter runs while the file loads, so a hung one must not hang the load.
	filterTimeout = 30 * time.Second
	// filterCalls bounds the calls of one file, so that YAML aliases repeating a filtered
	// template cannot keep a load busy for long.
	filterCalls = 100_000
)

// v5FilterRef is `{{ path }}` followed by any `| name` filters, without arguments.
var v5FilterRef = regexp.MustCompile(`\{\{\s*([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\s*((?:\|\s*[A-Za-z_][A-Za-z0-9_]*\s*)*)\}\}`)

// v5Filters are a file's `nunjucks_filters`, called in a JavaScript runtime the first time a
// template uses one. 5.x imports the modules in its own process when the file loads
// (yaml-parser.ts, loadNunjucksFilters) and calls them while it renders a test's fields; agentv
// renders those at load too, so it starts one child process per file and asks it per call.
type v5Filters struct {
	names []string          // filter names, in the order written
	mods  map[string]string // filter name → module, absolute
	dir   string            // the eval file's folder: the child's working directory
	at    *yaml.Node        // the nunjucks_filters key, for errors about the runtime

	started bool
	calls   int
	err     error // why the child cannot answer (sticky)
	cmd     *exec.Cmd
	in      io.WriteCloser
	lines   chan string
	tmp     string
	stderr  bytes.Buffer
}

// v5NunjucksFilters reads `nunjucks_filters`: a mapping of filter name → module path
// (file:// optional, a glob picks its last match), as 5.x does: a value that is not a
// non-empty string is skipped with a warning, anything else that is not a mapping warned
// about and ignored. A module that is missing or not JavaScript/TypeScript is an error here
// (5.x fails the whole file when its import throws).
func (l *reader) v5NunjucksFilters(e *suite.Entry) (*v5Filters, bool) {
	v := suite.Deref(e.Value)
	if v == nil || v.Kind != yaml.MappingNode {
		l.Warnf(e.Value, suite.KindIgnored, "", "%q must map filter names to module paths, got %s (ignored, as AgentV 5.x does)", e.Key, suite.KindName(v))
		return nil, true
	}
	f := &v5Filters{mods: map[string]string{}, dir: l.Suite.Dir, at: e.KeyNode}
	ok := true
	for _, x := range suite.MapEntries(v) {
		p := suite.Deref(x.Value)
		if p == nil || !suite.IsString(p) || strings.TrimSpace(p.Value) == "" {
			l.Warnf(x.Value, suite.KindIgnored, "", "nunjucks filter %q skipped: expected a module path, got %s (as AgentV 5.x does)", x.Key, suite.Describe(x.Value))
			continue
		}
		rel := strings.TrimPrefix(p.Value, "file://")
		abs := suite.AbsPath(l.Suite.Dir, rel)
		if m, err := filepath.Glob(abs); err == nil && len(m) > 0 {
			slices.Sort(m)
			abs = m[len(m)-1]
		}
		switch strings.ToLower(filepath.Ext(abs)) {
		case ".ts", ".mts", ".cts", ".js", ".mjs", ".cjs":
		default:
			l.Errorf(p, suite.KindStructure, "", "nunjucks filter %q: %s is not a JavaScript or TypeScript module (.ts, .mts, .cts, .js, .mjs or .cjs)", x.Key, rel)
			ok = false
			continue
		}
		if st, err := os.Stat(abs); err != nil || !st.Mode().IsRegular() {
			l.Errorf(p, suite.KindFile, "", "nunjucks filter %q: module %s not found", x.Key, suite.DisplayPath(abs, l.Cwd))
			ok = false
			continue
		}
		if _, dup := f.mods[x.Key]; !dup {
			f.names = append(f.names, x.Key)
		}
		f.mods[x.Key] = abs
	}
	if !ok || len(f.names) == 0 {
		return nil, ok
	}
	return f, true
}

// v5FiltersDone ends the filters once the file's tests are read. Filters no template used are
// imported all the same, as 5.x imports every module when it loads a file: one that cannot be
// is an error at nunjucks_filters, as it fails the file in 5.x.
func (l *reader) v5FiltersDone(f *v5Filters) {
	if f == nil {
		return
	}
	if !f.started {
		if err := f.start(); err != nil {
			l.Errorf(f.at, suite.KindStructure, "", "nunjucks_filters: %s", err)
		}
	}
	f.close()
}

// has reports whether name is one of the file's filters.
func (f *v5Filters) has(name string) bool {
	if f == nil {
		return false
	}
	_, ok := f.mods[name]
	return ok
}

// apply passes v (nil: undefined) through the filters of chain and returns the text Nunjucks
// prints for the result.
func (f *v5Filters) apply(chain []string, v *yaml.Node) (string, error) {
	if err := f.start(); err != nil {
		return "", err
	}
	if f.calls++; f.calls > filterCalls {
		return "", f.fail(fmt.Errorf("more than %d filter calls in one file (check for YAML aliases repeating a template)", filterCalls))
	}
	req := map[string]any{"chain": chain}
	if v != nil {
		raw, err := suite.ToJSON(v)
		if err != nil {
			return "", fmt.Errorf("could not pass the value to the filter: %w", err)
		}
		req["value"] = json.RawMessage(raw)
	}
	b, err := json.Marshal(req)
	if err != nil {
		return "", err
	}
	if _, err := f.in.Write(append(b, '\n')); err != nil {
		return "", f.fail(fmt.Errorf("the filter runtime stopped: %w", err))
	}
	var rep struct {
		Text  *string `json:"text"`
		Error string  `json:"error"`
	}
	if err := f.read(&rep); err != nil {
		return "", err
	}
	if rep.Text == nil {
		return "", fmt.Errorf("filter %s threw: %s", strings.Join(chain, " | "), rep.Error)
	}
	return *rep.Text, nil
}

// start runs the filter runner once, in the runtime jsruntime picks for the modules (bun, tsx
// or Node 22.6+ when one is TypeScript; Node, else bun), and waits until it has imported them.
func (f *v5Filters) start() error {
	if f.started {
		return f.err
	}
	f.started = true
	tmp, err := os.MkdirTemp("", "agentv-filters-")
	if err != nil {
		return f.fail(err)
	}
	f.tmp = tmp
	script := filepath.Join(tmp, "filters.mjs")
	var specs [][2]string
	for _, n := range f.names {
		specs = append(specs, [2]string{n, f.mods[n]})
		switch strings.ToLower(filepath.Ext(f.mods[n])) {
		case ".ts", ".mts", ".cts":
			script = filepath.Join(tmp, "filters.mts")
		}
	}
	if err := os.WriteFile(script, filtersJS, 0o600); err != nil {
		return f.fail(err)
	}
	argv, extra, err := jsruntime.Resolver{}.Command(script)
	if err != nil {
		return f.fail(err)
	}
	arg, err := json.Marshal(specs)
	if err != nil {
		return f.fail(err)
	}
	cmd := exec.Command(argv[0], append(argv[1:], string(arg))...)
	cmd.Dir, cmd.Env, cmd.Stderr = f.dir, proc.ChildEnv(os.Environ(), extra), &f.stderr // no GitHub token, as graders
	if f.in, err = cmd.StdinPipe(); err != nil {
		return f.fail(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return f.fail(err)
	}
	if err := cmd.Start(); err != nil {
		return f.fail(fmt.Errorf("could not start %s: %w", argv[0], err))
	}
	f.cmd, f.lines = cmd, make(chan string)
	go func() {
		defer close(f.lines)
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 64*1024), 16<<20)
		for sc.Scan() {
			if rest, ok := strings.CutPrefix(sc.Text(), filterMarker); ok {
				f.lines <- rest
			}
		}
	}()
	var ready struct {
		Ready bool   `json:"ready"`
		Error string `json:"error"`
	}
	if err := f.read(&ready); err != nil {
		return err
	}
	if !ready.Ready {
		return f.fail(errors.New(ready.Error))
	}
	return nil
}

// read waits for the runner's next answer.
func (f *v5Filters) read(into any) error {
	select {
	case line, ok := <-f.lines:
		if !ok {
			_ = f.cmd.Wait()
			f.cmd = nil // waited for
			msg := strings.TrimSpace(f.stderr.String())
			if len(msg) > 1000 {
				msg = "…" + msg[len(msg)-1000:]
			}
			return f.fail(fmt.Errorf("the filter runtime exited: %s", cmpStr(msg, "no output")))
		}
		if err := json.Unmarshal([]byte(line), into); err != nil {
			return f.fail(fmt.Errorf("unreadable answer from the filter runtime: %w", err))
		}
		return nil
	case <-time.After(filterTimeout):
		return f.fail(fmt.Errorf("no answer from the filter runtime within %s", filterTimeout))
	}
}

// fail records err as the reason the filters cannot run any more and stops the child.
func (f *v5Filters) fail(err error) error {
	f.err = err
	f.close()
	return err
}

// close stops the child and removes its script; the filters cannot be called after it.
func (f *v5Filters) close() {
	if f == nil {
		return
	}
	if f.err == nil && f.started {
		f.err = errors.New("the filters were closed")
	}
	if f.cmd != nil && f.cmd.Process != nil {
		_ = f.in.Close()
		_ = f.cmd.Process.Kill()
		go func(c *exec.Cmd, lines chan string) {
			for range lines { // unblock the reader so that it ends
			}
			_ = c.Wait()
		}(f.cmd, f.lines)
		f.cmd = nil
	}
	if f.tmp != "" {
		_ = os.RemoveAll(f.tmp)
		f.tmp = ""
	}
}

func cmpStr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// unknownFilters is tag when one of its filters is not a nunjucks_filters entry, else "".
func (r *v5Renderer) unknownFilters(tag string) string {
	for _, name := range v5FilterChain(v5FilterRef.FindStringSubmatch(tag)[2]) {
		if !r.filters.has(name) {
			return tag
		}
	}
	return ""
}

// fileFilterIn is the first of the file's filters a template's tags use, "" if none.
func (r *v5Renderer) fileFilterIn(text string) string {
	for _, m := range v5FilterRef.FindAllStringSubmatch(text, -1) {
		for _, name := range v5FilterChain(m[2]) {
			if r.filters.has(name) {
				return name
			}
		}
	}
	return ""
}

// v5FilterChain is the filter names of a tag's `| a | b` part.
func v5FilterChain(pipes string) []string {
	var chain []string
	for _, p := range strings.Split(pipes, "|")[1:] {
		chain = append(chain, strings.TrimSpace(p))
	}
	return chain
}

// renderFiltered renders one `{{ path | f | g }}` tag with the file's filters (all known:
// unknownFilters checked); false after reporting a filter that failed.
func (r *v5Renderer) renderFiltered(at *yaml.Node, path, pipes string) (string, bool) {
	text, err := r.filters.apply(v5FilterChain(pipes), v5Lookup(r.vars, path))
	if err != nil {
		r.filterErr(at, fmt.Sprintf("template %q: %s", strings.TrimSpace(at.Value), err))
		return "", false
	}
	return text, true
}
