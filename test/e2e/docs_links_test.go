package e2e_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// TestDocsLinks checks that every relative link and image in the user-facing Markdown names a
// file that exists and, with a #fragment, a heading of that file: sections move between the
// README and docs/, and a link left behind would point nowhere.
func TestDocsLinks(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files := []string{"README.md", "providers/README.md", "sdk/js/README.md"}
	for _, d := range docs {
		files = append(files, "docs/"+filepath.Base(d))
	}
	for _, f := range files {
		t.Run(f, func(t *testing.T) {
			t.Parallel()
			src := filepath.Join(root, filepath.FromSlash(f))
			for _, link := range markdownLinks(t, src) {
				path, frag, _ := strings.Cut(link, "#")
				target := src
				if path != "" {
					target = filepath.Join(filepath.Dir(src), filepath.FromSlash(path))
				}
				if _, err := os.Stat(target); err != nil {
					t.Errorf("link %q: %v", link, err)
					continue
				}
				if frag != "" && strings.HasSuffix(target, ".md") && !markdownAnchors(t, target)[frag] {
					t.Errorf("link %q: %s has no heading with that anchor", link, filepath.Base(target))
				}
			}
		})
	}
}

// TestREADMECompatibilityNotes checks that the README itself lists, in short, where this
// project and AgentV 2.5 differ, and points to the full notes for both dialects.
func TestREADMECompatibilityNotes(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join(repoRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(raw)
	for _, want := range []string{
		"## Coming from AgentV 2.5", "keeps its keys in judge payloads", "Guideline patterns have defaults",
		"`reference_answer` is used", "never skips a case", "prompt path is executed", "is an empty prompt",
		"first valid JSON object", "CLI-provider timeouts are retried", "A failed healthcheck makes the run `invalid`",
		"mock provider honours its delays", "`execution.target` is honoured", "exit non-zero when the gate fails",
		"`2024-10-01-preview`", "(docs/agentv-2.5.md)", "(docs/agentv-4.md)", "**Linux runners only**",
	} {
		if !strings.Contains(readme, want) {
			t.Errorf("README.md does not say %q", want)
		}
	}
}

var (
	fencedBlock  = regexp.MustCompile("(?ms)^ *```.*?^ *```")
	inlineCode   = regexp.MustCompile("`[^`\n]*`")
	markdownLink = regexp.MustCompile(`\]\(([^)\s]+)\)|<img [^>]*src="([^"]+)"`)
	headingLine  = regexp.MustCompile(`(?m)^#{1,6} +(.+?) *$`)
)

// markdownLinks returns the relative link targets of a Markdown file, outside code.
func markdownLinks(t *testing.T, path string) []string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := inlineCode.ReplaceAllString(fencedBlock.ReplaceAllString(string(raw), ""), "")
	var links []string
	for _, m := range markdownLink.FindAllStringSubmatch(text, -1) {
		link := m[1] + m[2]
		if strings.Contains(link, "://") || strings.HasPrefix(link, "mailto:") {
			continue
		}
		links = append(links, link)
	}
	return links
}

// markdownAnchors returns the anchors GitHub gives a Markdown file's headings: lower case,
// punctuation dropped, spaces as hyphens, repeats numbered -1, -2, ...
func markdownAnchors(t *testing.T, path string) map[string]bool {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	anchors := map[string]bool{}
	seen := map[string]int{}
	for _, m := range headingLine.FindAllStringSubmatch(fencedBlock.ReplaceAllString(string(raw), ""), -1) {
		a := strings.Map(func(r rune) rune {
			switch {
			case r == ' ':
				return '-'
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				return unicode.ToLower(r)
			}
			return -1
		}, m[1])
		if n := seen[a]; n > 0 {
			anchors[a+"-"+strconv.Itoa(n)] = true
		} else {
			anchors[a] = true
		}
		seen[a]++
	}
	return anchors
}
