package evaluators

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentv/action/cache"
	"github.com/agentv/action/internal/jsonx"
	"github.com/agentv/action/providers"
)

// Environment variables that tell a code judge where its target proxy is.
const (
	EnvProxyURL   = "AGENTV_TARGET_PROXY_URL"
	EnvProxyToken = "AGENTV_TARGET_PROXY_TOKEN"
)

// maxProxyBody bounds a request to the proxy: a question, not a data set.
const maxProxyBody = 8 << 20

// targetProxy lets one code judge evaluation call the case's judge (the default) or the
// case's target over HTTP on loopback, with a bearer token of its own and a call budget.
//
//	GET  /info         {targetName, maxCalls, callCount, availableTargets}
//	POST /invoke       {question, systemPrompt?, target?, evalCaseId?, attempt?} → {outputMessages, rawText}
//	POST /invokeBatch  {requests: [<invoke request>...]} → {responses: [<invoke response>...]}
//
// 401 for a missing or wrong token, 400 for a bad request or an unknown target, 429 once the
// calls would exceed max_calls (a batch counts one call per request), 502 when the provider fails.
type targetProxy struct {
	r        *caseRun
	token    string
	maxCalls int64
	calls    atomic.Int64 // calls admitted, never more than maxCalls

	defaultName string
	names       []string // available targets, the default first
	byName      map[string]providers.Provider
	defaultErr  error // why the default (judge) target is unavailable

	url    string
	srv    *http.Server
	cancel context.CancelFunc
	once   sync.Once
}

// startProxy starts the proxy of one evaluation on 127.0.0.1 (never another interface).
func (r *caseRun) startProxy(ctx context.Context, maxCalls int) (*targetProxy, error) {
	tok := make([]byte, 32)
	if _, err := rand.Read(tok); err != nil {
		return nil, fmt.Errorf("could not make a token: %w", err)
	}
	p := &targetProxy{r: r, token: hex.EncodeToString(tok), maxCalls: int64(maxCalls), byName: map[string]providers.Provider{}}
	p.addTargets()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("could not listen on loopback: %w", err)
	}
	pctx, cancel := context.WithCancel(ctx)
	p.cancel = cancel
	p.url = "http://" + ln.Addr().String()
	p.srv = &http.Server{
		Handler:           p,
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return pctx },
	}
	go func() { _ = p.srv.Serve(ln) }()
	return p, nil
}

// addTargets resolves what the judge may call: the case's judge (as an llm_judge without
// its own target would get it) and the case's target.
func (p *targetProxy) addTargets() {
	add := func(override string) (string, error) {
		judge, name, err := p.r.resolveJudge(override)
		if err != nil {
			return name, err
		}
		if _, dup := p.byName[name]; !dup {
			p.byName[name] = judge
			p.names = append(p.names, name)
		}
		return name, nil
	}
	p.defaultName, p.defaultErr = add("")
	if t := p.r.in.Target; t != nil && t.Name != "" {
		_, _ = add(t.Name)
	}
}

// env is what the judge process needs to reach the proxy.
func (p *targetProxy) env() []string {
	return []string{EnvProxyURL + "=" + p.url, EnvProxyToken + "=" + p.token}
}

// close stops the server, drops open connections and cancels calls still running.
func (p *targetProxy) close() {
	p.once.Do(func() {
		_ = p.srv.Close()
		p.cancel()
	})
}

// record is the target_proxy member of the evaluator's recorded request.
func (p *targetProxy) record() []byte {
	return fmt.Appendf(nil, `{"call_count":%d,"max_calls":%d}`, p.calls.Load(), p.maxCalls)
}

type proxyRequest struct {
	Question     *string `json:"question"`
	SystemPrompt string  `json:"systemPrompt"`
	Target       string  `json:"target"`
	EvalCaseID   string  `json:"evalCaseId"`
	Attempt      int     `json:"attempt"`
}

func (p *targetProxy) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	const prefix = "Bearer "
	auth := req.Header.Get("Authorization")
	if len(auth) <= len(prefix) || subtle.ConstantTimeCompare([]byte(auth[len(prefix):]), []byte(p.token)) != 1 || auth[:len(prefix)] != prefix {
		proxyError(w, http.StatusUnauthorized, "missing or wrong bearer token (use $"+EnvProxyToken+")")
		return
	}
	switch req.URL.Path {
	case "/info":
		if req.Method != http.MethodGet {
			proxyError(w, http.StatusMethodNotAllowed, "use GET /info")
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{
			"targetName": p.defaultName, "maxCalls": p.maxCalls, "callCount": p.calls.Load(), "availableTargets": p.names,
		})
	case "/invoke":
		var in proxyRequest
		if !p.decode(w, req, &in) {
			return
		}
		prov, name, err := p.target(&in)
		if err != nil {
			proxyError(w, http.StatusBadRequest, err.Error())
			return
		}
		if !p.admit(w, 1) {
			return
		}
		out, err := p.invoke(req.Context(), prov, name, &in)
		if err != nil {
			proxyError(w, http.StatusBadGateway, err.Error())
			return
		}
		writeJSON(w, http.StatusOK, out)
	case "/invokeBatch":
		var in struct {
			Requests []proxyRequest `json:"requests"`
		}
		if !p.decode(w, req, &in) {
			return
		}
		provs, names := make([]providers.Provider, len(in.Requests)), make([]string, len(in.Requests))
		for i := range in.Requests {
			var err error
			if provs[i], names[i], err = p.target(&in.Requests[i]); err != nil {
				proxyError(w, http.StatusBadRequest, fmt.Sprintf("request %d: %v", i+1, err))
				return
			}
		}
		if !p.admit(w, len(in.Requests)) {
			return
		}
		out := make([]json.RawMessage, 0, len(in.Requests))
		for i := range in.Requests {
			one, err := p.invoke(req.Context(), provs[i], names[i], &in.Requests[i])
			if err != nil {
				proxyError(w, http.StatusBadGateway, fmt.Sprintf("request %d: %v", i+1, err))
				return
			}
			out = append(out, one)
		}
		writeJSON(w, http.StatusOK, map[string]any{"responses": out})
	default:
		proxyError(w, http.StatusNotFound, "unknown endpoint "+req.URL.Path+" (want GET /info, POST /invoke or POST /invokeBatch)")
	}
}

// decode reads a POST body as JSON into v, answering 400 or 405 itself when it cannot.
func (p *targetProxy) decode(w http.ResponseWriter, req *http.Request, v any) bool {
	if req.Method != http.MethodPost {
		proxyError(w, http.StatusMethodNotAllowed, "use POST "+req.URL.Path)
		return false
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, req.Body, maxProxyBody)).Decode(v); err != nil {
		proxyError(w, http.StatusBadRequest, "request body is not the JSON object expected: "+err.Error())
		return false
	}
	return true
}

// admit counts n calls against max_calls, or answers 429 and counts none.
func (p *targetProxy) admit(w http.ResponseWriter, n int) bool {
	for {
		used := p.calls.Load()
		if used+int64(n) > p.maxCalls {
			proxyError(w, http.StatusTooManyRequests, fmt.Sprintf("max_calls reached: %d of %d calls used, %d more refused", used, p.maxCalls, n))
			return false
		}
		if p.calls.CompareAndSwap(used, used+int64(n)) {
			return true
		}
	}
}

// target checks a request and returns the provider it names (the judge when none).
func (p *targetProxy) target(in *proxyRequest) (providers.Provider, string, error) {
	if in.Question == nil || *in.Question == "" {
		return nil, "", errors.New("question is required")
	}
	name := in.Target
	if name == "" {
		if p.defaultErr != nil {
			return nil, "", fmt.Errorf("no judge target: %w", p.defaultErr)
		}
		name = p.defaultName
	}
	prov, ok := p.byName[name]
	if !ok {
		return nil, "", fmt.Errorf("unknown target %q (available: %q)", name, p.names)
	}
	return prov, name, nil
}

// invoke sends one request to its target and renders {outputMessages, rawText}.
func (p *targetProxy) invoke(ctx context.Context, prov providers.Provider, name string, in *proxyRequest) (json.RawMessage, error) {
	id := in.EvalCaseID
	if id == "" {
		id = p.r.in.Case.ID
	}
	// A script asks what it wants as often as it wants (three asks, three samples): the
	// response cache is for targets and LLM judges, never for a code judge's calls.
	resp, err := p.r.invokeWith(cache.Bypass(ctx), prov, &providers.Request{
		EvalID: id, Attempt: in.Attempt, Question: *in.Question, SystemPrompt: in.SystemPrompt, Dir: p.r.dir(),
	})
	if err != nil {
		return nil, fmt.Errorf("target %q: %w", name, err)
	}
	msgs, err := messagesJSON(resp.OutputMessages)
	if err != nil {
		return nil, fmt.Errorf("target %q answer: %w", name, err)
	}
	return jsonx.Marshal(struct {
		OutputMessages json.RawMessage `json:"outputMessages"`
		RawText        string          `json:"rawText"`
	}{msgs, responseText(resp)})
}

func proxyError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := jsonx.Marshal(v)
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"error":"could not encode the answer"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}
