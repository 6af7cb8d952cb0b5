package action

import (
	"crypto/rand"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/sethvargo/go-githubactions"

	"github.com/agentv/action/internal/logtext"
	"github.com/agentv/action/internal/redact"
)

// Commands writes workflow commands (::add-mask::, ::group::, annotations) to the step's
// log. It is safe for concurrent use: secrets can be registered from any goroutine.
// Write errors never panic (go-githubactions' IssueCommand does); the first is kept in Err.
//
// It is the only writer of workflow commands: every other line agentv prints carries its
// untrusted parts through logtext.Line, and multi-line untrusted text goes through Verbatim.
type Commands struct {
	mu       sync.Mutex
	w        io.Writer
	redact   *redact.Redactor
	err      error
	emitted  map[Level]int // file annotations written in this step, for the per-step caps
	overflow bool          // the "N more" notice was written
}

// NewCommands returns a writer of workflow commands to w (the step's stdout). Every secret
// r knows, now or later, is masked with ::add-mask:: the moment it is added, and every title
// and message written is redacted.
func NewCommands(w io.Writer, r *redact.Redactor) *Commands {
	c := &Commands{w: w, redact: r, emitted: map[Level]int{}}
	r.OnAdd(c.AddMask)
	return c
}

// Err returns the first error writing to the log, if any.
func (c *Commands) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

func (c *Commands) write(s string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.writeLocked(s)
}

func (c *Commands) writeLocked(s string) {
	if _, err := io.WriteString(c.w, s); err != nil && c.err == nil {
		c.err = fmt.Errorf("could not write workflow command: %w", err)
	}
}

func (c *Commands) issue(name, msg string) {
	c.write((&githubactions.Command{Name: name, Message: msg}).String() + "\n")
}

// AddMask tells the runner to mask value in all later log output. A multi-line value is
// also masked line by line, as the runner matches masks within single lines.
func (c *Commands) AddMask(value string) {
	if strings.TrimSpace(value) == "" {
		return
	}
	c.issue("add-mask", value)
	if strings.ContainsAny(value, "\r\n") {
		for _, line := range strings.FieldsFunc(value, func(r rune) bool { return r == '\n' || r == '\r' }) {
			if line = strings.TrimSpace(line); len(line) >= 4 {
				c.issue("add-mask", line)
			}
		}
	}
}

// Group starts a collapsible section of the log; close it with EndGroup.
func (c *Commands) Group(title string) { c.issue("group", c.clean(title, maxTitle)) }

// EndGroup ends the section started by Group.
func (c *Commands) EndGroup() { c.issue("endgroup", "") }

// Message writes a run-level annotation, one not attached to a file (an invalid input, a
// report that could not be written). It does not count against Annotate's per-step caps.
func (c *Commands) Message(level Level, title, msg string) {
	c.write(c.annotation(Annotation{Level: level, Title: title, Message: msg}))
}

// Verbatim writes header as one line and then body, untrusted text of many lines (a model's
// answer, a prompt, a command line), between ::stop-commands::TOKEN and ::TOKEN::, so the
// runner takes none of its lines for a workflow command while still showing them. The token
// is drawn at random for each body and drawn again if the body contains it. Both are
// redacted and sanitised. The whole goes out in one write under the lock, so no command (a
// secret's ::add-mask::) can fall inside the block and be ignored.
func (c *Commands) Verbatim(header, body string) {
	var b strings.Builder
	b.WriteString(logtext.Line(c.redact.String(header)) + "\n")
	if body = strings.TrimRight(logtext.Block(c.redact.String(body)), "\n"); body != "" {
		token, err := drawToken(rand.Reader, "agentv-", body)
		if err != nil {
			// Without a token the body cannot be fenced; flattened it is still safe.
			b.WriteString(logtext.Line(body) + "\n")
		} else {
			b.WriteString("::stop-commands::" + token + "\n" + body + "\n::" + token + "::\n")
		}
	}
	c.write(b.String())
}

// Lengths beyond which annotation text is cut; the summary holds the full story.
const (
	maxTitle   = 200
	maxMessage = 4000
)

// clean redacts and sanitises s (logtext.Block) and cuts it to maxRunes, so model text cannot
// smuggle escapes or NULs into the log nor break an annotation where a viewer would.
// Newlines survive: the command encoding escapes them.
func (c *Commands) clean(s string, maxRunes int) string {
	return sanitize(c.redact.String(s), maxRunes)
}

func sanitize(s string, maxRunes int) string {
	s = strings.TrimRight(logtext.Block(s), "\n")
	n := 0
	for i := range s {
		if n == maxRunes {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

// annotation renders a's workflow command line; an unknown level becomes a notice (it would
// be a plain log line).
func (c *Commands) annotation(a Annotation) string {
	if a.Level.rank() == 2 {
		a.Level = LevelNotice
	}
	props := githubactions.CommandProperties{}
	if a.File != "" {
		props["file"] = c.clean(a.File, 1000)
		if a.Line > 0 {
			props["line"] = strconv.Itoa(a.Line)
			if a.EndLine >= a.Line {
				props["endLine"] = strconv.Itoa(a.EndLine)
			}
			if a.Col > 0 {
				props["col"] = strconv.Itoa(a.Col)
			}
		}
	}
	if t := strings.ReplaceAll(c.clean(a.Title, maxTitle), "\n", " "); t != "" {
		props["title"] = t
	}
	cmd := githubactions.Command{Name: string(a.Level), Message: c.clean(a.Message, maxMessage), Properties: props}
	return cmd.String() + "\n"
}
