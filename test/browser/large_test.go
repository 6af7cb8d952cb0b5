package browser

import (
	"fmt"
	"os"
	"testing"
	"time"
)

// TestOpenLargeRun opens a 10,000-case run: the page must stay under 3× its results.jsonl and
// be interactive within 2 s of navigation (the page's own performance marks), drawing only the
// rows in sight. It logs its figures (bench/html.sh prints them). Not parallel: it is timed.
func TestOpenLargeRun(t *testing.T) { //nolint:paralleltest // timed, so it runs alone
	if testing.Short() {
		t.Skip("-short: the 10,000-case page is skipped")
	}
	const n = 10_000
	run := Generate(n, 3, false)
	path := writePage(t, run)
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	ratio := float64(fi.Size()) / float64(len(run.JSONL))
	if ratio >= 3 {
		t.Errorf("report.html is %d bytes, %.2f× results.jsonl (%d bytes): want under 3×", fi.Size(), ratio, len(run.JSONL))
	}
	start := time.Now()
	p := open(t, path)
	defer p.clean()
	wall := time.Since(start) // includes starting Chromium
	firstRow := eval[float64](p, `performance.getEntriesByName("agentv-first-row")[0].startTime`)
	interactive := eval[float64](p, `performance.getEntriesByName("agentv-interactive")[0].startTime`)
	if got := p.shown(); got != "10,000 cases" {
		t.Errorf("shown %q", got)
	}
	if rows := eval[int](p, `document.querySelectorAll("#spacer .row").length`); rows == 0 || rows > 120 {
		t.Errorf("%d rows drawn: want only those in sight", rows)
	}
	// The last case is reachable by scrolling.
	eval[bool](p, `(()=>{const v=document.querySelector("#viewport"); v.scrollTop=v.scrollHeight; v.dispatchEvent(new Event("scroll")); return true})()`)
	time.Sleep(300 * time.Millisecond) // the list draws on the next animation frame
	if rows := p.rows(); len(rows) == 0 || rows[len(rows)-1] != run.Records[n-1].EvalID {
		t.Errorf("scrolled to the end, the last row is %q, want %q", last(rows), run.Records[n-1].EvalID)
	}
	// Opening a case parses the details on first use.
	t0 := time.Now()
	p.openCase(run.Records[n/2].EvalID)
	openMS := time.Since(t0).Milliseconds()
	p.search("")
	// A filter and a sort redraw synchronously in their change handlers: timed in the page.
	timed := func(sel, value string) float64 {
		return eval[float64](p, fmt.Sprintf(`(()=>{const e=document.querySelector(%q), t=performance.now(); e.value=%q; e.dispatchEvent(new Event("change")); return performance.now()-t})()`, sel, value))
	}
	filterMS, sortMS := timed("#f-status", "fail"), timed("#sort", "-delta")
	if interactive > 2000 {
		t.Errorf("interactive after %.0f ms: want under 2,000 ms", interactive)
	}
	msg := fmt.Sprintf("%d cases: results.jsonl %.1f MB, report.html %.1f MB (%.2f×); first row %.0f ms, interactive %.0f ms after navigation; open with Chromium start %d ms; first case opened (search + click + details parse) %d ms; status filter %.0f ms; sort by delta %.0f ms",
		n, float64(len(run.JSONL))/1e6, float64(fi.Size())/1e6, ratio, firstRow, interactive, wall.Milliseconds(), openMS, filterMS, sortMS)
	t.Log(msg) // bench/html.sh prints it
}

func last(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[len(s)-1]
}
