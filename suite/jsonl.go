package suite

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v4"

	"github.com/agentv/action/internal/safefile"
)

// loadJSONL reads a JSONL suite, one case a non-blank line; a bad line is reported and skipped.
func (l *Reader) loadJSONL() {
	l.loadSidecar()
	// Streamed without a cap, but a FIFO or device is refused rather than waited on.
	f, err := safefile.Open(l.Suite.Abs)
	if err != nil {
		l.readError(0, err)
		return
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 64<<10)
	for lineNo := 1; !l.stopped; lineNo++ {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			if lineNo == 1 {
				line = bytes.TrimPrefix(line, []byte("\ufeff"))
			}
			l.jsonlLine(line, lineNo)
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				l.readError(lineNo, err)
			}
			break
		}
	}
}

// JSONLNode parses one line of a JSONL file of either dialect; nil when blank or not JSON (reported).
func (l *Reader) JSONLNode(line []byte, lineNo int) *yaml.Node {
	line = bytes.TrimRight(line, "\r\n")
	if len(bytes.TrimSpace(line)) == 0 {
		return nil
	}
	n, jerr := parseJSONLine(line, lineNo)
	if jerr != nil {
		l.add(Diagnostic{File: l.file, Line: lineNo, Col: jerr.col, Severity: SeverityError, Kind: KindSyntax,
			Message: "invalid JSON: " + jerr.msg + " (line skipped)"})
	}
	return n
}

func (l *Reader) jsonlLine(line []byte, lineNo int) {
	n := l.JSONLNode(line, lineNo)
	if n == nil {
		return
	}
	if n.Kind != yaml.MappingNode {
		l.Errorf(n, KindCase, "", "a JSONL line must be one JSON object (an eval case), got %s (line skipped)", KindName(n))
		return
	}
	var c *Case
	if l.sidecarAsserts != nil || l.Suite.Name != "" || isV4Line(n) {
		l.Suite.SetDialect(Dialect4)
		l.interpolateEnv(n, map[*yaml.Node]bool{})
		sx := &v4Suite{}
		if !HasKey(n, "execution") { // a test's own execution replaces the sidecar's
			sx.asserts = l.sidecarAsserts
		}
		c = l.v4Test(sx, n)
	} else {
		c = l.parseCase(n)
	}
	if c != nil {
		c.Col = 1
	}
	l.AddCase(c)
}

// isV4Line reports whether a JSONL line is an AgentV 4.x test: it uses a key 2.5 does not have.
// (A sidecar with 4.x keys, `name` or `execution.assertions`, makes every line one.)
func isV4Line(n *yaml.Node) bool {
	return slices.ContainsFunc([]string{"criteria", "assertions", "assert", "vars", "input_files"},
		func(k string) bool { return HasKey(n, k) })
}

// loadSidecar reads `<name>.yaml` (or `.yml`) beside `<name>.jsonl`: the suite's header.
func (l *Reader) loadSidecar() {
	base := strings.TrimSuffix(l.Suite.Abs, filepath.Ext(l.Suite.Abs))
	for _, ext := range []string{".yaml", ".yml"} {
		path := base + ext
		src, err := safefile.ReadFile(path, safefile.LimitContent)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			l.add(Diagnostic{File: DisplayPath(path, l.Cwd), Severity: SeverityError, Kind: KindFile,
				Message: "could not read the JSONL sidecar: " + ErrText(err)})
			return
		}
		restore := l.InFile(path)
		l.Src = src
		doc := l.ParseYAML(src)
		if doc != nil && len(doc.Content) > 0 {
			root := Deref(doc.Content[0])
			switch {
			case IsNull(root):
			case root.Kind != yaml.MappingNode:
				l.Errorf(root, KindStructure, "", "a JSONL sidecar must be a mapping (description, dataset, execution), got %s", KindName(root))
			default:
				l.header(root, false)
			}
		}
		restore()
		return
	}
}

// CountJSONLCases counts the non-blank lines of a JSONL eval file without parsing them, so a
// run can show its total from the start.
func CountJSONLCases(path string) (int, error) {
	f, err := safefile.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 64<<10)
	n, blank := 0, true
	for {
		chunk, err := r.ReadSlice('\n')
		blank = blank && len(bytes.Trim(chunk, " \t\r\n")) == 0
		end := bytes.HasSuffix(chunk, []byte("\n"))
		if (end || err == io.EOF) && !blank {
			n++
		}
		blank = blank || end
		switch {
		case err == nil, errors.Is(err, bufio.ErrBufferFull):
		case errors.Is(err, io.EOF):
			return n, nil
		default:
			return n, err
		}
	}
}
