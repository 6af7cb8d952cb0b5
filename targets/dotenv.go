package targets

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agentv/action/internal/safefile"
)

// LoadEnv returns the lookup used for `${{ VAR }}`: the real environment (environ, KEY=VALUE
// entries) always wins; then the .env files from evalDir up to repoRoot, the nearest file
// winning, as a more specific file should (AgentV 2.5 lets the outermost win). An empty evalDir
// reads no .env file (the Action passes secrets through the real environment). Parsed files are
// cached by path, size and modification time, since the runner calls this once per eval file.
//
// The error is a .env file that exists but cannot be used: a FIFO, a device, a file over the
// size cap or one that cannot be read. The run must stop on it rather than hang, fill memory or
// silently miss variables; the lookup skips that file. A directory named .env (a common name for
// a Python virtualenv) is not a .env file.
func LoadEnv(environ []string, evalDir, repoRoot string) (LookupEnv, error) {
	procEnv := make(map[string]string, len(environ))
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok && k != "" {
			if _, dup := procEnv[k]; !dup { // like getenv: the first entry wins
				procEnv[k] = v
			}
		}
	}
	var files []map[string]string // nearest first
	var firstErr error
	for _, p := range EnvFiles(evalDir, repoRoot) {
		vars, err := dotenvLoad(p)
		if err != nil && firstErr == nil {
			firstErr = err
		}
		if vars != nil {
			files = append(files, vars)
		}
	}
	return func(name string) (string, bool) {
		if v, ok := procEnv[name]; ok {
			return v, true
		}
		for _, vars := range files {
			if v, ok := vars[name]; ok {
				return v, true
			}
		}
		return "", false
	}, firstErr
}

type dotenvEntry struct {
	size  int64
	mtime time.Time
	vars  map[string]string
}

var (
	dotenvMu    sync.Mutex
	dotenvCache = map[string]*dotenvEntry{}
)

// dotenvLoad parses a .env file: nil when it does not exist or is a directory, an error
// when it exists but cannot be used (see LoadEnv).
func dotenvLoad(path string) (map[string]string, error) {
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) || err == nil && st.IsDir() {
		return nil, nil
	}
	if err == nil && st.Mode().IsRegular() {
		dotenvMu.Lock()
		e := dotenvCache[path]
		dotenvMu.Unlock()
		if e != nil && e.size == st.Size() && e.mtime.Equal(st.ModTime()) {
			return e.vars, nil
		}
	}
	data, err := safefile.ReadFile(path, safefile.LimitConfig)
	if err != nil {
		return nil, fmt.Errorf("could not read .env file: %w", err)
	}
	vars := dotenvParse(data)
	if st != nil {
		dotenvMu.Lock()
		dotenvCache[path] = &dotenvEntry{size: st.Size(), mtime: st.ModTime(), vars: vars}
		dotenvMu.Unlock()
	}
	return vars, nil
}

// dotenvParse reads KEY=VALUE lines: `export KEY=...`, blank lines and `#` comments,
// single-quoted values taken literally, double-quoted values with \n \r \t \" \\ escapes,
// quoted values spanning lines, and unquoted values ending at ` #`. A later duplicate key
// wins; lines that are not assignments are ignored.
func dotenvParse(data []byte) map[string]string {
	out := map[string]string{}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), 16<<20)
	var lines []string
	for sc.Scan() {
		lines = append(lines, strings.TrimSuffix(sc.Text(), "\r"))
	}
	for i := 0; i < len(lines); i++ {
		line := strings.TrimSpace(lines[i])
		if line == "" || line[0] == '#' {
			continue
		}
		if rest, ok := strings.CutPrefix(line, "export"); ok && rest != "" && (rest[0] == ' ' || rest[0] == '\t') {
			line = strings.TrimSpace(rest)
		}
		key, val, ok := strings.Cut(line, "=")
		key = strings.TrimSpace(key)
		if !ok || !dotenvKey.MatchString(key) {
			continue
		}
		val = strings.TrimLeft(val, " \t")
		if val != "" && (val[0] == '"' || val[0] == '\'' || val[0] == '`') {
			q := val[0]
			body := val[1:]
			// A quoted value may continue on the following lines until its closing quote.
			for dotenvClose(body, q) < 0 && i+1 < len(lines) {
				i++
				body += "\n" + lines[i]
			}
			end := dotenvClose(body, q)
			if end < 0 {
				end = len(body)
			}
			body = body[:end]
			if q == '"' {
				body = dotenvUnescape(body)
			}
			out[key] = body
			continue
		}
		if j := strings.Index(val, " #"); j >= 0 {
			val = val[:j]
		} else if j := strings.Index(val, "\t#"); j >= 0 {
			val = val[:j]
		}
		out[key] = strings.TrimSpace(val)
	}
	return out
}

// dotenvClose finds the closing quote q in s (backslash escapes count in double quotes).
func dotenvClose(s string, q byte) int {
	for i := 0; i < len(s); i++ {
		switch {
		case q == '"' && s[i] == '\\':
			i++
		case s[i] == q:
			return i
		}
	}
	return -1
}

// dotenvUnescape reads \n \r \t \" \\ and \$ in a double-quoted value; other backslashes stay.
var dotenvUnescape = strings.NewReplacer(`\n`, "\n", `\r`, "\r", `\t`, "\t", `\"`, `"`, `\\`, `\`, `\$`, "$").Replace

// dotenvKey is a variable name: letters, digits (not first), '_', '.' and '-'.
var dotenvKey = regexp.MustCompile(`^[A-Za-z_.-][A-Za-z0-9_.-]*$`)

// EnvFiles lists the .env files a target of an eval file in evalDir may read variables from
// (nearest first; they need not exist), so a caller can tell which files a run reads.
func EnvFiles(evalDir, repoRoot string) []string {
	var out []string
	for _, d := range ancestors(evalDir, repoRoot) {
		out = append(out, filepath.Join(d, ".env"))
	}
	return out
}

// DotenvFiles lists the .env files LoadEnv would read for an eval file in evalDir, nearest
// first. Under GitHub Actions they are not read (secrets come from the workflow), and the
// run says so for each one present.
func DotenvFiles(evalDir, repoRoot string) []string {
	return slices.DeleteFunc(EnvFiles(evalDir, repoRoot), func(p string) bool {
		st, err := os.Stat(p)
		return err != nil || st.IsDir()
	})
}
