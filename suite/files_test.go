package suite

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
)

func fileCase(value string) string {
	return "evalcases:\n  - id: c\n    input_messages:\n      - role: user\n        content:\n          - {type: file, value: " + value + "}\n"
}

func TestFileResolutionOrder(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		files []string // files that exist (content = their own path)
		value string
		want  string // path (relative to the root) whose content is used; "" = not found
	}{
		{"eval dir first", []string{"evals/sub/data.txt", "evals/data.txt", "data.txt", "cwd/data.txt"}, "data.txt", "evals/sub/data.txt"},
		{"then parent", []string{"evals/data.txt", "data.txt"}, "data.txt", "evals/data.txt"},
		{"then repo root", []string{"data.txt", "cwd/data.txt"}, "data.txt", "data.txt"},
		{"then cwd", []string{"cwd/data.txt"}, "data.txt", "cwd/data.txt"},
		{"leading slash is repo-relative", []string{"shared/x.md"}, "/shared/x.md", "shared/x.md"},
		{"directories are not files", []string{"evals/sub/data.txt/inner", "data.txt"}, "data.txt", "data.txt"},
		{"missing", nil, "nope.txt", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fs := map[string]string{"repo/evals/sub/eval.yaml": fileCase(tt.value), "cwd/.keep": ""}
			for _, f := range tt.files {
				fs["repo/"+f] = f
				if strings.HasPrefix(f, "cwd/") {
					delete(fs, "repo/"+f)
					fs[f] = f
				}
			}
			root := writeTree(t, fs)
			// The repo root is repo/ (it holds .git); cwd/ is outside it.
			if err := os.Rename(filepath.Join(root, ".git"), filepath.Join(root, "repo", ".git")); err != nil {
				t.Fatal(err)
			}
			cwd := filepath.Join(root, "cwd")
			s := Load(filepath.Join(root, "repo/evals/sub/eval.yaml"), LoadOptions{Cwd: cwd})
			c := onlyCase(t, s)
			seg := c.Input[0].Content.Segments[0]
			if tt.want == "" {
				if seg.Resolved != "" || len(c.InputFiles) != 0 {
					t.Fatalf("resolved %q, want not found", seg.Resolved)
				}
				d := requireDiag(t, s.Diagnostics, SeverityWarning, `file "nope.txt" not found (tried: `+
					root+"/repo/evals/sub/nope.txt, "+root+"/repo/evals/nope.txt, "+root+"/repo/nope.txt, nope.txt)")
				if d.Kind != KindMissingFile || d.Line != 6 {
					t.Errorf("diagnostic %+v", d)
				}
				return
			}
			if seg.FileText != strings.TrimPrefix(tt.want, "cwd/") && seg.FileText != tt.want {
				t.Errorf("content %q, want the file %q", seg.FileText, tt.want)
			}
			if seg.Path != strings.TrimLeft(tt.value, "/") || seg.Value != tt.value {
				t.Errorf("Path %q Value %q", seg.Path, seg.Value)
			}
		})
	}
}

func TestFilesReadOncePerLoad(t *testing.T) {
	t.Parallel()
	root := writeTree(t, map[string]string{
		"shared.md": "crlf\r\ntext\r\n",
		"eval.yaml": "evalcases:\n" + strings.Repeat("", 0) +
			"  - {id: a, input_messages: [{role: user, content: [{type: file, value: shared.md}]}]}\n" +
			"  - {id: b, input_messages: [{role: user, content: [{type: file, value: ./shared.md}]}]}\n",
	})
	s := Load(filepath.Join(root, "eval.yaml"), LoadOptions{Cwd: root})
	if len(s.Cases) != 2 {
		t.Fatalf("%s", formatDiags(s.Diagnostics))
	}
	a := s.Cases[0].Input[0].Content.Segments[0].FileText
	b := s.Cases[1].Input[0].Content.Segments[0].FileText
	if a != "crlf\ntext\n" {
		t.Errorf("CRLF not normalized: %q", a)
	}
	if unsafe.StringData(a) != unsafe.StringData(b) {
		t.Errorf("cases referencing the same file must share one string")
	}
	if diff := cmp.Diff([]string{filepath.Join(root, "shared.md")}, s.Cases[1].InputFiles); diff != "" {
		t.Errorf("InputFiles (-want +got):\n%s", diff)
	}
}

func TestGuidelinePatterns(t *testing.T) {
	t.Parallel()
	caseFiles := "evalcases:\n  - id: c\n    input_messages:\n      - role: user\n        content:\n" +
		"          - {type: file, value: docs/a.instructions.md}\n" +
		"          - {type: file, value: docs/guides/deep/b.md}\n" +
		"          - {type: file, value: docs/c.md}\n" +
		"          - {type: file, value: prompts/d.md}\n"
	base := map[string]string{
		"evals/docs/a.instructions.md":   "A",
		"evals/docs/guides/deep/b.md":    "B",
		"evals/docs/c.md":                "C",
		"evals/prompts/d.md":             "D",
		"evals/eval.yaml":                caseFiles,
		"evals/unrelated/.agentv/x.yaml": "",
	}
	tests := []struct {
		name       string
		extra      map[string]string
		guidelines []string
		patterns   []string
		warn       string
	}{
		{"defaults", nil, []string{"a.instructions.md", "d.md"}, DefaultGuidelinePatterns, ""},
		{".agentv.yaml in eval dir", map[string]string{"evals/.agentv.yaml": "guideline_patterns: ['**/guides/**']"},
			[]string{"b.md"}, []string{"**/guides/**"}, ""},
		{".agentv.yaml wins over .agentv/config.yaml", map[string]string{
			"evals/.agentv.yaml": "guideline_patterns: ['evals/docs/*.md']", "evals/.agentv/config.yaml": "guideline_patterns: ['**/d.md']"},
			[]string{"a.instructions.md", "c.md"}, []string{"evals/docs/*.md"}, ""},
		{".agentv/config.yaml found walking up", map[string]string{".agentv/config.yaml": "$schema: agentv-config-v2\nguideline_patterns: ['**/c.md']"},
			[]string{"c.md"}, []string{"**/c.md"}, ""},
		{"star stays within a segment, ** spans", map[string]string{".agentv/config.yaml": "guideline_patterns: ['evals/*/b.md', 'evals/**/c.md']"},
			[]string{"c.md"}, []string{"evals/*/b.md", "evals/**/c.md"}, ""},
		{"empty list means no guidelines", map[string]string{".agentv/config.yaml": "guideline_patterns: []"},
			nil, []string{}, ""},
		{"invalid config warns and falls through", map[string]string{
			"evals/.agentv.yaml": "guideline_patterns: '**/*.md'", ".agentv/config.yaml": "guideline_patterns: ['**/c.md']"},
			[]string{"c.md"}, []string{"**/c.md"}, "guideline_patterns must be a list"},
		{"broken YAML config warns", map[string]string{"evals/.agentv.yaml": "guideline_patterns: [unclosed"},
			[]string{"a.instructions.md", "d.md"}, DefaultGuidelinePatterns, "config file ignored"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fs := map[string]string{}
			for k, v := range base {
				fs[k] = v
			}
			for k, v := range tt.extra {
				fs[k] = v
			}
			s := loadTree(t, fs, "evals/eval.yaml")
			c := onlyCase(t, s)
			var got []string
			for _, p := range c.GuidelinePaths {
				got = append(got, filepath.Base(p))
			}
			if diff := cmp.Diff(tt.guidelines, got); diff != "" {
				t.Errorf("guidelines (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.patterns, s.GuidelinePatterns); diff != "" {
				t.Errorf("patterns (-want +got):\n%s", diff)
			}
			if len(c.GuidelinePaths)+len(c.InputFiles) != 4 {
				t.Errorf("every file is either a guideline or an input file: %v %v", c.GuidelinePaths, c.InputFiles)
			}
			for _, seg := range c.Input[0].Content.Segments {
				isG := false
				for _, g := range c.GuidelinePaths {
					isG = isG || g == seg.Resolved
				}
				if seg.Guideline != isG {
					t.Errorf("segment %s Guideline=%v", seg.Path, seg.Guideline)
				}
			}
			if tt.warn != "" {
				d := requireDiag(t, s.Diagnostics, SeverityWarning, tt.warn)
				if d.Kind != KindConfig || !strings.HasSuffix(d.File, ".agentv.yaml") {
					t.Errorf("config diagnostic %+v", d)
				}
			} else if len(s.Diagnostics) != 0 {
				t.Errorf("unexpected diagnostics:\n%s", formatDiags(s.Diagnostics))
			}
		})
	}
}

func TestGuidelinesOnlyFromInput(t *testing.T) {
	t.Parallel()
	s := loadTree(t, map[string]string{
		"x.instructions.md": "G",
		"eval.yaml": "evalcases:\n  - id: c\n    input: hi\n    expected_messages:\n      - role: assistant\n" +
			"        content: [{type: file, value: x.instructions.md}]\n",
	}, "eval.yaml")
	c := onlyCase(t, s)
	if len(c.GuidelinePaths) != 0 || len(c.InputFiles) != 0 || c.Expected[0].Content.Segments[0].Guideline {
		t.Errorf("expected-message files are neither guidelines nor input files: %v %v", c.GuidelinePaths, c.InputFiles)
	}
	if c.Expected[0].Content.Segments[0].FileText != "G" {
		t.Errorf("expected file not read")
	}
}

func TestFindRepoRoot(t *testing.T) {
	t.Parallel()
	root := writeTree(t, map[string]string{"a/b/c/.keep": "", "a/.git": "gitdir: elsewhere"})
	tests := []struct {
		name, dir, workspace, cwd, want string
	}{
		{"nearest .git dir", root + "/a/b/c", "/ws", "/cwd", root + "/a"},
		{".git file counts (worktrees)", root + "/a", "", "/cwd", root + "/a"},
		{"the root itself", root, "/ws", "/cwd", root},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := FindRepoRoot(tt.dir, tt.workspace, tt.cwd); got != tt.want {
				t.Errorf("FindRepoRoot = %q, want %q", got, tt.want)
			}
		})
	}
	// Without any .git above: workspace, else cwd.
	bare := t.TempDir()
	if hasGitAbove(bare) {
		t.Skip("the temp dir lies inside a git repository")
	}
	if got := FindRepoRoot(bare, "/ws", "/cwd"); got != "/ws" {
		t.Errorf("workspace fallback = %q", got)
	}
	if got := FindRepoRoot(bare, "", "/cwd"); got != "/cwd" {
		t.Errorf("cwd fallback = %q", got)
	}
}

func hasGitAbove(dir string) bool {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return true
		}
		if filepath.Dir(d) == d {
			return false
		}
	}
}
