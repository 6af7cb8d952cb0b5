package e2e_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var (
	htmlTableRE = regexp.MustCompile(`(?s)<table>.*?</table>`)
	htmlRowRE   = regexp.MustCompile(`(?s)<tr>(.*?)</tr>`)
	htmlCellRE  = regexp.MustCompile(`(?s)<t[hd][^>]*>(.*?)</t[hd]>`)
	htmlTagRE   = regexp.MustCompile(`<[^>]*>`)
)

// The quick start's summary and comment, rendered as GitHub renders Markdown: the failure
// table fits the column and its one failure says why without opening anything.
func TestQuickstartReportsRendered(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	requireTools(t, "python3", "cmark-gfm")
	res := agentv(t, repoRoot(t), nil, "eval", "examples/quickstart/evals", "--max-failures", "1")
	if res.code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	for _, name := range []string{"summary.md", "comment.md"} {
		md, err := os.ReadFile(filepath.Join(res.outDir, name))
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("cmark-gfm", "--extension", "table", "--extension", "strikethrough", "--extension", "autolink",
			"--extension", "tagfilter", "--unsafe")
		cmd.Stdin = strings.NewReader(string(md))
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("cmark-gfm: %v", err)
		}
		html := string(out)
		if o, c := strings.Count(html, "<details"), strings.Count(html, "</details>"); o != c {
			t.Errorf("%s: %d <details> but %d </details>", name, o, c)
		}
		why := ""
		for _, table := range htmlTableRE.FindAllString(html, -1) {
			rows := htmlRowRE.FindAllStringSubmatch(table, -1)
			header := htmlCellRE.FindAllStringSubmatch(rows[0][1], -1)
			if len(header) > 6 {
				t.Errorf("%s: a table of %d columns", name, len(header))
			}
			if text(header[len(header)-1][1]) != "Why" {
				continue
			}
			for _, r := range rows[1:] {
				cells := htmlCellRE.FindAllStringSubmatch(r[1], -1)
				if text(cells[1][1]) == "haiku" {
					why = text(cells[len(cells)-1][1])
				}
			}
		}
		if why != "missing 'deploy'" {
			t.Errorf("%s: the haiku row's Why is %q, want \"missing 'deploy'\"", name, why)
		}
	}
}

func text(html string) string {
	return strings.TrimSpace(strings.NewReplacer("&#39;", "'", "&quot;", `"`, "&amp;", "&").Replace(htmlTagRE.ReplaceAllString(html, "")))
}
