package providers

import (
	"cmp"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/agentv/action/targets"
)

// cliValues are the raw (unquoted) values of one command's placeholders.
type cliValues struct {
	Prompt     string
	PromptFile string // the path of a file holding Prompt (AgentV 4.x's {PROMPT_FILE})
	Guidelines string
	EvalID     string
	Attempt    int
	Files      []string // absolute paths, rendered with files_format
	OutputFile string
}

var cliFileFormatRe = regexp.MustCompile(`\{(path|basename)\}`)

// cliRender fills a command template. Every value is POSIX shell-quoted, so the template
// must not add quotes of its own; {FILES} is each file rendered with filesFormat ({path},
// {basename}, each quoted), joined by spaces, and empty when there are no files. Substitution
// is a single pass over the template: text inside a value is never substituted again.
// Unknown `{UPPER_CASE}` tokens are left as written (loading rejects them). NUL bytes,
// which no argv can carry, are dropped from values.
func cliRender(tmpl, filesFormat string, v cliValues) string {
	return targets.CLIPlaceholder.ReplaceAllStringFunc(tmpl, func(tok string) string {
		switch tok[1 : len(tok)-1] {
		case "PROMPT":
			return cliQuote(v.Prompt)
		case "PROMPT_FILE":
			return cliQuote(v.PromptFile)
		case "GUIDELINES":
			return cliQuote(v.Guidelines)
		case "EVAL_ID":
			return cliQuote(v.EvalID)
		case "ATTEMPT":
			return cliQuote(strconv.Itoa(v.Attempt))
		case "OUTPUT_FILE":
			return cliQuote(v.OutputFile)
		case "FILES":
			return cliFiles(filesFormat, v.Files)
		}
		return tok
	})
}

// cliFiles renders the file list for {FILES}.
func cliFiles(format string, files []string) string {
	format = cmp.Or(format, "{path}")
	parts := make([]string, 0, len(files))
	for _, f := range files {
		parts = append(parts, cliFileFormatRe.ReplaceAllStringFunc(format, func(tok string) string {
			if tok == "{basename}" {
				return cliQuote(filepath.Base(f))
			}
			return cliQuote(f)
		}))
	}
	return strings.Join(parts, " ")
}

// cliQuote quotes s as one POSIX shell word: single quotes, an embedded quote written as
// '"'"'; the empty string becomes a pair of single quotes.
func cliQuote(s string) string {
	s = strings.ReplaceAll(s, "\x00", "")
	return "'" + strings.ReplaceAll(s, "'", `'"'"'`) + "'"
}
