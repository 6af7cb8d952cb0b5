package browser

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/agentv/action/report/htmlreport"
)

// chromium finds the browser: AGENTV_TEST_CHROMIUM, else one on PATH; the test skips without.
func chromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("AGENTV_TEST_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no Chromium found: install chromium (.ci/run does) or set AGENTV_TEST_CHROMIUM to a Chromium or Chrome binary")
	return ""
}

// page is one report.html open in a fresh headless browser that records every console error,
// exception and network request other than the page's own.
type page struct {
	t    *testing.T
	ctx  context.Context
	url  string
	mu   sync.Mutex
	bad  []string
	file string
}

// writePage writes the report of run into a temporary folder.
func writePage(t *testing.T, run *Run) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), htmlreport.FileName)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := htmlreport.Write(f, run.Report, htmlreport.FromSlice(run.Records), run.History); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func open(t *testing.T, path string) *page {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromium(t)),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1400, 900),
	}
	p := &page{t: t, url: (&url.URL{Scheme: "file", Path: path}).String(), file: path}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelC := chromedp.NewContext(actx, chromedp.WithListener(p.listen))
	t.Cleanup(func() { cancelC(); cancelA() })
	p.ctx = ctx
	if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatalf("starting Chromium: %v", err)
	}
	if _, err := chromedp.Call(ctx, log.Enable, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	p.run(chromedp.Navigate(p.url), chromedp.WaitVisible(chromedp.CSS(`body[data-ready="1"]`)))
	return p
}

// listen records what the page must not do; it runs on chromedp's reading goroutine.
func (p *page) listen(ev any) {
	switch ev := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeWarning || ev.Type == runtime.ConsoleAPICalledTypeAssert {
			p.fail(fmt.Sprintf("console %s: %s", ev.Type, args(ev.Args)))
		}
	case *runtime.EventExceptionThrown:
		p.fail(fmt.Sprintf("exception: %s %+v", ev.ExceptionDetails.Text, ev.ExceptionDetails.Exception))
	case *log.EventEntryAdded:
		if ev.Entry.Level == log.EntryLevelError || ev.Entry.Level == log.EntryLevelWarning {
			p.fail(fmt.Sprintf("log %s (%s): %s %s", ev.Entry.Level, ev.Entry.Source, ev.Entry.Text, ev.Entry.URL))
		}
	case *network.EventRequestWillBeSent:
		if u, _, _ := strings.Cut(ev.Request.URL, "#"); u != p.url {
			p.fail("network request: " + ev.Request.URL)
		}
	}
}

func args(as []*runtime.RemoteObject) string {
	var parts []string
	for _, a := range as {
		parts = append(parts, fmt.Sprintf("%s %s", a.Description, a.Value))
	}
	return strings.Join(parts, " ")
}

func (p *page) fail(msg string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.bad = append(p.bad, msg)
}

// clean fails the test on anything the page should not have done.
func (p *page) clean() {
	p.t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, b := range p.bad {
		p.t.Errorf("the page did what it must not: %s", b)
	}
	p.bad = nil
}

func (p *page) run(steps ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 60*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		p.t.Fatal(err)
	}
}

// eval runs js in the page and returns its value.
func eval[T any](p *page, js string) T {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 60*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js))
	if err != nil {
		p.t.Fatalf("%s: %v", js, err)
	}
	return v
}

func (p *page) text(sel string) string {
	p.t.Helper()
	return eval[string](p, fmt.Sprintf(`(document.querySelector(%q)||{}).textContent||""`, sel))
}

// setValue changes a filter control as a user would, and the list is drawn again.
func (p *page) setValue(sel, value string) {
	p.t.Helper()
	eval[bool](p, fmt.Sprintf(`(()=>{const e=document.querySelector(%q); e.value=%q; e.dispatchEvent(new Event("change")); return true})()`, sel, value))
}

func (p *page) check(sel string, on bool) {
	p.t.Helper()
	eval[bool](p, fmt.Sprintf(`(()=>{const e=document.querySelector(%q); e.checked=%t; e.dispatchEvent(new Event("change")); return true})()`, sel, on))
}

func (p *page) search(q string) {
	p.t.Helper()
	eval[bool](p, fmt.Sprintf(`(()=>{const e=document.querySelector("#q"); e.value=%q; e.dispatchEvent(new Event("input")); return true})()`, q))
	p.run(chromedp.Sleep(250 * time.Millisecond)) // the search waits 80ms for more typing
}

// rows are the ids of the rows drawn, top to bottom.
func (p *page) rows() []string {
	p.t.Helper()
	return eval[[]string](p, `[...document.querySelectorAll("#spacer .row")].sort((a,b)=>parseFloat(a.style.top)-parseFloat(b.style.top)).map(r=>r.querySelector(".id").textContent)`)
}

func (p *page) shown() string { p.t.Helper(); return p.text("#shown") }

// openCase finds case id by searching for it, clicks its row and returns the case's text.
func (p *page) openCase(id string) string {
	p.t.Helper()
	first, _, _ := strings.Cut(id, "\n") // a search box holds one line
	p.search(first)
	ok := eval[bool](p, fmt.Sprintf(`(()=>{const r=[...document.querySelectorAll("#spacer .row")].find(r=>r.querySelector(".id").textContent===%q); if(!r) return false; r.click(); return true})()`, id))
	if !ok {
		p.t.Fatalf("no row for case %q (shown %q, rows %q)", id, p.shown(), p.rows())
	}
	p.run(chromedp.WaitVisible(chromedp.CSS("#detail h2")))
	return p.text("#detail")
}

// screenshot saves the window as dir/name when AGENTV_SCREENSHOTS names a folder.
func (p *page) screenshot(name string) {
	p.t.Helper()
	dir := os.Getenv("AGENTV_SCREENSHOTS")
	if dir == "" {
		return
	}
	ctx, cancel := context.WithTimeout(p.ctx, 60*time.Second)
	defer cancel()
	buf, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		p.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), buf, 0o644); err != nil {
		p.t.Fatal(err)
	}
}
