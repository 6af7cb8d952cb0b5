package report

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentv/action/compare"
	"github.com/agentv/action/gate"
	"github.com/agentv/action/results"
)

// A baseline is another run's results file, downloaded from an artifact: its case ids,
// datasets and reasons are hostile text wherever they are shown (tables, the removed list,
// the per-dataset table, the console), and the chart carries only numbers.
func TestBaselineHostileText(t *testing.T) {
	t.Parallel()
	const evil = "x|y`z <img src=x onerror=alert(1)> @evil #1 [l](https://e.example) \x1b[31m\n::error::pwned"
	var before, after []*results.Record
	for i := range 6 {
		id := fmt.Sprintf("case-%d %s", i, evil)
		before = append(before, baselineRecord("ds "+evil, id, 1+i, 0.95))
		after = append(after, baselineRecord("ds "+evil, id, 1+i, 0.3))
		after[i].Misses = []string{"why " + evil}
	}
	before = append(before, baselineRecord("gone "+evil, "removed "+evil, 9, 1))
	base, err := compare.Read(strings.NewReader(jsonlOf(t, before...)))
	if err != nil {
		t.Fatal(err)
	}
	base.Source = "run 1 on " + evil
	c := compare.NewComparer(base, compare.DefaultMargin)
	for _, r := range after {
		c.Add(r)
	}
	opts := gate.Defaults()
	counts := tally(after)
	counts.Baseline = c.Result().Gate()
	run := &Run{Records: after, Baseline: c.Result(), Decision: gate.Decide(counts, opts), Gate: opts, Counts: counts}
	for name, md := range map[string]string{"summary": Summary(run), "comment": Comment(run, testMarker)} {
		if !strings.Contains(md, "Regressions") || !strings.Contains(md, "Removed cases") {
			t.Fatalf("%s: no regressions table or removed list:\n%s", name, md)
		}
		for _, bad := range []string{"x|y", "`z", "<img", "@evil", "#1 ", "[l]", "\x1b", "\n::error::"} {
			if strings.Contains(md, bad) {
				t.Errorf("%s holds %q unescaped", name, bad)
			}
		}
		_, chart, _ := strings.Cut(md, "```mermaid")
		chart, _, _ = strings.Cut(chart, "```")
		if strings.Contains(chart, "case-") || strings.Contains(chart, "evil") {
			t.Errorf("%s: the chart holds case text:\n%s", name, chart)
		}
	}
	var con strings.Builder
	Console(&con, run, false)
	for _, line := range strings.Split(con.String(), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "::") || strings.Contains(line, "\x1b") {
			t.Errorf("console line %q", line)
		}
	}
}
