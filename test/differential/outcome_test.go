package differential

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Outcome is one test's result in a shape both programs' result files can be read into.
type Outcome struct {
	Score   float64
	Verdict string            // pass | fail | error
	Graders map[string]Grader // by name; composite members and turn graders as "parent/#i"
	Error   string            // why the test errored, for the log only
}

// Grader is one grader's score and verdict band.
type Grader struct {
	Score   float64
	Verdict string
}

// Difference is one way the two programs disagree about a test.
type Difference struct {
	Test   string // test id
	Field  string // score, verdict, grader[NAME], grader[NAME].score, payload[PROBE].KEY, ...
	Ours   string
	Theirs string
}

func (d Difference) String() string {
	return fmt.Sprintf("%s %s: agentv %s, 4.42.4 %s", d.Test, d.Field, d.Ours, d.Theirs)
}

// scoreTolerance absorbs printing and summation order; both programs compute in float64.
const scoreTolerance = 5e-4

// Compare lists the differences between ours and theirs, sorted by test and field.
func Compare(ours, theirs map[string]Outcome) []Difference {
	var diffs []Difference
	add := func(test, field, o, t string) { diffs = append(diffs, Difference{test, field, o, t}) }
	for _, id := range union(ours, theirs) {
		o, inO := ours[id]
		t, inT := theirs[id]
		if !inO || !inT {
			add(id, "test", present(inO), present(inT))
			continue
		}
		if math.Abs(o.Score-t.Score) > scoreTolerance {
			add(id, "score", num(o.Score), num(t.Score))
		}
		if o.Verdict != t.Verdict {
			add(id, "verdict", o.Verdict, t.Verdict)
		}
		for _, name := range union(o.Graders, t.Graders) {
			og, inO := o.Graders[name]
			tg, inT := t.Graders[name]
			field := "grader[" + name + "]"
			if !inO || !inT {
				add(id, field, present(inO), present(inT))
				continue
			}
			if math.Abs(og.Score-tg.Score) > scoreTolerance {
				add(id, field+".score", num(og.Score), num(tg.Score))
			}
			if og.Verdict != tg.Verdict {
				add(id, field+".verdict", og.Verdict, tg.Verdict)
			}
		}
	}
	sortDiffs(diffs)
	return diffs
}

// ComparePayloads lists the differences between the payload shapes the recording code graders
// wrote, by probe ({key path: JSON type}). A probe's test is the probe's name.
func ComparePayloads(ours, theirs map[string]map[string]string) []Difference {
	var diffs []Difference
	for _, probe := range union(ours, theirs) {
		o, inO := ours[probe]
		t, inT := theirs[probe]
		if !inO || !inT {
			diffs = append(diffs, Difference{probe, "payload", recorded(inO), recorded(inT)})
			continue
		}
		for _, key := range union(o, t) {
			ot, tt := o[key], t[key]
			if ot == "" {
				ot = "absent"
			}
			if tt == "" {
				tt = "absent"
			}
			if ot != tt {
				diffs = append(diffs, Difference{probe, "payload." + key, ot, tt})
			}
		}
	}
	sortDiffs(diffs)
	return diffs
}

func sortDiffs(d []Difference) {
	sort.SliceStable(d, func(i, j int) bool {
		if d[i].Test != d[j].Test {
			return d[i].Test < d[j].Test
		}
		return d[i].Field < d[j].Field
	})
}

func union[V any](a, b map[string]V) []string {
	seen := map[string]bool{}
	for k := range a {
		seen[k] = true
	}
	for k := range b {
		seen[k] = true
	}
	keys := make([]string, 0, len(seen))
	for k := range seen {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func present(ok bool) string {
	if ok {
		return "present"
	}
	return "missing"
}

func recorded(ok bool) string {
	if ok {
		return "recorded"
	}
	return "not recorded (the grader did not run)"
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// ReadIndex reads a 4.x run directory's index.jsonl: AgentV 4.42.4's, or the one agentv
// writes beside its results with -o.
func ReadIndex(path string) (map[string]Outcome, error) {
	out := map[string]Outcome{}
	err := eachLine(path, func(line int, raw []byte) error {
		var rec struct {
			TestID          string        `json:"test_id"`
			Score           float64       `json:"score"`
			ExecutionStatus string        `json:"execution_status"`
			Error           string        `json:"error"`
			Scores          []indexGrader `json:"scores"`
		}
		if err := json.Unmarshal(raw, &rec); err != nil {
			return fmt.Errorf("%s:%d: %w", path, line, err)
		}
		verdict := map[string]string{"ok": "pass", "quality_failure": "fail", "execution_error": "error"}[rec.ExecutionStatus]
		if verdict == "" {
			verdict = "unknown execution_status " + strconv.Quote(rec.ExecutionStatus)
		}
		o := Outcome{Score: rec.Score, Verdict: verdict, Error: rec.Error, Graders: map[string]Grader{}}
		flatten(o.Graders, "", rec.Scores)
		out[rec.TestID] = o
		return nil
	})
	return out, err
}

type indexGrader struct {
	Name    string        `json:"name"`
	Score   float64       `json:"score"`
	Verdict string        `json:"verdict"`
	Scores  []indexGrader `json:"scores"`
}

// flatten keys top-level graders by name and nested ones (composite members, a turn's
// graders) by position, "parent/#i": 4.42.4 leaves a turn's graders unnamed.
func flatten(into map[string]Grader, prefix string, gs []indexGrader) {
	for i, g := range gs {
		key := g.Name
		if prefix != "" {
			key = prefix + "#" + strconv.Itoa(i)
		}
		into[key] = Grader{g.Score, g.Verdict}
		flatten(into, key+"/", g.Scores)
	}
}

// ReadPayloads reads every <probe>.json a recording code grader wrote in dir.
func ReadPayloads(dir string) (map[string]map[string]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	out := map[string]map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		shape := map[string]string{}
		if err := json.Unmarshal(b, &shape); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		out[strings.TrimSuffix(filepath.Base(f), ".json")] = shape
	}
	return out, nil
}

func eachLine(path string, fn func(line int, raw []byte) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	for n := 1; sc.Scan(); n++ {
		if len(strings.TrimSpace(sc.Text())) == 0 {
			continue
		}
		if err := fn(n, sc.Bytes()); err != nil {
			return err
		}
	}
	return sc.Err()
}
