package e2e_test

import (
	"encoding/json"
	"path/filepath"
	"testing"
)

// A code judge with `target: {max_calls: 1}` gets the case's target answer through the proxy of
// the real binary, and its second call is refused; the record shows the proxy's use.
func TestCodeJudgeTargetProxyEndToEnd(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	requireTools(t, "python3")
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"targets.yaml": `targets:
  - name: default
    provider: mock
    response: the target's answer
    judge_target: judge
  - name: judge
    provider: mock
    response: '{"score": 1}'
`,
		"s.yaml": `evalcases:
  - id: proxied
    input: hi
    evaluators:
      - name: asks-the-target
        type: code_judge
        script: [python3, judge.py]
        target: {max_calls: 1}
`,
		"judge.py": `import json, os, sys, urllib.error, urllib.request
json.load(sys.stdin)
def invoke(q):
    req = urllib.request.Request(os.environ["AGENTV_TARGET_PROXY_URL"] + "/invoke", method="POST",
        data=json.dumps({"question": q, "target": "default"}).encode(),
        headers={"Authorization": "Bearer " + os.environ["AGENTV_TARGET_PROXY_TOKEN"]})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, json.load(r)
    except urllib.error.HTTPError as e:
        return e.code, json.load(e)
first, second = invoke("again?"), invoke("and again?")
ok = first == (200, first[1]) and first[1]["rawText"] == "the target's answer" and second[0] == 429
print(json.dumps({"score": 1 if ok else 0, "details": {"first": first, "second": second}}))
`,
	})
	res := agentv(t, dir, nil, "eval", filepath.Join(dir, "s.yaml"))
	if res.code != 0 || len(res.records) != 1 {
		t.Fatalf("exit %d, %d records\nstdout:\n%s\nstderr:\n%s", res.code, len(res.records), res.stdout, res.stderr)
	}
	e := res.records[0].EvaluatorResults[0]
	if e.Score != 1 {
		t.Errorf("judge score %v, details %s, error %q", e.Score, e.Details, e.Error)
	}
	var req struct {
		TargetProxy struct {
			CallCount int `json:"call_count"`
			MaxCalls  int `json:"max_calls"`
		} `json:"target_proxy"`
	}
	if err := json.Unmarshal(e.EvaluatorProviderRequest, &req); err != nil || req.TargetProxy.CallCount != 1 || req.TargetProxy.MaxCalls != 1 {
		t.Errorf("evaluator_provider_request %s: want target_proxy {call_count: 1, max_calls: 1}", e.EvaluatorProviderRequest)
	}
}
