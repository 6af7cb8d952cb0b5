package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentv/action/report/htmlreport"
)

// agentv report writes report.html beside the other reports, from the results file, and
// refuses to replace a report.html it did not write.
func TestReportWritesHTML(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "results.jsonl")
	lines := `{"eval_id":"a <script>","dataset":"d","score":1,"verdict":"pass","candidate_answer":"</script><b>x</b>","file":"e.yaml","line":1}` + "\n" +
		`{"eval_id":"b","dataset":"d","score":0.2,"verdict":"fail","file":"e.yaml","line":5}` + "\n"
	if err := os.WriteFile(path, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr strings.Builder
	c := &Command{Stdout: &stdout, Stderr: &stderr, Getenv: func(string) string { return "" }, Cwd: dir}
	c.Main(t.Context(), []string{"report", "--results", path})
	page, err := os.ReadFile(filepath.Join(dir, htmlreport.FileName))
	if err != nil {
		t.Fatalf("no report.html: %v\n%s", err, stderr.String())
	}
	for _, want := range []string{htmlreport.Generator, `"id":"a \u003cscript\u003e"`, `"ans":"\u003c/script\u003e\u003cb\u003ex\u003c/b\u003e"`, `"id":"b"`} {
		if !strings.Contains(string(page), want) {
			t.Errorf("report.html lacks %s", want)
		}
	}

	// A user's own report.html in a folder agentv chose is left alone.
	own := filepath.Join(dir, htmlreport.FileName)
	if err := os.WriteFile(own, []byte("<html>mine</html>"), 0o644); err != nil {
		t.Fatal(err)
	}
	stderr.Reset()
	c.Main(t.Context(), []string{"report", "--results", path})
	if b, _ := os.ReadFile(own); string(b) != "<html>mine</html>" {
		t.Error("agentv report replaced a report.html it did not write")
	}
	if !strings.Contains(stderr.String(), "report.html was not written by agentv") {
		t.Errorf("stderr does not say why:\n%s", stderr.String())
	}
}
