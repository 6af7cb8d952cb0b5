package prompt

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentv/action/internal/golden"
	"github.com/agentv/action/providers"
	"github.com/agentv/action/suite"
)

func reqText(role, s string) suite.Message {
	return suite.Message{Role: role, Content: suite.Content{Kind: suite.ContentText, Text: s}}
}

func reqSegs(role string, ss ...suite.Segment) suite.Message {
	return suite.Message{Role: role, Content: suite.Content{Kind: suite.ContentSegments, Segments: ss}}
}

func reqTextSeg(s string) suite.Segment { return suite.Segment{Type: "text", Value: s} }

func reqFileSeg(value, content string, guideline bool) suite.Segment {
	return suite.Segment{Type: "file", Value: value, Path: strings.TrimLeft(value, "/"), Resolved: "/repo/" + strings.TrimLeft(value, "/"), FileText: content, Guideline: guideline}
}

var requestCases = []struct {
	name string
	c    *suite.Case
}{
	{"single_turn", &suite.Case{ID: "single", Input: []suite.Message{reqText("user", "  What is 2+2?\n")}}},
	{"system_user", &suite.Case{ID: "sys", Input: []suite.Message{reqText("system", "You are terse."), reqText("user", "Say hi.")}}},
	{"system_blank_user", &suite.Case{ID: "sysblank", Input: []suite.Message{reqText("system", "  "), reqText("user", "Only I count.")}}},
	{"guideline_and_input_files", &suite.Case{
		ID: "files",
		Input: []suite.Message{reqSegs("user",
			reqTextSeg("Review this file."),
			reqFileSeg("prompts/style.prompt.md", "Be kind.\nUse <b>bold</b> & care.\n", true),
			reqFileSeg("/src/app.py", "\nprint('hi')\n\n", false),
			suite.Segment{Type: "file", Value: "missing.txt", Path: "missing.txt"},
			reqFileSeg("empty.txt", "", false),
			reqTextSeg("   "),
		)},
		GuidelinePaths: []string{"/repo/prompts/style.prompt.md"},
		InputFiles:     []string{"/repo/src/app.py", "/repo/empty.txt"},
	}},
	{"conversation", &suite.Case{
		ID: "conv",
		Input: []suite.Message{
			reqSegs("system", reqTextSeg("You review code."), reqFileSeg("rules.instructions.md", "No globals.", true)),
			reqText("system", "Answer in English."),
			reqSegs("user", reqTextSeg("Look at this:"), reqFileSeg("a.go", "package a\n", false), reqFileSeg("rules.instructions.md", "No globals.", true)),
			reqText("assistant", "It declares package a."),
			{Role: "tool", Content: suite.Content{Kind: suite.ContentText, Text: "tool output"}},
			{Role: "assistant", ToolCalls: json.RawMessage(`[{"tool":"x"}]`)},
			reqText("system", "Be brief now."),
			reqText("user", "Anything else?"),
		},
		GuidelinePaths: []string{"/repo/rules.instructions.md"},
		InputFiles:     []string{"/repo/a.go"},
	}},
	{"structured", &suite.Case{ID: "obj", Input: []suite.Message{
		{Role: "user", Content: suite.Content{Kind: suite.ContentStructured, Structured: json.RawMessage(`{"zeta":1,"alpha":["<x>","&"]}`)}},
	}}},
}

// TestBuildRequestGolden renders each case in both modes with its record; -update rewrites.
func TestBuildRequestGolden(t *testing.T) {
	t.Parallel()
	for _, tc := range requestCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.c.Suite = &suite.Suite{Dir: "/repo/evals"}
			var b strings.Builder
			for _, mode := range []providers.Mode{providers.ModeLM, providers.ModeAgent} {
				req := Build(tc.c, mode)
				if req.EvalID != tc.c.ID || req.Dir != "/repo/evals" {
					t.Errorf("EvalID %q Dir %q", req.EvalID, req.Dir)
				}
				name := map[providers.Mode]string{providers.ModeLM: "lm", providers.ModeAgent: "agent"}[mode]
				b.WriteString("==== " + name + "\n")
				b.WriteString("---- question\n" + req.Question + "\n")
				b.WriteString("---- guidelines\n" + req.Guidelines + "\n")
				for _, m := range req.Chat {
					b.WriteString("---- chat " + m.Role + "\n" + m.Content + "\n")
				}
				b.WriteString("---- files\n" + strings.Join(req.Files, "\n") + "\n")
				b.WriteString("---- record\n" + string(Record(req, mode)) + "\n")
			}
			golden.Check(t, filepath.Join("testdata", "request", tc.name+".golden"), b.String())
		})
	}
}

func TestBuildRequestGuidelineFromDisk(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "team.instructions.md")
	if err := os.WriteFile(p, []byte("  Line one\r\nLine two\r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := &suite.Case{ID: "x", Input: []suite.Message{reqText("user", "q")}, GuidelinePaths: []string{p, filepath.Join(dir, "gone.md")}}
	req := Build(c, providers.ModeLM)
	want := "<file path=\"team.instructions.md\">\nLine one\nLine two\n</file>"
	if req.Guidelines != want {
		t.Errorf("guidelines %q, want %q", req.Guidelines, want)
	}
	if diff := cmp.Diff([]string{p, filepath.Join(dir, "gone.md")}, req.Files); diff != "" {
		t.Error(diff)
	}
}

func TestRequestRecordEmpty(t *testing.T) {
	t.Parallel()
	req := &providers.Request{}
	if got := string(Record(req, providers.ModeAgent)); got != `{"question":"","guideline_paths":[]}` {
		t.Errorf("agent: %s", got)
	}
	if got := string(Record(req, providers.ModeLM)); got != `{"question":"","guidelines":""}` {
		t.Errorf("lm: %s", got)
	}
}

func TestBuildRequestDedupesFiles(t *testing.T) {
	t.Parallel()
	c := &suite.Case{ID: "d", GuidelinePaths: []string{"/g"}, InputFiles: []string{"/a", "/g", "/a"}}
	if diff := cmp.Diff([]string{"/g", "/a"}, Build(c, providers.ModeAgent).Files); diff != "" {
		t.Error(diff)
	}
}
