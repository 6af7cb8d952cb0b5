package action

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/agentv/action/gate"
)

// Output is one step output.
type Output struct {
	Name  string
	Value string
}

// Outputs writes step outputs to the GITHUB_OUTPUT file command, each value in a heredoc whose
// delimiter is drawn at random and again if the value contains it, so model text cannot end a
// value early and forge another output (go-githubactions' fixed SetOutput delimiter allows it).
type Outputs struct {
	Path string    // GITHUB_OUTPUT; "" (a local run) makes writes a no-op
	Rand io.Reader // delimiter randomness; nil: crypto/rand
}

// maxDelimiterDraws bounds redraws; a collision with 128 random bits means the reader is broken.
const maxDelimiterDraws = 8

// SetAll writes outputs in one append, so a failure leaves none of them half-written.
func (o Outputs) SetAll(outs []Output) error {
	if o.Path == "" {
		return nil
	}
	var b strings.Builder
	for _, out := range outs {
		if !validOutputName(out.Name) {
			return fmt.Errorf("could not set output %q: names are letters, digits, _ and -", out.Name)
		}
		r := o.Rand
		if r == nil {
			r = rand.Reader
		}
		delim, err := drawToken(r, "ghadelimiter_", out.Value)
		if err != nil {
			return fmt.Errorf("could not set output %s: %w", out.Name, err)
		}
		b.WriteString(out.Name + "<<" + delim + "\n" + out.Value + "\n" + delim + "\n")
	}
	return appendFile(o.Path, b.String())
}

// drawToken draws prefix and 128 random bits in hex, again while text contains it.
func drawToken(r io.Reader, prefix, text string) (string, error) {
	buf := make([]byte, 16)
	for range maxDelimiterDraws {
		if _, err := io.ReadFull(r, buf); err != nil {
			return "", fmt.Errorf("could not draw a delimiter: %w", err)
		}
		if d := prefix + hex.EncodeToString(buf); !strings.Contains(text, d) {
			return d, nil
		}
	}
	return "", errors.New("could not draw a delimiter that the value does not contain")
}

var validOutputName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*$`).MatchString

// appendFile appends s to a runner file command in one write.
func appendFile(path, s string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("could not open %s: %w", path, err)
	}
	_, werr := f.WriteString(s)
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		return fmt.Errorf("could not write %s: %w", path, err)
	}
	return nil
}

// RunOutputs are the Action's outputs, as action.yml declares them.
type RunOutputs struct {
	Outcome   gate.Outcome
	Total     int
	Passed    int
	Failed    int
	Errors    int
	Skipped   int
	Flaky     int     // cases whose trials disagreed about passing
	MeanScore float64 // 0–1
	PassRate  float64 // 0–1
	// Paths are workspace-relative (see WorkspacePath).
	ResultsPath string
	JUnitPath   string
	SummaryPath string
	CommentURL  string // "" when no comment was posted or updated
	// Against a baseline; Compared is false without one (the outputs are then empty).
	Compared                  bool
	Regressions, Improvements int
	MeanScoreDelta            float64
}

// Pairs returns the outputs in action.yml's order, scores with four decimals.
func (r RunOutputs) Pairs() []Output {
	f4 := func(v float64) string { return strconv.FormatFloat(v, 'f', 4, 64) }
	return []Output{
		{"outcome", string(r.Outcome)},
		{"total", strconv.Itoa(r.Total)},
		{"passed", strconv.Itoa(r.Passed)},
		{"failed", strconv.Itoa(r.Failed)},
		{"errors", strconv.Itoa(r.Errors)},
		{"skipped", strconv.Itoa(r.Skipped)},
		{"flaky", strconv.Itoa(r.Flaky)},
		{"mean-score", f4(r.MeanScore)},
		{"pass-rate", f4(r.PassRate)},
		{"results-path", r.ResultsPath},
		{"junit-path", r.JUnitPath},
		{"summary-path", r.SummaryPath},
		{"comment-url", r.CommentURL},
		{"regressions", r.ifCompared(strconv.Itoa(r.Regressions))},
		{"improvements", r.ifCompared(strconv.Itoa(r.Improvements))},
		{"mean-score-delta", r.ifCompared(signed4(r.MeanScoreDelta))},
	}
}

// ifCompared is s for a run compared with a baseline, else "".
func (r RunOutputs) ifCompared(s string) string {
	if !r.Compared {
		return ""
	}
	return s
}

// signed4 formats a change with four decimals and its sign: +0.1200, -0.0500, 0.0000.
func signed4(f float64) string {
	s := strconv.FormatFloat(f, 'f', 4, 64)
	switch {
	case s == "0.0000" || s == "-0.0000":
		return "0.0000"
	case strings.HasPrefix(s, "-"):
		return s
	}
	return "+" + s
}

// MaxSummaryBytes is the step summary limit: over 1 MiB the runner drops the whole summary
// (https://docs.github.com/en/actions/using-workflows/workflow-commands-for-github-actions#adding-a-job-summary).
const MaxSummaryBytes = 1 << 20

// ErrSummaryTooLarge: an append would go over MaxSummaryBytes, so nothing was written.
var ErrSummaryTooLarge = errors.New("step summary would exceed 1 MiB")

// Summary appends Markdown to the GITHUB_STEP_SUMMARY file command.
type Summary struct {
	Path string // GITHUB_STEP_SUMMARY; "" (a local run) makes writes a no-op
}

// Room returns how many bytes can still be appended to the step summary.
func (s Summary) Room() int {
	fi, err := os.Stat(s.Path) // "" (a local run) is never there
	if err != nil {
		return MaxSummaryBytes
	}
	return max(0, MaxSummaryBytes-int(fi.Size()))
}

// Append adds markdown to the step summary, refusing to go over MaxSummaryBytes.
func (s Summary) Append(markdown string) error {
	if s.Path == "" {
		return nil
	}
	if markdown != "" && !strings.HasSuffix(markdown, "\n") {
		markdown += "\n"
	}
	var have int64
	if fi, err := os.Stat(s.Path); err == nil {
		have = fi.Size()
	}
	if have+int64(len(markdown)) > MaxSummaryBytes {
		return fmt.Errorf("could not append %d bytes to the step summary (%d bytes already): %w", len(markdown), have, ErrSummaryTooLarge)
	}
	return appendFile(s.Path, markdown)
}
