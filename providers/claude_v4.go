package providers

import (
	"bytes"
	"cmp"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/agentv/action/internal/redact"
)

// A claude target asked for a case of a 4.x eval file is run as AgentV 4.42.4 runs it
// (packages/core/src/evaluation/providers/claude-cli.ts at tag v4.42.4): its flags, its prompt
// document and its stream log. Two things stay ours: without `cwd` the agent works in a fresh
// temporary folder, not in the checkout, and the log has secrets masked.

// claudeV4BaseArgs are 4.42.4's flags (claude-cli.ts, buildArgs).
var claudeV4BaseArgs = []string{"-p", "--output-format", "stream-json", "--include-partial-messages", "--verbose"}

// preReadDocument is the prompt document of 4.42.4's agent targets (preread.ts,
// buildPromptDocument): the list of input files to read first, when there are any, then the
// query. No instructions head it: a target's system_prompt goes to the agent on its own.
func preReadDocument(req *Request) string {
	seen := map[string]bool{}
	files := append(agentFiles(req, seen, req.GuidelinePaths), agentFiles(req, seen, req.InputFiles)...)
	if len(files) == 0 {
		files = agentFiles(req, seen, req.Files)
	}
	var b strings.Builder
	if len(files) > 0 {
		b.WriteString("Read all input files:\n")
		for i, p := range files {
			if i > 0 {
				b.WriteString("\n")
			}
			// 4.42.4 writes the path as it is, without percent-encoding.
			fmt.Fprintf(&b, "* [%s](file://%s)", filepath.Base(p), filepath.ToSlash(p))
		}
		b.WriteString(".\nIf any file is missing, fail with ERROR: missing-file <filename> and stop.\n" +
			"Then apply system_instructions on the user query below.\n\n")
	}
	b.WriteString("[[ ## user_query ## ]]\n\n")
	b.WriteString(strings.TrimSpace(req.Question))
	return strings.TrimSpace(b.String())
}

// claudeV4Log says where and how a claude target writes its stream log for 4.x eval files, as
// 4.42.4 does (claude-cli.ts, resolveLogDirectory and createStreamLogger): always, unless
// AGENTV_CLAUDE_STREAM_LOGS is false, 0 or off; in log_dir, else .agentv/logs/claude-cli, a
// relative folder taken from the working directory; `summary` lines unless log_format (or
// AGENTV_CLAUDE_LOG_FORMAT) says json.
type claudeV4Log struct {
	off  bool
	dir  string // relative: to the working directory
	json bool
}

func newClaudeV4Log(a *agentCLI, env []string) claudeV4Log {
	l := claudeV4Log{dir: cmp.Or(a.rawLogDir, filepath.Join(".agentv", "logs", "claude-cli"))}
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "AGENTV_CLAUDE_STREAM_LOGS="); ok {
			switch strings.ToLower(strings.TrimSpace(v)) {
			case "false", "0", "off":
				l.off = true
			}
		}
	}
	format := a.rawLogFormat
	if !a.hasLogFormat && a.t.Env != nil {
		format, _ = a.t.Env("AGENTV_CLAUDE_LOG_FORMAT")
	}
	// log_format's values were checked by newAgentCLI; the variable's are read as 4.42.4 reads
	// them, anything but json being its default, summary.
	l.json = strings.EqualFold(strings.TrimSpace(format), "json")
	return l
}

// open starts the log of one request: none when logs are off or the file cannot be made (4.42.4
// then warns and runs without one).
func (l claudeV4Log) open(target string, req *Request, red *redact.Redactor, logf func(string, ...any)) agentLog {
	if l.off {
		return noAgentLog{}
	}
	dir, err := filepath.Abs(l.dir)
	if err == nil {
		err = os.MkdirAll(dir, 0o755)
	}
	now := time.Now()
	var f *os.File
	var path string
	if err == nil {
		path = filepath.Join(dir, claudeV4LogName(now, target, req))
		f, err = os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	}
	if err != nil {
		if logf != nil {
			logf("claude target %q: case %s: no stream log: %v", target, req.EvalID, err)
		}
		return noAgentLog{}
	}
	s := &claudeStreamLog{f: f, path: path, json: l.json, red: red, start: now, now: time.Now}
	fmt.Fprintf(f, "# Claude CLI stream log\n# target: %s\n", target)
	if req.EvalID != "" {
		fmt.Fprintf(f, "# eval: %s\n", req.EvalID)
	}
	if req.Turn == 0 {
		fmt.Fprintf(f, "# attempt: %d\n", req.Attempt+1)
	}
	fmt.Fprintf(f, "# started: %s\n", now.UTC().Format("2006-01-02T15:04:05.000Z"))
	return s
}

// noAgentLog is the log of a run that writes none.
type noAgentLog struct{}

func (noAgentLog) Write(p []byte) (int, error) { return len(p), nil }
func (noAgentLog) Close() error                { return nil }
func (noAgentLog) Path() string                { return "" }

// claudeV4LogName is 4.42.4's log file name (claude-cli.ts, buildLogFilename): the start time,
// target, case id and attempt (none for a conversation turn), and a random suffix.
func claudeV4LogName(now time.Time, target string, req *Request) string {
	var rnd [4]byte
	_, _ = rand.Read(rnd[:])
	attempt := fmt.Sprintf("_attempt-%d", req.Attempt+1)
	if req.Turn > 0 {
		attempt = "" // 4.42.4 sends a conversation turn without an attempt number
	}
	// Go reads fractional seconds only after a dot: format with one, then write it as 4.42.4 does.
	stamp := strings.NewReplacer(":", "-", ".", "-").Replace(now.UTC().Format("2006-01-02T15:04:05.000Z"))
	return fmt.Sprintf("%s_%s_%s%s_%s.log", stamp,
		claudeV4FileName(target), claudeV4FileName(req.EvalID), attempt, hex.EncodeToString(rnd[:]))
}

func claudeV4FileName(s string) string {
	return cmp.Or(unsafeFileChars.ReplaceAllString(s, "_"), "claude-cli")
}

// claudeStreamLog writes each line Claude Code prints, masked, as it arrives: with the time
// since the start and either a short summary of the event or the event itself as JSON.
type claudeStreamLog struct {
	mu    sync.Mutex
	f     *os.File
	path  string
	json  bool
	red   *redact.Redactor
	start time.Time
	now   func() time.Time
	buf   []byte // an unfinished line
	err   error  // the first write error
}

func (s *claudeStreamLog) Path() string { return s.path }

func (s *claudeStreamLog) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.buf = append(s.buf, p...)
	for {
		i := bytes.IndexByte(s.buf, '\n')
		if i < 0 {
			break
		}
		s.line(s.buf[:i])
		s.buf = s.buf[i+1:]
	}
	return len(p), nil
}

// Close writes the last line if it had no newline and closes the file.
func (s *claudeStreamLog) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.buf) > 0 {
		s.line(s.buf)
		s.buf = nil
	}
	if err := s.f.Close(); s.err == nil {
		s.err = err
	}
	return s.err
}

func (s *claudeStreamLog) line(raw []byte) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return
	}
	raw = s.red.Bytes(raw)
	elapsed := claudeElapsed(s.now().Sub(s.start))
	var event map[string]json.RawMessage
	isEvent := json.Unmarshal(raw, &event) == nil && event != nil
	var out string
	switch {
	case s.json && isEvent:
		var c bytes.Buffer
		_ = json.Compact(&c, raw)
		out = `{"time":"` + elapsed + `","data":` + c.String() + "}"
	case s.json:
		b, _ := json.Marshal(struct {
			Time string `json:"time"`
			Raw  string `json:"raw"`
		}{elapsed, string(raw)})
		out = string(b)
	case isEvent:
		summary, ok := claudeEventSummary(event)
		if !ok {
			return
		}
		typ := "unknown"
		_ = json.Unmarshal(event["type"], &typ)
		out = fmt.Sprintf("[+%s] [%s] %s", elapsed, typ, summary)
	default:
		out = fmt.Sprintf("[+%s] %s", elapsed, raw)
	}
	if _, err := s.f.WriteString(out + "\n"); err != nil && s.err == nil {
		s.err = err
	}
}

// claudeElapsed is 4.42.4's elapsed time: MM:SS, or HH:MM:SS from an hour on.
func claudeElapsed(d time.Duration) string {
	secs := int(d / time.Second)
	h, m, sec := secs/3600, secs%3600/60, secs%60
	if h > 0 {
		return fmt.Sprintf("%02d:%02d:%02d", h, m, sec)
	}
	return fmt.Sprintf("%02d:%02d", m, sec)
}

// claudeEventSummary is 4.42.4's one-line summary of a stream event (claude-cli.ts,
// summarizeEvent); false for the events it leaves out of the log.
func claudeEventSummary(event map[string]json.RawMessage) (string, bool) {
	var typ string
	_ = json.Unmarshal(event["type"], &typ)
	var msg struct {
		Content []map[string]json.RawMessage `json:"content"`
	}
	var block map[string]json.RawMessage // the message's first content block
	if json.Unmarshal(event["message"], &msg) == nil && len(msg.Content) > 0 {
		block = msg.Content[0]
	}
	// field is a block's field: its string, else its JSON as written (false).
	field := func(key string) (string, bool) {
		var v string
		if json.Unmarshal(block[key], &v) == nil {
			return v, true
		}
		return string(block[key]), false
	}
	kind, _ := field("type")
	switch typ {
	case "assistant":
		switch kind {
		case "tool_use":
			name, _ := field("name")
			return "tool_use (" + name + ")", true
		case "text":
			if text, ok := field("text"); ok {
				if r := []rune(text); len(r) > 50 {
					text = string(r[:50]) + "..."
				}
				return text, true
			}
		}
		return "message", true
	case "user":
		if kind == "tool_result" {
			id, _ := field("tool_use_id")
			return "tool_result (" + id + ")", true
		}
		return "user", true
	case "result":
		var cost, ms *float64
		_ = json.Unmarshal(event["total_cost_usd"], &cost)
		_ = json.Unmarshal(event["duration_ms"], &ms)
		if cost != nil && ms != nil {
			return fmt.Sprintf("$%.4f, %dms", *cost, int64(math.Round(*ms))), true
		}
		return "result", true
	case "system":
		return "init", true
	}
	return "", false
}
