package evaluators

import (
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentv/action/providers"
	"github.com/agentv/action/suite"
	"github.com/agentv/action/targets"
)

func mockProvider(t *testing.T, name, answer string) providers.Provider {
	t.Helper()
	p, _, err := providers.New(&targets.Target{Name: name, Kind: targets.KindMock, Provider: "mock",
		Settings: map[string]*targets.Setting{"response": {Key: "response", Value: answer}}}, providers.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// proxyCase is a case whose code judge (argv run in testdata/proxy) may call the target proxy
// twice: "" reaches the judge provider, the target's own name the target, anything else fails.
func proxyCase(t *testing.T, name string, argv ...string) (*Input, *Options) {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("testdata", "proxy"))
	if err != nil {
		t.Fatal(err)
	}
	target := mockProvider(t, "agent", "the target's answer")
	judge := mockProvider(t, "judge", "the judge's answer")
	spec := codeSpec(name, argv...)
	spec.Cwd = dir
	spec.TargetProxy = &suite.TargetProxy{MaxCalls: 2}
	spec.Config = json.RawMessage(`{"target_name":"agent"}`)
	in := riskInput(riskCase(dir, spec), "High")
	in.Target = target.Target()
	opts := judgeOpts(nil, nil)
	opts.Judges = func(t *targets.Target, override string) (providers.Provider, error) {
		switch override {
		case "":
			return judge, nil
		case t.Name:
			return target, nil
		}
		return nil, fmt.Errorf("no target %q", override)
	}
	return in, opts
}

// A code judge with `target: {max_calls: 2}` calls the case's judge and target through a
// loopback proxy: two calls are answered, the third is refused (429), a wrong token is refused
// (401), and the proxy is gone once the judge has ended.
func TestCodeJudgeTargetProxy(t *testing.T) {
	t.Parallel()
	needTool(t, "python3")
	in, opts := proxyCase(t, "proxy", "python3", "judge.py")
	out := Evaluate(t.Context(), in, opts)
	res := out.Results[0]
	if res.Error != "" || res.Score != 1 {
		t.Fatalf("judge result: score %v error %q misses %v", res.Score, res.Error, res.Misses)
	}

	type answer struct {
		RawText        string `json:"rawText"`
		OutputMessages []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"outputMessages"`
		Error            string   `json:"error"`
		TargetName       string   `json:"targetName"`
		MaxCalls         int      `json:"maxCalls"`
		CallCount        int      `json:"callCount"`
		AvailableTargets []string `json:"availableTargets"`
	}
	type call struct {
		status int
		body   answer
	}
	var seen struct {
		URL       string            `json:"url"`
		Info      []json.RawMessage `json:"info"`
		InfoAfter []json.RawMessage `json:"info_after"`
		Calls     [][]json.RawMessage
	}
	if err := json.Unmarshal(res.Details, &seen); err != nil {
		t.Fatalf("details %s: %v", res.Details, err)
	}
	decode := func(pair []json.RawMessage) call {
		var c call
		if len(pair) != 2 || json.Unmarshal(pair[0], &c.status) != nil || json.Unmarshal(pair[1], &c.body) != nil {
			t.Fatalf("bad call record %s", pair)
		}
		return c
	}
	info := decode(seen.Info)
	if info.status != 200 || info.body.TargetName != "judge" || info.body.MaxCalls != 2 || info.body.CallCount != 0 ||
		fmt.Sprint(info.body.AvailableTargets) != "[judge agent]" {
		t.Errorf("GET /info = %d %+v", info.status, info.body)
	}
	tests := []struct {
		name    string
		status  int
		rawText string
		errText string
	}{
		{"default target is the judge", 200, "the judge's answer", ""},
		{"the case's target by name", 200, "the target's answer", ""},
		{"past max_calls", 429, "", "max_calls reached: 2 of 2 calls used"},
		{"wrong token", 401, "", "wrong bearer token"},
		{"unknown target", 400, "", `unknown target "nope"`},
		{"no question", 400, "", "question is required"},
	}
	if len(seen.Calls) != len(tests) {
		t.Fatalf("%d calls recorded, want %d", len(seen.Calls), len(tests))
	}
	for i, tt := range tests {
		c := decode(seen.Calls[i])
		if c.status != tt.status || c.body.RawText != tt.rawText || (tt.errText != "" && !strings.Contains(c.body.Error, tt.errText)) {
			t.Errorf("%s: %d %+v; want %d, rawText %q, error containing %q", tt.name, c.status, c.body, tt.status, tt.rawText, tt.errText)
		}
		if tt.status == 200 && (len(c.body.OutputMessages) != 1 || c.body.OutputMessages[0].Role != "assistant" ||
			c.body.OutputMessages[0].Content != tt.rawText) {
			t.Errorf("%s: outputMessages %+v", tt.name, c.body.OutputMessages)
		}
	}
	if after := decode(seen.InfoAfter); after.body.CallCount != 2 {
		t.Errorf("callCount after the calls = %d, want 2", after.body.CallCount)
	}

	// Loopback only, and closed once the judge has ended.
	u, err := url.Parse(seen.URL)
	if err != nil || u.Hostname() != "127.0.0.1" {
		t.Fatalf("proxy URL %q: want http://127.0.0.1:<port>", seen.URL)
	}
	if conn, err := net.Dial("tcp", u.Host); err == nil {
		conn.Close()
		t.Errorf("the proxy at %s still accepts connections after the judge ended", u.Host)
	}
	var rec struct {
		TargetProxy struct {
			CallCount int `json:"call_count"`
			MaxCalls  int `json:"max_calls"`
		} `json:"target_proxy"`
	}
	if err := json.Unmarshal(res.EvaluatorProviderRequest, &rec); err != nil || rec.TargetProxy.CallCount != 2 || rec.TargetProxy.MaxCalls != 2 {
		t.Errorf("evaluator_provider_request %s: want target_proxy {call_count: 2, max_calls: 2}", res.EvaluatorProviderRequest)
	}
}

// The SDK's createTargetClient reaches the same proxy from a Node judge.
func TestCodeJudgeTargetProxySDK(t *testing.T) {
	t.Parallel()
	needTool(t, "node")
	in, opts := proxyCase(t, "sdk", "node", "judge.mjs")
	res := Evaluate(t.Context(), in, opts).Results[0]
	if res.Error != "" || res.Score != 1 {
		t.Fatalf("judge result: score %v error %q", res.Score, res.Error)
	}
	var got struct {
		URL  string `json:"url"`
		Info struct {
			TargetName string `json:"targetName"`
			MaxCalls   int    `json:"maxCalls"`
		} `json:"info"`
		Answers  []string `json:"answers"`
		Messages []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
		Refused int `json:"refused"`
	}
	if err := json.Unmarshal(res.Details, &got); err != nil {
		t.Fatalf("details %s: %v", res.Details, err)
	}
	if got.Info.TargetName != "judge" || got.Info.MaxCalls != 2 || fmt.Sprint(got.Answers) != "[the judge's answer the target's answer]" ||
		got.Refused != 429 || len(got.Messages) != 1 || got.Messages[0].Content != "the judge's answer" {
		t.Errorf("details = %s", res.Details)
	}
	if u, err := url.Parse(got.URL); err != nil || u.Hostname() != "127.0.0.1" {
		t.Errorf("proxy URL %q is not on 127.0.0.1", got.URL)
	}
}
