package agentv5

import (
	"errors"
	"io/fs"
	"path"
	"strings"

	"github.com/agentv/action/internal/safefile"
	"github.com/agentv/action/suite"

	yaml "go.yaml.in/yaml/v4"
)

// v5PromptMD is the file name 5.x takes a test's prompt from when the test has no input
// (loaders/prompt-md-fallback.ts, PROMPT_MD_FILENAME).
const v5PromptMD = "PROMPT.md"

// v5TopInputFiles checks the top-level `input_files`: files put before each test's input.
// 5.x refuses the file when it also has `prompts` (yaml-parser.ts, expandPromptMatrix).
func (l *reader) v5TopInputFiles(sx *v5Suite, e *suite.Entry, prompts *suite.Entry) bool {
	if prompts != nil {
		l.Errorf(e.KeyNode, suite.KindStructure, "", "top-level %q cannot be combined with %q in AgentV 5.x: list the files in each test's %q", e.Key, "prompts", "input_files")
		return false
	}
	if !suite.IsNull(e.Value) {
		sx.inputFiles = e
	}
	return true
}

// v5InputFiles is the input_files of one run of a test, rendered with its vars: the test's
// own, else the suite's unless skip_defaults (resolveInputMessages: raw.input_files ??
// suiteInputFiles); own tells which. nil when there are none.
func v5InputFiles(sx *v5Suite, f suite.EntryList, skipDefaults bool, render func(*yaml.Node) *yaml.Node) (files *yaml.Node, own bool) {
	if e := f.Get("input_files"); e != nil && !suite.IsNull(e.Value) {
		return render(e.Value), true
	}
	if sx.inputFiles != nil && !skipDefaults {
		return render(sx.inputFiles.Value), false
	}
	return nil, false
}

// v5PromptFromFiles is 5.x's prompt of a test without input: the PROMPT.md listed in its
// input_files, read as the input text, the other files staying input files
// (loaders/prompt-md-fallback.ts, loadPromptMdFallback). ok is false when files name no
// PROMPT.md; rest is nil when no file is left.
func (l *reader) v5PromptFromFiles(files *yaml.Node, fail func(*yaml.Node, string, ...any)) (input, rest *yaml.Node, ok bool) {
	files = suite.Deref(files)
	if files == nil || files.Kind != yaml.SequenceNode {
		return nil, nil, false
	}
	var prompt *yaml.Node
	var others []*yaml.Node
	for _, p := range files.Content {
		if d := suite.Deref(p); d != nil && suite.IsString(d) && path.Base(strings.ReplaceAll(d.Value, `\`, "/")) == v5PromptMD {
			if prompt == nil {
				prompt = d
			}
			continue
		}
		others = append(others, p)
	}
	if prompt == nil {
		return nil, nil, false
	}
	r := l.Resolve(prompt.Value, false)
	if r.Abs == "" {
		// 5.x then looks for a PROMPT.md beside the eval file, which agentv does not.
		fail(prompt, "%s %q not found (tried: %s)", v5PromptMD, prompt.Value, l.TriedList(r))
		return nil, nil, true
	}
	src, err := safefile.ReadFile(r.Abs, safefile.LimitEvalFile)
	if err != nil {
		fail(prompt, "could not read %s %q: %s", v5PromptMD, prompt.Value, suite.ErrText(err))
		return nil, nil, true
	}
	input = suite.StrNode(prompt, strings.ReplaceAll(string(src), "\r\n", "\n"))
	if len(others) > 0 {
		rest = suite.SeqNode(files, others...)
	}
	return input, rest, true
}

// v5SiblingPrompt is the PROMPT.md beside the eval file, 5.x's prompt of a test that has no
// input and lists no PROMPT.md (loadPromptMdFallback); nil when there is none.
func (l *reader) v5SiblingPrompt(at *yaml.Node, fail func(*yaml.Node, string, ...any)) *yaml.Node {
	abs := suite.AbsPath(l.Suite.Dir, v5PromptMD)
	src, err := safefile.ReadFile(abs, safefile.LimitEvalFile)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		fail(at, "could not read %s beside the eval file: %s", v5PromptMD, suite.ErrText(err))
		return nil
	}
	return suite.StrNode(at, strings.ReplaceAll(string(src), "\r\n", "\n"))
}
