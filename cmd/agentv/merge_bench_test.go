package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentv/action/gate"
	"github.com/agentv/action/report"
	"github.com/agentv/action/results"
)

// writeShards writes count results files of one split run, each holding perShard cases.
func writeShards(tb testing.TB, dir string, count, perShard int) []string {
	tb.Helper()
	var paths []string
	for s := 1; s <= count; s++ {
		path := filepath.Join(dir, fmt.Sprintf("shard-%d.jsonl", s))
		f, err := os.Create(path)
		if err != nil {
			tb.Fatal(err)
		}
		w := results.NewWriter(f)
		sh := &results.RunShard{Index: s, Count: count}
		_ = w.WriteRun(&results.RunRecord{Kind: results.KindRunStart, Format: results.RunFormat, Shard: sh, Gate: gate.Defaults().Record()})
		for i := range perShard {
			score, verdict := 0.9, results.VerdictPass
			if i%10 == 0 {
				score, verdict = 0.4, results.VerdictFail
			}
			_ = w.Write(&results.Record{EvalID: fmt.Sprintf("case-%d-%d", s, i), Dataset: "bench", Score: score, Verdict: verdict,
				Hits: []string{"names the refund window"}, Misses: []string{}, CandidateAnswer: "Refunds are accepted within 30 days of purchase.",
				Target: "default", File: "evals/bench.yaml", Line: i*3 + 1, DurationMS: 200, Attempts: 1,
				EvaluatorResults: []results.EvaluatorResult{{Name: "llm_judge", Type: "llm_judge", Score: score, Weight: 1, Verdict: results.Band(score),
					Hits: []string{"names the refund window"}, Misses: []string{}, Reasoning: "The answer states the window."}}})
		}
		end := *sh
		end.Plan, end.PlanCases = "bench", new(count*perShard)
		_ = w.WriteRun(&results.RunRecord{Kind: results.KindRunEnd, Format: results.RunFormat, Shard: &end, Gate: gate.Defaults().Record(),
			Planned: new(perShard), Cases: new(perShard)})
		if err := w.Flush(); err != nil {
			tb.Fatal(err)
		}
		if err := f.Close(); err != nil {
			tb.Fatal(err)
		}
		paths = append(paths, path)
	}
	return paths
}

// BenchmarkMergeShards merges 100 shards of 1,000 cases each into one set of reports: reading
// and checking every file, the gate, and writing results.jsonl, junit.xml, summary.md and
// comment.md.
func BenchmarkMergeShards(b *testing.B) {
	dir := b.TempDir()
	paths := writeShards(b, dir, 100, 1000)
	out := filepath.Join(dir, "merged")
	g := gate.Defaults()
	for b.Loop() {
		o := readResults(paths, out, dir, "--out-dir", report.DetailsFailures, g, nil)
		run := finishRun(o, g, nil)
		if len(o.Problems) > 0 || run.Counts.Total != 100_000 {
			b.Fatalf("problems %q, %d cases", o.Problems, run.Counts.Total)
		}
		if err := writeReports(out, run, localMarker); err != nil {
			b.Fatal(err)
		}
		o.Close()
	}
}

func TestMergeShardsChecksThePlan(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	paths := writeShards(t, dir, 3, 5)
	g := gate.Defaults()
	for _, tc := range []struct {
		name  string
		paths []string
		want  string
	}{
		{"all", paths, ""},
		{"missing", paths[:2], "shard 3 of 3 is missing"},
		{"alone", paths[1:2], ""}, // one shard reports its own outcome
	} {
		o := readResults(tc.paths, filepath.Join(dir, "out"), dir, "--out-dir", report.DetailsFailures, g, nil)
		got := fmt.Sprint(o.Problems)
		if (tc.want == "") != (len(o.Problems) == 0) || (tc.want != "" && !strings.Contains(got, tc.want)) {
			t.Errorf("%s: problems %s, want %q", tc.name, got, tc.want)
		}
		if n := len(o.Cases); n != 5*len(tc.paths) {
			t.Errorf("%s: %d cases", tc.name, n)
		}
		o.Close()
	}
}
