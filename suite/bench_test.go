package suite

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strings"
	"testing"
	"time"

	"github.com/agentv/action/internal/suitegen"
)

// genSuite writes an n-case suite of the given mode with the repository's generator and
// returns its eval file.
func genSuite(b *testing.B, mode string, n int) string {
	b.Helper()
	dir, err := suitegen.Write(b.TempDir(), mode, n)
	if err != nil {
		b.Fatal(err)
	}
	return filepath.Join(dir, "eval.yaml")
}

// BenchmarkLoad5000 loads a 5,000-case YAML suite (a code_judge per case). Besides allocated
// bytes it reports the heap the loaded suite keeps (retained-B) and the peak live heap during
// the load (peak-heap-B, sampled every millisecond), which must stay well under 100 MiB.
func BenchmarkLoad5000(b *testing.B) {
	benchLoad(b, genSuite(b, "code_py", 5000), 5000)
}

// benchLoad loads the suite at path, which must hold n cases and no error, and reports the
// heap the loaded suite keeps and the peak live heap while loading.
func benchLoad(b *testing.B, path string, n int) {
	b.ReportAllocs()
	var retained, peak uint64
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		stop := samplePeak(&peak)
		s := Load(path, LoadOptions{Cwd: filepath.Dir(path)})
		stop()
		runtime.GC()
		runtime.ReadMemStats(&after)
		if len(s.Cases) != n || HasErrors(s.Diagnostics) {
			b.Fatalf("loaded %d cases, diagnostics %v", len(s.Cases), s.Diagnostics)
		}
		retained = after.HeapAlloc - before.HeapAlloc
		runtime.KeepAlive(s)
	}
	b.ReportMetric(float64(retained), "retained-B")
	b.ReportMetric(float64(peak), "peak-heap-B")
}

// samplePeak records the largest live heap (objects) seen until the returned stop is called.
func samplePeak(peak *uint64) (stop func()) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() {
		metrics.Read(sample)
		if v := sample[0].Value.Uint64(); v > *peak {
			*peak = v
		}
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			read()
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() {
		read()
		close(done)
		<-finished
	}
}

// BenchmarkJSONLLine parses one typical JSONL case line into its node tree.
func BenchmarkJSONLLine(b *testing.B) {
	line := []byte(`{"id":"case-000001","expected_outcome":"The assistant answers 42 as JSON.","input_messages":[{"role":"system","content":"Answer with a single JSON object."},{"role":"user","content":"Question 1: what is six times seven?"}],"expected_messages":[{"role":"assistant","content":"{\"answer\":\"42\"}"}]}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := parseJSONLine(line, 1); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoadJSONL10k loads a 10,000-line JSONL suite shaped like bench/jsonl.py's and
// reports the heap each loaded case keeps (retained-B/case).
func BenchmarkLoadJSONL10k(b *testing.B) {
	dir := b.TempDir()
	var sb strings.Builder
	for i := 1; i <= 10000; i++ {
		fmt.Fprintf(&sb, `{"id":"case-%06d","expected_outcome":"The assistant answers 42 as JSON.","input_messages":[{"role":"system","content":"Answer with a single JSON object."},{"role":"user","content":"Question %d: what is six times seven?"}],"expected_messages":[{"role":"assistant","content":"{\"answer\":\"42\"}"}]}`+"\n", i, i)
	}
	path := filepath.Join(dir, "eval.jsonl")
	if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	var retained uint64
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		s := Load(path, LoadOptions{Cwd: dir})
		runtime.GC()
		runtime.ReadMemStats(&after)
		if len(s.Cases) != 10000 || HasErrors(s.Diagnostics) {
			b.Fatalf("loaded %d cases, diagnostics %v", len(s.Cases), s.Diagnostics)
		}
		retained = after.HeapAlloc - before.HeapAlloc
		runtime.KeepAlive(s)
	}
	b.ReportMetric(float64(retained)/10000, "retained-B/case")
}
