package action

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"context"
	"errors"
	"hash/crc32"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agentv/action/action/actiontest"
)

func zipOf(t *testing.T, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, body := range files {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

const baselineResults = `{"eval_id":"a","dataset":"d","score":1,"verdict":"pass"}` + "\n"

// baselineRuns seeds the fake with the current pull request run (99, workflow 7) and runs
// that must not be picked around the one that must (11).
func baselineRuns(gh *actiontest.GitHub) {
	run := func(id int64, wid int64, branch, event, conclusion, created string) actiontest.WorkflowRun {
		return actiontest.WorkflowRun{ID: id, RunNumber: int(id), WorkflowID: wid, HeadBranch: branch, HeadSHA: "abcdef1234567890",
			Event: event, Status: "completed", Conclusion: conclusion, CreatedAt: created, HTMLURL: "https://github.example/runs/x"}
	}
	for _, r := range []actiontest.WorkflowRun{
		run(99, 7, "feature", "pull_request", "", "2026-01-09T00:00:00Z"),
		run(10, 7, "main", "push", "success", "2026-01-01T00:00:00Z"), // older
		run(11, 7, "main", "push", "success", "2026-01-03T00:00:00Z"), // the one
		run(12, 7, "main", "push", "failure", "2026-01-04T00:00:00Z"), // failed
		run(13, 8, "main", "push", "success", "2026-01-05T00:00:00Z"), // another workflow
		run(14, 7, "release", "push", "success", "2026-01-06T00:00:00Z"),
		run(15, 7, "main", "pull_request", "success", "2026-01-07T00:00:00Z"),
		run(16, 7, "main", "schedule", "success", "2026-01-08T00:00:00Z"),
	} {
		gh.AddRun(r)
	}
}

func TestFetchBaselinePicksTheRun(t *testing.T) {
	t.Parallel()
	for _, unfiltered := range []bool{false, true} {
		gh := startGitHub(t)
		if unfiltered {
			gh.IgnoreRunFilters()
		}
		baselineRuns(gh)
		for _, id := range []int64{10, 12, 13, 14, 15, 16} {
			gh.AddArtifact(id, "agentv-results", zipOf(t, map[string]string{"results.jsonl": "wrong run\n"}), false)
		}
		gh.AddArtifact(11, "other", zipOf(t, map[string]string{"results.jsonl": "wrong artifact\n"}), false)
		gh.AddArtifact(11, "agentv-results", zipOf(t, map[string]string{"junit.xml": "<x/>", "results.jsonl": baselineResults, "nested/results.jsonl": "deeper\n"}), false)
		s, _ := newTestStore(t, gh)
		dst := filepath.Join(t.TempDir(), "baseline.jsonl")
		run, err := s.FetchBaseline(context.Background(), BaselineQuery{RunID: 99, Branch: "main", Artifact: "agentv-results"}, dst)
		if err != nil {
			t.Fatalf("unfiltered %v: %v", unfiltered, err)
		}
		if run.ID != 11 || run.Describe() != "run 11 on main (abcdef1)" {
			t.Errorf("unfiltered %v: picked %+v", unfiltered, run)
		}
		if b, _ := os.ReadFile(dst); string(b) != baselineResults {
			t.Errorf("baseline file %q", b)
		}
		var blob actiontest.Request
		for _, r := range gh.Requests() {
			if strings.HasPrefix(r.Path, "/blobs/") {
				blob = r
			} else if r.Auth != "Bearer test-token" {
				t.Errorf("API request %s without the token", r)
			}
		}
		if blob.Path == "" || blob.Auth != "" {
			t.Errorf("archive download %+v: want one, without the token", blob)
		}
	}
}

// A missing or expired baseline is ErrNoBaselineRun, which callers turn into a notice.
func TestFetchBaselineMissing(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		setup func(gh *actiontest.GitHub)
		want  string
	}{
		{"no run", func(gh *actiontest.GitHub) {
			gh.AddRun(actiontest.WorkflowRun{ID: 99, WorkflowID: 7, HeadBranch: "feature", Event: "pull_request"})
		}, "no successful push run of this workflow on main"},
		{"no artifact", func(gh *actiontest.GitHub) {
			baselineRuns(gh)
			gh.AddArtifact(11, "something-else", zipOf(t, map[string]string{"results.jsonl": baselineResults}), false)
		}, `run 11 on main (abcdef1) has no artifact named "agentv-results"`},
		{"expired in the listing", func(gh *actiontest.GitHub) {
			baselineRuns(gh)
			gh.AddArtifact(11, "agentv-results", zipOf(t, map[string]string{"results.jsonl": baselineResults}), true)
		}, `the "agentv-results" artifact of run 11 on main (abcdef1) has expired`},
		{"gone at download", func(gh *actiontest.GitHub) {
			baselineRuns(gh)
			id := gh.AddArtifact(11, "agentv-results", zipOf(t, map[string]string{"results.jsonl": baselineResults}), false)
			gh.Fail("GET /repos/octo/repo/actions/artifacts/"+strconv.Itoa(int(id))+"/zip", actiontest.Fault{Status: 410, Message: "Artifact has expired"})
		}, "has expired"},
		{"no results in the archive", func(gh *actiontest.GitHub) {
			baselineRuns(gh)
			gh.AddArtifact(11, "agentv-results", zipOf(t, map[string]string{"junit.xml": "<x/>"}), false)
		}, "the archive holds no results.jsonl"},
		{"shards side by side", func(gh *actiontest.GitHub) {
			baselineRuns(gh)
			gh.AddArtifact(11, "agentv-results", zipOf(t, map[string]string{
				"shards/1/results.jsonl": baselineResults, "shards/2/results.jsonl": baselineResults, "shards/1/deeper/results.jsonl": "x\n"}), false)
		}, "no top-level results.jsonl but 2 at the same depth (shards/1/results.jsonl, shards/2/results.jsonl): the results of shards"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			gh := startGitHub(t)
			tt.setup(gh)
			s, _ := newTestStore(t, gh)
			dst := filepath.Join(t.TempDir(), "baseline.jsonl")
			_, err := s.FetchBaseline(context.Background(), BaselineQuery{RunID: 99, Branch: "main", Artifact: "agentv-results"}, dst)
			if !errors.Is(err, ErrNoBaselineRun) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want ErrNoBaselineRun with %q", err, tt.want)
			}
			if _, serr := os.Stat(dst); serr == nil {
				t.Error("a baseline file was written")
			}
		})
	}
}

// A download that is not a zip, or too large, is an error (a notice too), not a crash.
func TestFetchBaselineBadArchive(t *testing.T) {
	t.Parallel()
	gh := startGitHub(t)
	baselineRuns(gh)
	gh.AddArtifact(11, "agentv-results", []byte("not a zip at all"), false)
	s, _ := newTestStore(t, gh)
	dst := filepath.Join(t.TempDir(), "b.jsonl")
	if _, err := s.FetchBaseline(context.Background(), BaselineQuery{RunID: 99, Branch: "main", Artifact: "agentv-results"}, dst); err == nil || !strings.Contains(err.Error(), "not a zip archive") {
		t.Errorf("err = %v", err)
	}
	big := zipOf(t, map[string]string{"results.jsonl": strings.Repeat("x", 4096)})
	gh2 := startGitHub(t)
	baselineRuns(gh2)
	gh2.AddArtifact(11, "agentv-results", big, false)
	s2, _ := newTestStore(t, gh2)
	if _, err := s2.FetchBaseline(context.Background(), BaselineQuery{RunID: 99, Branch: "main", Artifact: "agentv-results", MaxBytes: 1024}, dst); err == nil || !strings.Contains(err.Error(), "more than") {
		t.Errorf("err = %v", err)
	}
}

// An archive's entries are the uploader's word: a symbolic link named results.jsonl is not
// the results (its content is a path), and a size written smaller than the entry is does not
// let more through.
func TestFetchBaselineHostileArchive(t *testing.T) {
	t.Parallel()
	raw := func(t *testing.T, build func(zw *zip.Writer)) []byte {
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		build(zw)
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	for _, tc := range []struct {
		name    string
		archive func(t *testing.T) []byte
		want    string // the baseline written, "" when an error is wanted
		err     string
	}{
		{"symbolic link entry", func(t *testing.T) []byte {
			return raw(t, func(zw *zip.Writer) {
				h := &zip.FileHeader{Name: "results.jsonl"}
				h.SetMode(os.ModeSymlink | 0o777)
				w, err := zw.CreateHeader(h)
				must(t, err)
				_, err = w.Write([]byte("/etc/passwd"))
				must(t, err)
				w, err = zw.Create("out/results.jsonl")
				must(t, err)
				_, err = w.Write([]byte(baselineResults))
				must(t, err)
			})
		}, baselineResults, ""},
		{"only a symbolic link", func(t *testing.T) []byte {
			return raw(t, func(zw *zip.Writer) {
				h := &zip.FileHeader{Name: "results.jsonl"}
				h.SetMode(os.ModeSymlink | 0o777)
				w, err := zw.CreateHeader(h)
				must(t, err)
				_, err = w.Write([]byte("/etc/passwd"))
				must(t, err)
			})
		}, "", "no results.jsonl"},
		{"declared size smaller than the entry", func(t *testing.T) []byte {
			return raw(t, func(zw *zip.Writer) {
				body := bytes.Repeat([]byte("x"), 1<<20)
				var comp bytes.Buffer
				fw, err := flate.NewWriter(&comp, flate.BestCompression)
				must(t, err)
				_, err = fw.Write(body)
				must(t, err)
				must(t, fw.Close())
				w, err := zw.CreateRaw(&zip.FileHeader{Name: "results.jsonl", Method: zip.Deflate,
					CRC32: crc32.ChecksumIEEE(body), CompressedSize64: uint64(comp.Len()), UncompressedSize64: 10})
				must(t, err)
				_, err = w.Write(comp.Bytes())
				must(t, err)
			})
		}, "", "could not read results.jsonl"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			gh := startGitHub(t)
			baselineRuns(gh)
			gh.AddArtifact(11, "agentv-results", tc.archive(t), false)
			s, _ := newTestStore(t, gh)
			dst := filepath.Join(t.TempDir(), "b.jsonl")
			_, err := s.FetchBaseline(context.Background(), BaselineQuery{RunID: 99, Branch: "main", Artifact: "agentv-results", MaxBytes: 64 << 10}, dst)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got, _ := os.ReadFile(dst); string(got) != tc.want {
				t.Errorf("baseline = %q, want %q", got, tc.want)
			}
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// An artifact holding an AgentV 4.x run directory (4.42.4's `-o DIR` uploaded as it is) gives
// its index.jsonl; when the archive also holds our results.jsonl, that one is the run's.
func TestFetchBaselineAgentV4RunDir(t *testing.T) {
	t.Parallel()
	const index = `{"test_id":"a","suite":"d","score":1,"target":"default","execution_status":"ok"}` + "\n"
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"run dir at the top", map[string]string{"index.jsonl": index, "benchmark.json": "{}", "d/a/grading.json": "{}"}, index},
		{"run dir in a folder", map[string]string{"run/index.jsonl": index, "run/d/a/outputs/answer.md": "hi"}, index},
		{"ours wins", map[string]string{"index.jsonl": index, "results.jsonl": baselineResults}, baselineResults},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			gh := startGitHub(t)
			baselineRuns(gh)
			gh.AddArtifact(11, "agentv-results", zipOf(t, tc.files), false)
			s, _ := newTestStore(t, gh)
			dst := filepath.Join(t.TempDir(), "baseline.jsonl")
			if _, err := s.FetchBaseline(context.Background(), BaselineQuery{RunID: 99, Branch: "main", Artifact: "agentv-results"}, dst); err != nil {
				t.Fatal(err)
			}
			if b, _ := os.ReadFile(dst); string(b) != tc.want {
				t.Errorf("baseline file %q, want %q", b, tc.want)
			}
		})
	}
}
