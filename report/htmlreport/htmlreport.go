// Package htmlreport writes report.html: one self-contained page to browse a finished run (its
// headline and gate, every case with filters, sort and search, and each case's input, answer,
// conversation, graders, trials, cost and baseline change).
//
// The page loads nothing: its style and script are inline, and a Content-Security-Policy allows
// only that one script and that one style (by their hashes), no images, fonts, frames or
// connections. The
// run is embedded as JSON in <script type="application/json"> blocks, encoded with HTML escaping
// so that no "<" (hence no </script> or <!--), ">" , "&", U+2028 or U+2029 of model text appears
// raw; the script shows every text with textContent, and links only run URLs of our own history
// data (http and https only).
//
// Cases stream in: Write reads the records twice, first keeping only a small row a case for the
// list, then writing each case's details as it goes, so a large run is never held whole.
package htmlreport

import (
	"bufio"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/agentv/action/compare"
	"github.com/agentv/action/internal/logtext"
	"github.com/agentv/action/internal/textcap"
	"github.com/agentv/action/report"
	"github.com/agentv/action/results"
)

// FileName is the report's name in the results folder.
const FileName = "report.html"

// Generator is in the first 512 bytes of every page this package writes, so a command can tell
// its own report.html from a user's file of that name.
const Generator = `<meta name="generator" content="agentv report.html">`

//go:embed assets/report.css
var css string

//go:embed assets/report.js
var script string

// csp allows the page's own script and style (by their hashes), nothing else: no request of any
// kind can leave the page, and no script or style element other than ours would apply, whatever
// text got into it. (The script sets positions through the CSSOM, which style-src allows.)
var csp = "default-src 'none'; style-src 'sha256-" + hashOf(css) + "'; script-src 'sha256-" + hashOf(script) + "'; img-src 'none'; base-uri 'none'; form-action 'none'"

func hashOf(s string) string {
	sum := sha256.Sum256([]byte(s))
	return base64.StdEncoding.EncodeToString(sum[:])
}

// Point is one past run's score of a case, for the case's chart over runs.
type Point struct {
	Run    string  `json:"run"`           // the run's name for people: its number, date or commit
	URL    string  `json:"url,omitempty"` // its page (http or https), "" for none
	Score  float64 `json:"s"`
	Status string  `json:"st"` // the case's verdict in that run: pass, fail or error
}

// History is past runs' points of each case, oldest first, keyed by Key of the case.
type History map[string][]Point

// Key is the history key of a case: its dataset, id and target, as a history matches cases.
func Key(dataset, id, target string) string { return dataset + "\x00" + id + "\x00" + target }

// Records streams a run's case records to fn, stopping at fn's first error.
type Records func(fn func(*results.Record) error) error

// FromFile streams the case records of a results file. A line that cannot be read ends them,
// as it ends every report of the file (`agentv report` keeps the cases before it and says which
// line broke), so the page shows what the other reports show; a file that cannot be opened is
// an error.
func FromFile(path string) Records {
	return func(fn func(*results.Record) error) error {
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		f.Close()
		var stop error // fn's own error, which must reach the caller
		_ = results.ScanFile(path, func(r *results.Record) error {
			stop = fn(r)
			return stop
		})
		return stop
	}
}

// FromSlice streams records held in memory.
func FromSlice(recs []*results.Record) Records {
	return func(fn func(*results.Record) error) error {
		for _, r := range recs {
			if r == nil {
				continue
			}
			if err := fn(r); err != nil {
				return err
			}
		}
		return nil
	}
}

// head is the run's headline, as the page shows it above the cases.
type head struct {
	Outcome   string     `json:"outcome"`
	Reason    string     `json:"reason,omitempty"`
	Version   string     `json:"version,omitempty"`
	Started   string     `json:"started,omitempty"`
	DurMS     int64      `json:"dur,omitempty"`
	Total     int        `json:"total"`
	Passed    int        `json:"passed"`
	Failed    int        `json:"failed"`
	Errors    int        `json:"errors"`
	Skipped   int        `json:"skipped,omitempty"`
	Mean      float64    `json:"mean"`
	Cancelled bool       `json:"cancelled,omitempty"`
	Problems  []string   `json:"problems,omitempty"`
	Baseline  *baseHead  `json:"baseline,omitempty"`
	RunURL    string     `json:"runUrl,omitempty"`
	Removed   []removed  `json:"removed,omitempty"`
	Threshold float64    `json:"threshold"`
	Gate      string     `json:"gate,omitempty"`
	Shard     *shardHead `json:"shard,omitempty"`
}

type baseHead struct {
	Source    string  `json:"src"`
	Before    float64 `json:"before"`
	After     float64 `json:"after"`
	Delta     float64 `json:"delta"`
	Lo        float64 `json:"lo"`
	Hi        float64 `json:"hi"`
	Compared  int     `json:"compared"`
	Regressed int     `json:"regressed"`
	Improved  int     `json:"improved"`
	New       int     `json:"new"`
	Removed   int     `json:"removed"`
	Noisy     int     `json:"noisy"`
}

type removed struct {
	ID      string  `json:"id"`
	Dataset string  `json:"ds,omitempty"`
	Score   float64 `json:"b"`
}

type shardHead struct {
	Index int `json:"i"`
	Total int `json:"n"`
}

// maxProblems is how many run-level problems the headline lists.
const maxProblems = 20

// maxRemoved is how many removed cases the headline lists.
const maxRemoved = 200

func headOf(run *report.Run) head {
	c := run.Counts
	h := head{Outcome: string(run.Decision.Outcome), Reason: text(run.Decision.Reason), Version: text(run.Version),
		DurMS: run.Duration.Milliseconds(), Total: c.Total, Passed: c.Passed, Failed: c.Failed, Errors: c.Errors, Skipped: c.Skipped,
		Mean: finite(c.MeanScore), Cancelled: run.Cancelled, Threshold: finite(run.Gate.CaseThreshold), Gate: text(run.Gate.String())}
	if !run.Started.IsZero() {
		h.Started = run.Started.UTC().Format(time.RFC3339)
	}
	for i, p := range c.Problems {
		if i == maxProblems {
			h.Problems = append(h.Problems, fmt.Sprintf("… and %d more", len(c.Problems)-i))
			break
		}
		h.Problems = append(h.Problems, text(p))
	}
	h.RunURL = safeURL(run.Links.RunURL)
	if s := run.Shard; s != nil {
		h.Shard = &shardHead{Index: s.Index, Total: s.Count}
	}
	if b := run.Baseline; b != nil {
		h.Baseline = &baseHead{Source: text(b.Source), Before: finite(b.Before), After: finite(b.After),
			Delta: finite(b.Mean.Estimate), Lo: finite(b.Mean.Lo), Hi: finite(b.Mean.Hi), Compared: b.Compared(),
			Regressed: b.Count(compare.Regressed), Improved: b.Count(compare.Improved), New: b.Count(compare.New),
			Removed: b.Count(compare.Removed), Noisy: b.Count(compare.Noisy)}
		for _, x := range b.Of(compare.Removed) {
			if len(h.Removed) == maxRemoved {
				break
			}
			score := 0.0
			if x.Before != nil {
				score = finite(x.Before.Score)
			}
			h.Removed = append(h.Removed, removed{ID: text(x.ID), Dataset: text(x.Dataset), Score: score})
		}
	}
	return h
}

// safeURL is u when it is an http or https URL without characters that could matter in an
// attribute, else "": the page links only such URLs.
func safeURL(u string) string {
	if len(u) > 2048 || strings.ContainsAny(u, "\"'<>\\ \t\r\n`") {
		return ""
	}
	if l := strings.ToLower(u); strings.HasPrefix(l, "https://") || strings.HasPrefix(l, "http://") {
		return u
	}
	return ""
}

// caseKey finds a record's comparison: dataset, id and target.
type caseKey struct{ dataset, id, target string }

// Write writes the page of run, whose case records recs streams (the run's results file, or
// its records in memory; it is read once), with each case's history points from hist (nil:
// none).
func Write(w io.Writer, run *report.Run, recs Records, hist History) error {
	bw := bufio.NewWriterSize(w, 256<<10)
	var cmps map[caseKey]*compare.Case
	if run.Baseline != nil {
		cmps = make(map[caseKey]*compare.Case, len(run.Baseline.Cases))
		for _, x := range run.Baseline.Cases {
			if x.Class != compare.Removed {
				cmps[caseKey{x.Dataset, x.ID, x.Target}] = x
			}
		}
	}
	h := headOf(run)
	fmt.Fprintf(bw, pageStart, csp, css)
	// The list's rows come first, then the script, which draws the rows in sight while the
	// browser still reads the cases' details below it: they are needed only once a case opens.
	// The records are read once: each row goes to the page, each case's details to a temporary
	// file copied in after the script, so memory holds no more than a case.
	tmp, err := os.CreateTemp("", "agentv-report-details-")
	if err != nil {
		return fmt.Errorf("a temporary file for the cases' details: %w", err)
	}
	defer func() { _ = os.Remove(tmp.Name()) }()
	defer tmp.Close()
	dw := bufio.NewWriterSize(tmp, 256<<10)
	enc := json.NewEncoder(dw)
	enc.SetEscapeHTML(true) // the default, as for json.Marshal below; the page's safety rests on it
	headJSON, err := json.Marshal(h)
	if err != nil {
		return err
	}
	bw.WriteString(`<script type="application/json" id="agentv-run">{"head":`)
	bw.Write(headJSON)
	bw.WriteString(`,"cases":`)
	n := 0
	err = recs(func(r *results.Record) error {
		rowJSON, err := json.Marshal(rowOf(r, matchOf(cmps, r)))
		if err != nil {
			return fmt.Errorf("case %q: %w", logtext.Line(r.EvalID), err)
		}
		sep := byte(',')
		if n == 0 {
			sep = '['
		}
		bw.WriteByte(sep)
		bw.Write(rowJSON)
		if n > 0 {
			dw.WriteByte(',')
		}
		n++
		if err := enc.Encode(detailOf(r, cleanPoints(hist[Key(r.Dataset, r.EvalID, r.Target)]))); err != nil {
			return fmt.Errorf("case %q: %w", logtext.Line(r.EvalID), err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if n == 0 {
		bw.WriteString("null")
	} else {
		bw.WriteByte(']')
	}
	bw.WriteString("}\n</script>\n<script>")
	bw.WriteString(script)
	bw.WriteString("</script>\n" + `<script type="application/json" id="agentv-details">[`)
	if err := dw.Flush(); err != nil {
		return fmt.Errorf("writing the cases' details: %w", err)
	}
	if _, err := tmp.Seek(0, io.SeekStart); err != nil {
		return err
	}
	if _, err := io.Copy(bw, tmp); err != nil {
		return fmt.Errorf("copying the cases' details: %w", err)
	}
	bw.WriteString("]</script>\n</body>\n</html>\n")
	return bw.Flush()
}

// matchOf is a record's comparison with the baseline, nil without one.
func matchOf(cmps map[caseKey]*compare.Case, r *results.Record) *compare.Case {
	if cmps == nil {
		return nil
	}
	if x := cmps[caseKey{r.Dataset, r.EvalID, r.Target}]; x != nil {
		return x
	}
	return cmps[caseKey{r.Dataset, r.EvalID, ""}]
}

// maxPoints is the most history points a case's chart draws (the newest).
const maxPoints = 100

// cleanPoints keeps points JSON and the page can carry: finite scores in [0, 1], short run
// names, and only http(s) links.
func cleanPoints(ps []Point) []Point {
	if len(ps) == 0 {
		return nil
	}
	if len(ps) > maxPoints {
		ps = ps[len(ps)-maxPoints:]
	}
	out := make([]Point, len(ps))
	for i, p := range ps {
		out[i] = Point{Run: textcap.CapAt(logtext.Line(p.Run), 200), URL: safeURL(p.URL),
			Score: min(max(finite(p.Score), 0), 1), Status: textcap.CapAt(logtext.Line(p.Status), 20)}
	}
	return out
}

// pageStart is the page up to the data: the policy, the style and the page's fixed parts,
// which the script fills.
const pageStart = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="generator" content="agentv report.html">
<meta http-equiv="Content-Security-Policy" content="%s">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>AgentV report</title>
<style>%s</style>
</head>
<body>
<header id="head"><noscript>This report needs JavaScript to show its cases.</noscript></header>
<section id="controls" aria-label="Filters">
<input id="q" type="search" placeholder="Search id, dataset, target, file, reason" aria-label="Search">
<select id="f-status" aria-label="Status"><option value="">all statuses</option><option value="pass">passed</option><option value="fail">failed</option><option value="error">errored</option></select>
<select id="f-dataset" aria-label="Dataset"><option value="">all datasets</option></select>
<select id="f-grader" aria-label="Grader"><option value="">all graders</option></select>
<select id="f-target" aria-label="Target"><option value="">all targets</option></select>
<label><input id="f-flaky" type="checkbox"> flaky</label>
<label><input id="f-regressed" type="checkbox"> regressed</label>
<select id="sort" aria-label="Sort"><option value="">file order</option><option value="score">score ↑</option><option value="-score">score ↓</option><option value="delta">delta ↑</option><option value="-delta">delta ↓</option><option value="-dur">duration ↓</option><option value="dur">duration ↑</option><option value="-cost">cost ↓</option><option value="cost">cost ↑</option></select>
<span id="shown" aria-live="polite"></span>
</section>
<main>
<div id="list" role="table" aria-label="Cases"><div class="row hdr" role="row"><span>status</span><span>case</span><span>dataset</span><span>target</span><span class="num">score</span><span class="num">Δ</span><span class="num">time</span><span class="num">cost</span></div><div id="viewport"><div id="spacer"></div></div></div>
<aside id="detail" hidden aria-label="Case"></aside>
</main>
`
