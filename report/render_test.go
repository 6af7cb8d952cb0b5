package report

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentv/action/gate"
	"github.com/agentv/action/results"
)

// htmlDir, when set, receives each rendered report as a page styled like GitHub's Markdown
// column (see docs/screenshots/README.md for taking screenshots of them).
var htmlDir = flag.String("html-dir", "", "write the reports rendered by cmark-gfm as HTML pages into this directory")

// mermaidJS, when set with -html-dir, is a mermaid.min.js the pages load to draw the score
// chart as GitHub does.
var mermaidJS = flag.String("mermaid-js", "", "path of mermaid.min.js for the HTML pages' charts")

var mermaidRE = regexp.MustCompile(`<pre><code class="language-mermaid">([\s\S]*?)</code></pre>`)

// cmarkGFM renders Markdown as GitHub does (GitHub's Markdown dialect with the extensions
// github.com enables; raw HTML passes through as GitHub's sanitiser lets it), or skips the
// test when Debian's cmark-gfm is not installed.
func cmarkGFM(t *testing.T, md string) string {
	t.Helper()
	bin, err := exec.LookPath("cmark-gfm")
	if err != nil {
		t.Skip("cmark-gfm not installed (apt-get install cmark-gfm): the rendered HTML is not checked")
	}
	cmd := exec.Command(bin, "--extension", "table", "--extension", "strikethrough", "--extension", "autolink",
		"--extension", "tagfilter", "--unsafe")
	cmd.Stdin = strings.NewReader(md)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("cmark-gfm: %v: %s", err, stderr.String())
	}
	return out.String()
}

// node is an element of rendered HTML: enough of a tree to check structure.
type node struct {
	tag   string
	attrs string
	kids  []*node
	text  strings.Builder // text directly and in descendants
}

var tagRE = regexp.MustCompile(`<(/?)([a-zA-Z][a-zA-Z0-9]*)([^>]*)>|<!--[\s\S]*?-->`)

var voidTags = map[string]bool{"br": true, "hr": true, "img": true, "input": true}

// parseHTML builds the element tree of cmark-gfm's output. cmark-gfm escapes every `<` of
// text, so each `<` it leaves is markup: a stray or crossed tag means the Markdown's
// structure broke.
func parseHTML(t *testing.T, s string) (root *node, comments []string) {
	t.Helper()
	root = &node{tag: "#root"}
	stack := []*node{root}
	last := 0
	addText := func(txt string) {
		for _, n := range stack {
			n.text.WriteString(txt)
		}
	}
	for _, m := range tagRE.FindAllStringSubmatchIndex(s, -1) {
		addText(s[last:m[0]])
		last = m[1]
		if m[4] < 0 { // comment
			comments = append(comments, s[m[0]:m[1]])
			continue
		}
		closing, tag, attrs := s[m[2]:m[3]] == "/", strings.ToLower(s[m[4]:m[5]]), s[m[6]:m[7]]
		switch {
		case voidTags[tag]:
			addText(" ")
		case !closing:
			n := &node{tag: tag, attrs: attrs}
			top := stack[len(stack)-1]
			top.kids = append(top.kids, n)
			stack = append(stack, n)
		default:
			if top := stack[len(stack)-1]; top.tag != tag {
				t.Fatalf("rendered HTML closes <%s> inside <%s> at byte %d: %.200q", tag, top.tag, m[0], s[max(0, m[0]-100):m[1]])
			}
			stack = stack[:len(stack)-1]
		}
	}
	addText(s[last:])
	if len(stack) != 1 {
		t.Fatalf("rendered HTML leaves <%s> open", stack[len(stack)-1].tag)
	}
	return root, comments
}

func (n *node) all(tag string) []*node {
	var out []*node
	for _, k := range n.kids {
		if k.tag == tag {
			out = append(out, k)
		}
		out = append(out, k.all(tag)...)
	}
	return out
}

func (n *node) tags(seen map[string]bool) {
	for _, k := range n.kids {
		seen[k.tag] = true
		k.tags(seen)
	}
}

// rows returns a table's rows as their cells (th or td).
func (n *node) rows() [][]*node {
	var out [][]*node
	for _, tr := range n.all("tr") {
		var cells []*node
		for _, k := range tr.kids {
			if k.tag == "td" || k.tag == "th" {
				cells = append(cells, k)
			}
		}
		out = append(out, cells)
	}
	return out
}

// allowedTags are the elements a report may render to: anything else came from model text.
var allowedTags = map[string]bool{
	"h2": true, "h3": true, "p": true, "strong": true, "a": true, "table": true, "thead": true, "tbody": true,
	"tr": true, "th": true, "td": true, "details": true, "summary": true, "ul": true, "li": true,
	"blockquote": true, "pre": true, "code": true, "sub": true, "b": true,
}

// renderedReport is what checkRendered learnt of a report.
type renderedReport struct {
	failRows [][]*node // the failure table's body rows
	html     string
}

// checkRendered renders md as GitHub would and checks what a reviewer sees: only the
// report's own elements, details balanced, every table at most six columns with one column
// count, and a non-empty Why on every failed or errored row.
func checkRendered(t *testing.T, name, md string) renderedReport {
	t.Helper()
	out := cmarkGFM(t, md)
	writePage(t, name, out)
	root, comments := parseHTML(t, out)
	seen := map[string]bool{}
	root.tags(seen)
	for tag := range seen {
		if !allowedTags[tag] {
			t.Errorf("%s: rendered HTML has a <%s> element", name, tag)
		}
	}
	if n := strings.Count(strings.Join(comments, ""), "agentv-action:v1"); n > 1 {
		t.Errorf("%s: %d HTML comments carry the comment marker; want at most the report's own", name, n)
	}
	var rep renderedReport
	rep.html = out
	for _, tbl := range root.all("table") {
		rows := tbl.rows()
		header := rows[0]
		if len(header) > 6 {
			t.Errorf("%s: a table has %d columns; at most 6 fit a 900-pixel column", name, len(header))
		}
		for i, r := range rows[1:] {
			if len(r) != len(header) {
				t.Errorf("%s: table row %d has %d cells, its header %d", name, i+1, len(r), len(header))
			}
		}
		// The regressions table (first column "Case") has a Why column too.
		if strings.TrimSpace(header[len(header)-1].text.String()) != "Why" || strings.TrimSpace(header[0].text.String()) == "Case" {
			continue
		}
		if rep.failRows != nil {
			t.Errorf("%s: two failure tables", name)
		}
		rep.failRows = rows[1:]
		for i, r := range rows[1:] {
			if why := strings.TrimSpace(r[len(r)-1].text.String()); why == "" {
				t.Errorf("%s: failure row %d (%q) has an empty Why", name, i+1, strings.TrimSpace(r[1].text.String()))
			}
		}
	}
	return rep
}

// writePage wraps rendered HTML in a page styled like GitHub's 900-pixel Markdown column.
func writePage(t *testing.T, name, body string) {
	if *htmlDir == "" {
		return
	}
	page := `<!doctype html><html><head><meta charset="utf-8"><style>
body{margin:0;background:#fff;color:#1f2328;font:14px/1.5 -apple-system,"Segoe UI","Noto Sans",Helvetica,Arial,sans-serif}
.markdown-body{box-sizing:border-box;width:900px;padding:16px 24px;word-wrap:break-word}
h2{font-size:1.5em;border-bottom:1px solid #d1d9e0;padding-bottom:.3em;margin:16px 0}
h3{font-size:1.25em;margin:24px 0 16px}
p,blockquote,ul,table,pre,details{margin:0 0 16px}
a{color:#0969da;text-decoration:none}
table{border-collapse:collapse;display:block;width:max-content;max-width:100%;overflow:auto}
th,td{border:1px solid #d1d9e0;padding:6px 13px}
th{font-weight:600} tr:nth-child(2n){background:#f6f8fa}
blockquote{color:#59636e;border-left:.25em solid #d1d9e0;padding:0 1em;margin-left:0}
pre{background:#f6f8fa;padding:16px;overflow:auto;font:12px ui-monospace,SFMono-Regular,Menlo,monospace;border-radius:6px}
code{font:85% ui-monospace,SFMono-Regular,Menlo,monospace}
summary{cursor:pointer} sub{font-size:75%}
</style></head><body><div class="markdown-body">
`
	if *mermaidJS != "" {
		body = mermaidRE.ReplaceAllString(body, `<pre class="mermaid" style="background:none">$1</pre>`)
		body += `<script src="file://` + *mermaidJS + `"></script><script>mermaid.initialize({startOnLoad:true})</script>`
	}
	page += body + "</div></body></html>\n"
	if err := os.WriteFile(filepath.Join(*htmlDir, name+".html"), []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	// The same page with every block open, to see the details as a reader who opens them.
	open := strings.ReplaceAll(page, "<details>", "<details open>")
	if err := os.WriteFile(filepath.Join(*htmlDir, name+"-open.html"), []byte(open), 0o644); err != nil {
		t.Fatal(err)
	}
}

// reviewRun is a run shaped like the ones reviewers stumbled on: three datasets, eleven
// evaluators, 13 cases errored with the same 401, 57 failing for the same reason, a judge
// whose reply held no verdict, and long unbroken ids and reasoning.
func reviewRun(nCases int) *Run {
	evals := []string{"correctness", "tone", "format", "length", "safety", "grounding", "tools", "latency", "style", "citations", "refusal"}
	var recs []*results.Record
	for i := range nCases {
		ds := []string{"billing", "support", "agentic-tools"}[i%3]
		r := &results.Record{
			EvalID: fmt.Sprintf("%s-case-%04d", ds, i), Dataset: ds, File: "evals/" + ds + ".yaml", Line: 10 + i*6,
			Target: "default", DurationMS: int64(500 + i*37%4000), CandidateAnswer: fmt.Sprintf("The answer is %d.", i%50),
		}
		score := 0.85 + float64(i%15)/100
		for j, name := range evals {
			s := min(1, score+float64(j%3)/50)
			r.EvaluatorResults = append(r.EvaluatorResults, results.EvaluatorResult{Name: name, Type: "llm_judge", Score: s, Verdict: string(results.Band(s)), Reasoning: "fine"})
		}
		r.Score, r.Verdict = score, results.VerdictPass
		switch k := i % 23; {
		case i%(nCases/13) == 5 && i/(nCases/13) < 13:
			msg := `openai: 401 Unauthorized: {"error":{"message":"Incorrect API key provided: sk-***. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error"}}`
			r.Error, r.Verdict, r.Score = msg, results.VerdictError, 0
			r.Misses = []string{"Error: " + msg}
			r.CandidateAnswer = "Error occurred: " + msg
			r.EvaluatorResults = nil
		case k < 5:
			r.Score, r.Verdict = 0.2, results.VerdictFail
			r.Misses = []string{"answer is not 42"}
			r.EvaluatorResults[0].Score, r.EvaluatorResults[0].Verdict, r.EvaluatorResults[0].Misses = 0.2, "fail", []string{"answer is not 42"}
		case k == 7:
			r.Score, r.Verdict = 0, results.VerdictFail
			r.EvaluatorResults[0].Score, r.EvaluatorResults[0].Verdict = 0, "fail"
			r.EvaluatorResults[0].Reasoning = "judge reply held no JSON verdict: I think the answer is mostly right but I am not sure how to score it"
		case k == 8:
			r.EvalID = fmt.Sprintf("%s-a-very-long-case-identifier-that-names-the-whole-scenario-%04d", ds, i)
			r.Score, r.Verdict = 0.55, results.VerdictFail
			r.Misses = []string{fmt.Sprintf("misses step %d of the refund flow", i)}
			r.Reasoning = strings.Repeat("The agent called the refund tool before checking eligibility, ", 40) + strings.Repeat("x", 400)
		}
		recs = append(recs, r)
	}
	opts := gate.Defaults()
	counts := tally(recs)
	return &Run{Records: recs, Decision: gate.Decide(counts, opts), Gate: opts, Counts: counts,
		Links: Links{ServerURL: "https://github.com", Repo: "acme/evals", SHA: "abc123", RunURL: "https://github.com/acme/evals/actions/runs/7"}}
}

// hostileGroupRun has hostile ids and a hostile reason shared by enough cases to be grouped.
func hostileGroupRun() *Run {
	var recs []*results.Record
	for i := range 4 {
		recs = append(recs, &results.Record{
			EvalID: fmt.Sprintf("x</details>|@org/team #%d <!-- agentv-action:v1 -->`[a](b)`", i), Dataset: "d", File: "evals/x.yaml", Line: i + 1,
			Score: 0.1, Verdict: results.VerdictFail, Misses: []string{"</td></tr></table><details open>| @org #1 ```\n- x"},
		})
	}
	opts := gate.Defaults()
	counts := tally(recs)
	return &Run{Records: recs, Decision: gate.Decide(counts, opts), Gate: opts, Counts: counts,
		Links: Links{ServerURL: "https://github.com", Repo: "acme/app", SHA: "abc123"}}
}

// quickStartRun is the quick start's run: one case failing on a judge's miss among passes.
func quickStartRun() *Run {
	recs := []*results.Record{
		{EvalID: "hello", Dataset: "quickstart", File: "evals/quickstart.yaml", Line: 4, Score: 1, Verdict: results.VerdictPass, DurationMS: 900,
			CandidateAnswer: "Hello!", EvaluatorResults: []results.EvaluatorResult{{Name: "mentions", Type: "contains", Score: 1, Verdict: "pass", Hits: []string{"contains 'hello'"}}}},
		{EvalID: "deploy-steps", Dataset: "quickstart", File: "evals/quickstart.yaml", Line: 11, Score: 0, Verdict: results.VerdictFail, DurationMS: 1400,
			Misses: []string{"missing 'deploy'"}, CandidateAnswer: "Run the build, then push the image.",
			EvaluatorResults: []results.EvaluatorResult{{Name: "mentions", Type: "contains", Score: 0, Verdict: "fail", Misses: []string{"missing 'deploy'"}}}},
	}
	opts := gate.Defaults()
	counts := tally(recs)
	return &Run{Records: recs, Decision: gate.Decide(counts, opts), Gate: opts, Counts: counts,
		Links: Links{ServerURL: "https://github.com", Repo: "acme/app", SHA: "abc123"}}
}

func TestRenderedReports(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("cmark-gfm"); err != nil {
		t.Skip("cmark-gfm not installed (apt-get install cmark-gfm): the rendered HTML is not checked")
	}
	runs := []struct {
		name string
		run  func() *Run
	}{
		{"fixture", func() *Run { return fixtureRun(t) }},
		{"quickstart", quickStartRun},
		{"review-300", func() *Run { return reviewRun(300) }},
		{"review-3000", func() *Run { return reviewRun(3000) }},
		{"many-failures", func() *Run { return syntheticRun(2000, 0, 4000, DetailsFailures) }},
		{"hostile-group", hostileGroupRun},
		{"trials", func() *Run { return trialsRun(t) }},
		{"baseline", func() *Run { return baselineRun(t) }},
	}
	for _, tc := range runs {
		for _, surface := range []string{"summary", "comment"} {
			t.Run(tc.name+"-"+surface, func(t *testing.T) {
				t.Parallel()
				var md string
				if surface == "summary" {
					md = Summary(tc.run())
				} else {
					md = Comment(tc.run(), testMarker)
				}
				if n := utf8.RuneCountInString(md); surface == "comment" && n > CommentLimit || len(md) > SummaryLimit {
					t.Errorf("%s of %d characters, %d bytes: over its budget", surface, n, len(md))
				}
				rep := checkRendered(t, tc.name+"-"+surface, md)
				if rep.failRows == nil {
					t.Error("no failure table with a Why column")
				}
				if tc.name == "hostile-group" && (len(rep.failRows) != 1 || !strings.Contains(rep.failRows[0][1].text.String(), "4 cases")) {
					t.Errorf("the four cases sharing a hostile reason are not one row: %d rows", len(rep.failRows))
				}
			})
		}
	}
}

// The reasons reviewers could not see: the quick start's miss and a judge without a verdict
// sit in the Why column; errors come first; the 13 identical errors are one row.
func TestRenderedWhy(t *testing.T) {
	t.Parallel()
	qs := checkRendered(t, "quickstart-why", Comment(quickStartRun(), testMarker))
	if got := strings.TrimSpace(qs.failRows[0][3].text.String()); got != "missing 'deploy'" {
		t.Errorf("quick start Why = %q", got)
	}
	rep := checkRendered(t, "review-why", Summary(reviewRun(300)))
	rows := rep.failRows
	cell := func(r []*node, i int) string { return strings.TrimSpace(r[i].text.String()) }
	if !strings.Contains(cell(rows[0], 0), "💥") || !strings.Contains(cell(rows[0], 1), "13 cases") || !strings.Contains(cell(rows[0], 3), "401 Unauthorized") {
		t.Errorf("first row should group the 13 errors: %q | %q | %q", cell(rows[0], 0), cell(rows[0], 1), cell(rows[0], 3))
	}
	if n := strings.Count(rep.html, "401 Unauthorized"); n > 1+13 {
		t.Errorf("the 401 appears %d times; want the grouped row plus once per errored case's details", n)
	}
	var whys []string
	for _, r := range rows[1:] {
		if strings.Contains(cell(r, 0), "💥") {
			t.Errorf("errored row %q after a failure", cell(r, 1))
		}
		whys = append(whys, cell(r, 3))
	}
	if !slices.ContainsFunc(whys, func(s string) bool { return strings.Contains(s, "judge reply held no JSON verdict") }) {
		t.Errorf("no row says the judge reply held no verdict: %q", whys)
	}
	grouped := slices.IndexFunc(rows, func(r []*node) bool { return cell(r, 3) == "✖ answer is not 42 — fine" })
	if grouped < 0 || !strings.Contains(cell(rows[grouped], 1), "cases") {
		t.Errorf("cases failing with the same miss are not grouped: %q", whys)
	}
	// Failures come by ascending score.
	var last float64
	for _, r := range rows[1:] {
		var lo float64
		if _, err := fmt.Sscanf(cell(r, 2), "%f", &lo); err != nil {
			t.Errorf("row %q: score %q is not a number", cell(r, 1), cell(r, 2))
		}
		if lo < last {
			t.Errorf("row %q (score %s) after a score of %.3f", cell(r, 1), cell(r, 2), last)
		}
		last = lo
	}
	// An errored case's details do not show the error as an answer it gave.
	if strings.Contains(rep.html, "Error occurred") {
		t.Error("an errored case's details show the error as its answer")
	}
}
