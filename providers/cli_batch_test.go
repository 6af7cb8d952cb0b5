package providers

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func cliBatchNew(t *testing.T, dir, tmpl string) BatchProvider {
	t.Helper()
	p, _, err := New(cliTestTarget(dir, map[string]any{"command_template": tmpl, "provider_batching": true}), Options{Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	bp, ok := p.(BatchProvider)
	if !ok {
		t.Fatalf("%T does not batch", p)
	}
	return bp
}

func TestCLIBatch(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cliWrite(t, filepath.Join(dir, "out.jsonl"), `{"id":"a","text":"answer a","cost_usd":0.1,"duration_ms":5}

{"id":"c","output_messages":[{"role":"assistant","content":"answer c"}],"token_usage":{"input":1,"output":2}}
{"id":"not-asked","text":"extra"}
`)
	bp := cliBatchNew(t, dir, "printf '%s|' {PROMPT} {GUIDELINES} {EVAL_ID} {ATTEMPT} {FILES} > ./args.txt; cp ./out.jsonl {OUTPUT_FILE}")
	reqs := []*Request{
		{EvalID: "a", Question: "qa", Attempt: 4, Files: []string{"/g", "/x"}},
		{EvalID: "b", Question: "qb", Files: []string{"/x", "/y"}},
		{EvalID: "c", Question: "qc"},
	}
	resps, err := bp.InvokeBatch(t.Context(), reqs)
	if err != nil {
		t.Fatal(err)
	}
	args, _ := os.ReadFile(filepath.Join(dir, "args.txt"))
	if string(args) != "||batch|0|/g|/x|/y|" {
		t.Errorf("batch placeholders: %q", args)
	}
	if len(resps) != 3 {
		t.Fatalf("%d responses", len(resps))
	}
	a, b, c := resps[0], resps[1], resps[2]
	if a.Text != "answer a" || a.CostUSD == nil || *a.CostUSD != 0.1 || *a.DurationMS != 5 || a.Error != "" {
		t.Errorf("a: %+v", a)
	}
	if b.Error != `batch output missing id "b"` || b.Text != "" {
		t.Errorf("b: %+v", b)
	}
	if c.Text != "answer c" || len(c.OutputMessages) != 1 || c.Usage == nil || c.Usage.Output != 2 || c.DurationMS == nil {
		t.Errorf("c: %+v", c)
	}
}

func TestCLIBatchStdout(t *testing.T) {
	t.Parallel()
	bp := cliBatchNew(t, t.TempDir(), `echo '{"id":"only","text":"from stdout"}'`)
	resps, err := bp.InvokeBatch(t.Context(), []*Request{{EvalID: "only"}})
	if err != nil || len(resps) != 1 || resps[0].Text != "from stdout" {
		t.Errorf("resps %v err %v", resps, err)
	}
}

func TestCLIBatchInvalidOutput(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, out, want string }{
		{"not json", "plain text answer", "line 1: not a JSON object"},
		{"array line", `[{"id":"a"}]`, "line 1: not a JSON object"},
		{"missing id", `{"id":"a","text":"x"}` + "\n" + `{"text":"y"}`, "line 2: missing string `id`"},
		{"number id", `{"id":1,"text":"x"}`, "line 1: missing string `id`"},
		{"duplicate id", `{"id":"a"}` + "\n" + `{"id":"a"}`, `line 2: duplicate id "a"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			cliWrite(t, filepath.Join(dir, "out.jsonl"), tc.out)
			bp := cliBatchNew(t, dir, "cp ./out.jsonl {OUTPUT_FILE}")
			_, err := bp.InvokeBatch(t.Context(), []*Request{{EvalID: "a"}})
			if err == nil || !strings.Contains(err.Error(), "invalid batch output: "+tc.want) {
				t.Errorf("err %v, want %q", err, tc.want)
			}
		})
	}
	bp := cliBatchNew(t, t.TempDir(), "exit 9")
	if _, err := bp.InvokeBatch(t.Context(), []*Request{{EvalID: "a"}}); err == nil || !strings.Contains(err.Error(), "exited with code 9") {
		t.Errorf("failing batch: %v", err)
	}
	if resps, err := bp.InvokeBatch(t.Context(), nil); err != nil || resps != nil {
		t.Errorf("empty batch: %v %v", resps, err)
	}
}

func TestCLIParseBatchCRLF(t *testing.T) {
	t.Parallel()
	got, err := cliParseBatch([]byte("{\"id\":\"z\"}\r\n{\"id\":\"y\",\"text\":\"t\"}"))
	if err != nil {
		t.Fatal(err)
	}
	keys := []string{}
	for k := range got {
		keys = append(keys, k)
	}
	if len(keys) != 2 || got["y"] == nil || got["z"] == nil {
		t.Error(cmp.Diff([]string{"y", "z"}, keys))
	}
}
