// Package differential compares agentv with AgentV 4.42.4 on the suites of
// internal/WriteDifferential: it runs both programs, reads their result files into one
// shape, and lists every difference in scores, verdicts and code-grader payloads. The test in
// this package runs when AGENTV_TEST_AGENTV442 names 4.42.4's cli.js (.ci/run installs it).
package differential

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// FakeOpenAI is an OpenAI-compatible chat completions endpoint that answers deterministically
// from the prompt (the rules are on the constants in suites_test.go), so both programs get the
// same answer to the same question. Serve it with httptest on 127.0.0.1.
type FakeOpenAI struct {
	mu         sync.Mutex
	unexpected []string // requests it could not answer, for the test to report
}

// Unexpected lists the requests the server refused.
func (f *FakeOpenAI) Unexpected() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.unexpected...)
}

func (f *FakeOpenAI) refuse(w http.ResponseWriter, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	f.mu.Lock()
	f.unexpected = append(f.unexpected, msg)
	f.mu.Unlock()
	http.Error(w, `{"error":{"message":`+strconv.Quote(msg)+`}}`, http.StatusBadRequest)
}

type chatRequest struct {
	Model    string `json:"model"`
	Stream   bool   `json:"stream"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
}

// text flattens a message content: a string or a list of {type: text, text} parts.
func text(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &parts)
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

func (f *FakeOpenAI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		f.refuse(w, "%s %s: only POST .../chat/completions is served", r.Method, r.URL.Path)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		f.refuse(w, "reading the request: %v", err)
		return
	}
	var req chatRequest
	if err := json.Unmarshal(body, &req); err != nil {
		f.refuse(w, "request is not JSON: %v", err)
		return
	}
	var answer string
	switch req.Model {
	case DiffAgentModel:
		last := ""
		for _, m := range req.Messages {
			if m.Role == "user" {
				last = text(m.Content)
			}
		}
		answer = "echo: " + last
	case DiffGraderModel:
		var all strings.Builder
		for _, m := range req.Messages {
			all.WriteString(text(m.Content))
			all.WriteString("\n")
		}
		answer = Verdict(all.String())
	default:
		f.refuse(w, "unknown model %q", req.Model)
		return
	}
	usage := map[string]any{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
	if req.Stream {
		// Server-sent events as OpenAI sends them: the text, the finish with usage, [DONE].
		w.Header().Set("Content-Type", "text/event-stream")
		chunk := func(delta map[string]any, finish any, usage any) {
			c := map[string]any{"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1700000000, "model": req.Model,
				"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
			if usage != nil {
				c["usage"] = usage
			}
			fmt.Fprintf(w, "data: %s\n\n", mustJSON(c))
		}
		chunk(map[string]any{"role": "assistant", "content": answer}, nil, nil)
		chunk(map[string]any{}, "stop", usage)
		fmt.Fprint(w, "data: [DONE]\n\n")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-fake", "object": "chat.completion", "created": 1700000000, "model": req.Model,
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": answer}}},
		"usage": usage,
	})
}

var (
	gradeRE     = regexp.MustCompile(`grade=([0-9.]+)`)
	criterionRE = regexp.MustCompile(`(?m)^### Criterion: (\S+)`)
	descRE      = regexp.MustCompile(`(?m)^Description: (.*)$`)
	rangeMarkRE = regexp.MustCompile(`\(s=(\d+)\)`)
	rubricRE    = regexp.MustCompile(`(?m)^- \[([^\]]+)\][^:\n]*: (.*)$`)
)

// UnreadableMark in a grader prompt makes the reply hold no verdict, so the two programs'
// handling of a reply they cannot read (after their re-asks and repairs) is compared.
const UnreadableMark = "reply=unreadable"

// Verdict is the grader's reply to prompt.
func Verdict(prompt string) string {
	switch {
	case strings.Contains(prompt, UnreadableMark):
		// The reply holds the mark too, so a request to repair it gets no verdict either.
		return "I would rather not say how good this answer is (" + UnreadableMark + ")."
	case strings.Contains(prompt, "[[ ## scoring_criteria ## ]]"):
		var checks []map[string]any
		idx := criterionRE.FindAllStringSubmatchIndex(prompt, -1)
		for i, m := range idx {
			end := len(prompt)
			if i+1 < len(idx) {
				end = idx[i+1][0]
			}
			score := 10
			if d := descRE.FindStringSubmatch(prompt[m[1]:end]); d != nil {
				if s := rangeMarkRE.FindStringSubmatch(d[1]); s != nil {
					score, _ = strconv.Atoi(s[1])
				}
			}
			checks = append(checks, map[string]any{"id": prompt[m[2]:m[3]], "score": score, "reasoning": "fake"})
		}
		return mustJSON(map[string]any{"checks": checks, "overall_reasoning": "fake score ranges"})
	case strings.Contains(prompt, "[[ ## rubrics ## ]]"):
		checks := []map[string]any{}
		for _, m := range rubricRE.FindAllStringSubmatch(prompt[strings.Index(prompt, "[[ ## rubrics ## ]]"):], -1) {
			checks = append(checks, map[string]any{"id": m[1], "satisfied": !strings.Contains(m[2], "(no)"), "reasoning": "fake"})
		}
		return mustJSON(map[string]any{"checks": checks, "overall_reasoning": "fake rubric"})
	default:
		score := 1.0
		if m := gradeRE.FindStringSubmatch(prompt); m != nil {
			score, _ = strconv.ParseFloat(strings.TrimRight(m[1], "."), 64)
		}
		return mustJSON(map[string]any{"score": score,
			"assertions": []any{map[string]any{"text": "fake check", "passed": score >= 0.5, "evidence": "fake"}}})
	}
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // maps of strings and numbers always marshal
	}
	return string(b)
}
