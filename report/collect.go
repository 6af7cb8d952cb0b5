package report

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/xml"
	"fmt"
	"io"
	"os"

	"github.com/agentv/action/internal/logtext"
	"github.com/agentv/action/results"
)

// minRowBytes is the smallest a case table row can be: "| ✅ |  | 1.000 | 0ms |\n".
const minRowBytes = 25

// maxPassText is how many passing cases may keep their text: more rows than this cannot fit
// the largest budget, and passing details show only when every passing row fits (see plan).
const maxPassText = SummaryLimit / minRowBytes

// Collector keeps what the reports need of each case as it finishes, so a large run does not
// hold its records: a Case each (its Record only where a surface may show its text), and its
// JUnit testcase, spooled to an unlinked temporary file and copied into junit.xml at the end.
// Add is not safe for concurrent use; the runner serialises its handler calls.
type Collector struct {
	details   DetailLevel
	threshold float64
	cases     []*Case
	passText  int  // passing cases keeping their record for the details level
	dropPass  bool // too many passing cases for their text to show anywhere
	parts     *JUnitParts
	intern    map[string]string
	fails     *failKeeper
	cache     *results.CacheUse

	// A case run on several targets has a testcase per target, named with it: seen and several
	// learn it; testcases spooled before are named when JUnit is written (copyTo).
	seen    targetsSeen
	several bool
}

// NewCollector returns a collector for a run's details level and case threshold (JUnit's
// failure messages) that also keeps the records of the first keepWorst errored cases in report
// order and of the keepWorst lowest-scoring failed cases: what the annotations show. Close it
// when the reports are written.
func NewCollector(details DetailLevel, caseThreshold float64, keepWorst int) *Collector {
	c := &Collector{details: details, threshold: caseThreshold, intern: map[string]string{},
		fails: newFailKeeper(keepWorst)}
	if p, err := newJUnitParts(); err == nil {
		c.parts = p
	}
	// Without a spool (no writable temporary directory) every record is kept for JUnit.
	return c
}

// Add keeps what the reports need of a finished record; rec is not retained. Its text is kept
// (compacted) without a spool, for cases with warnings, for passing cases under details "all"
// while their rows could still fit, and for failures among the few whose details or
// annotations can show (failKeeper).
func (c *Collector) Add(rec *results.Record) {
	cs := newCase(rec)
	c.cache = addCache(c.cache, rec.Cache)
	// Eval runs repeat a few file, dataset and target names, and often the same reasons.
	cs.File, cs.Dataset, cs.Target, cs.Why = c.str(cs.File), c.str(cs.Dataset), c.str(cs.Target), c.str(cs.Why)
	for i := range cs.Evaluators {
		cs.Evaluators[i].Name = c.str(cs.Evaluators[i].Name)
		cs.Evaluators[i].Verdict = c.str(cs.Evaluators[i].Verdict)
	}
	if !c.several && c.seen.add(rec.File, rec.EvalID, rec.Target) {
		c.several, c.seen = true, targetsSeen{} // the map is not needed any more
	}
	if c.parts != nil {
		tc := junitCase(c.threshold, rec, c.several)
		cs.part = c.parts.add(&tc)
		cs.part.named = c.several && rec.Target != ""
	}
	cs.pinned = c.parts == nil || len(rec.Warnings) > 0
	keep := cs.pinned
	if cs.Verdict == results.VerdictPass {
		if c.details == DetailsAll && !c.dropPass && !keep {
			c.passText++
			if keep = c.passText <= maxPassText; !keep {
				c.dropPassText()
			}
		}
	} else {
		taken, released := c.fails.offer(cs)
		keep = keep || taken
		for _, o := range released {
			if !o.pinned {
				o.Record = nil
			}
		}
	}
	if keep {
		cs.Record = compact(rec)
	}
	c.cases = append(c.cases, cs)
}

// dropPassText releases the text of passing cases once there are too many to show.
func (c *Collector) dropPassText() {
	c.dropPass = true
	for _, cs := range c.cases {
		if cs.Verdict == results.VerdictPass && !cs.pinned {
			cs.Record = nil
		}
	}
}

func (c *Collector) str(s string) string {
	if v, ok := c.intern[s]; ok {
		return v
	}
	if len(c.intern) < 4096 {
		c.intern[s] = s
	}
	return s
}

// Cases returns the cases kept so far, in completion order.
func (c *Collector) Cases() []*Case { return c.cases }

// Cache returns the response cache use of the cases added so far, nil when none used it.
func (c *Collector) Cache() *results.CacheUse { return c.cache }

// Parts returns the spooled JUnit testcases for Run.JUnitParts; nil when there is no spool.
func (c *Collector) Parts() *JUnitParts { return c.parts }

// Close releases the spool file.
func (c *Collector) Close() error {
	if c.parts == nil {
		return nil
	}
	return c.parts.f.Close()
}

// JUnitParts holds JUnit testcases rendered as their cases finished, in a temporary file
// unlinked once open (nothing is left behind, whatever ends the process).
type JUnitParts struct {
	f   *os.File
	w   *bufio.Writer
	enc *xml.Encoder // writes to w, counting into n
	n   int64        // bytes written to w
	err error
}

// spoolPart locates a spooled testcase (n == 0: none); named: its name has the target.
type spoolPart struct {
	off   int64
	n     int32
	named bool
}

func newJUnitParts() (*JUnitParts, error) {
	f, err := os.CreateTemp("", "agentv-junit-*.part")
	if err != nil {
		return nil, err
	}
	// Unlinked at once: the file lives as long as the descriptor.
	if err := os.Remove(f.Name()); err != nil {
		f.Close()
		return nil, err
	}
	p := &JUnitParts{f: f, w: bufio.NewWriterSize(f, 64<<10)}
	p.enc = xml.NewEncoder(countingWriter{p.w, &p.n})
	// The encoder stays inside <testsuites><testsuite> (never copied), so every testcase comes out
	// as JUnit writes it there: on a line of its own, indented two levels.
	p.enc.Indent("", "  ")
	for _, name := range []string{"testsuites", "testsuite"} {
		p.err = cmp.Or(p.err, p.enc.EncodeToken(xml.StartElement{Name: xml.Name{Local: name}}))
	}
	if err := cmp.Or(p.err, p.enc.Flush()); err != nil {
		f.Close()
		return nil, err
	}
	return p, nil
}

var testcaseStart = xml.StartElement{Name: xml.Name{Local: "testcase"}}

func (p *JUnitParts) add(tc *junitTestcase) spoolPart {
	off := p.n
	if err := p.enc.EncodeElement(tc, testcaseStart); err != nil && p.err == nil {
		p.err = err
	}
	if p.err == nil && p.n-off > 1<<31-1 {
		p.err = fmt.Errorf("a JUnit testcase of %d bytes", p.n-off)
	}
	return spoolPart{off: off, n: int32(p.n - off)}
}

// copyTo writes the cases' spooled testcases to w in order, reading adjacent ones at once. With
// several, a testcase spooled before that was known gets its target added to its name.
func (p *JUnitParts) copyTo(w io.Writer, cases []*Case, several bool) error {
	if p.err != nil {
		return fmt.Errorf("JUnit spool: %w", p.err)
	}
	if err := p.w.Flush(); err != nil {
		return fmt.Errorf("JUnit spool: %w", err)
	}
	unnamed := func(c *Case) bool { return several && c.Target != "" && !c.part.named }
	buf := make([]byte, 0, 256<<10)
	for i := 0; i < len(cases); {
		off, end := cases[i].part.off, cases[i].part.off+int64(cases[i].part.n)
		rename := unnamed(cases[i]) // a testcase to rename is read alone
		j := i + 1
		for !rename && j < len(cases) && cases[j].part.off == end && end-off < 1<<20 && !unnamed(cases[j]) {
			end += int64(cases[j].part.n)
			j++
		}
		if int64(cap(buf)) < end-off {
			buf = make([]byte, end-off)
		}
		b := buf[:end-off]
		if _, err := p.f.ReadAt(b, off); err != nil {
			return fmt.Errorf("JUnit spool: %w", err)
		}
		if rename {
			b = withTargetName(b, cases[i].Target)
		}
		if _, err := w.Write(b); err != nil {
			return err
		}
		i = j
	}
	return nil
}

// withTargetName adds " [target]" to the name of the rendered testcase tc. The name is its
// first attribute, and a quote inside an attribute value is always escaped.
func withTargetName(tc []byte, target string) []byte {
	const attr = ` name="`
	i := bytes.Index(tc, []byte(attr))
	if i < 0 {
		return tc
	}
	i += len(attr)
	j := bytes.IndexByte(tc[i:], '"')
	if j < 0 {
		return tc
	}
	var name bytes.Buffer
	_ = xml.EscapeText(&name, []byte(logtext.Block(caseName("", target, true))))
	out := make([]byte, 0, len(tc)+name.Len())
	out = append(out, tc[:i+j]...)
	out = append(out, name.Bytes()...)
	return append(out, tc[i+j:]...)
}

type countingWriter struct {
	w io.Writer
	n *int64
}

func (c countingWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	*c.n += int64(n)
	return n, err
}
