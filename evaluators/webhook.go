package evaluators

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/agentv/action/internal/jsonx"
	"github.com/agentv/action/suite"
)

// webhook (AgentV 5.x, promptfoo) asks a service to judge the answer: it POSTs
// {"output": answer, "context": {...}} as JSON to `value` (a URL) and reads the reply as a
// javascript assertion's result (promptfoo-assertions.ts, WebhookAssertionGrader). The URL
// can carry a token: it is never written to results or errors.
func init() {
	register("webhook", nil, scriptAssertionKeys, parseWebhook, webhook)
}

// maxWebhookReply bounds how much of a webhook's reply is read.
const maxWebhookReply = 8 << 20

type webhookConfig struct {
	*scriptAssertion
	url *url.URL
}

func parseWebhook(spec *suite.EvaluatorSpec) (*webhookConfig, error) {
	cfg, err := parseScriptAssertion(spec, "the URL of the service that judges the answer")
	if err != nil {
		return nil, err
	}
	u, err := url.Parse(strings.TrimSpace(cfg.value))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, settingErr("value", "must be an absolute http(s) URL")
	}
	return &webhookConfig{scriptAssertion: cfg, url: u}, nil
}

func webhook(ctx context.Context, r *caseRun, _ *suite.EvaluatorSpec, cfg *webhookConfig) verdict {
	const label = "Webhook assertion"
	if p, ok := cfg.url.User.Password(); ok {
		r.opts.Redactor.Add(p)
	}
	actx, err := r.assertionContext(cfg.config, false)
	if err != nil {
		return errorf(nil, "could not build the assertion context: %v", err)
	}
	body, err := jsonx.Marshal(struct {
		Output  string          `json:"output"`
		Context json.RawMessage `json:"context"`
	}{r.in.Candidate, actx})
	if err != nil {
		return errorf(nil, "could not encode the webhook request: %v", err)
	}
	var status int
	var reply []byte
	err = r.withRetries(ctx, func() error {
		status, reply, err = r.post(ctx, cfg.url.String(), body)
		return err
	})
	switch {
	case err != nil:
		return verdict{err: fmt.Errorf("webhook assertion: %w", err)}
	case status/100 != 2:
		return failedScript(label, fmt.Sprintf("HTTP %d", status)) // 5.x: `HTTP ${status}`
	case !json.Valid(bytes.TrimSpace(reply)):
		return failedScript(label, "the reply is not JSON")
	}
	return scriptResult(json.RawMessage(bytes.TrimSpace(reply)), label, cfg.threshold)
}

// post sends body to endpoint within the run's timeout. Its errors leave out the URL.
func (r *caseRun) post(ctx context.Context, endpoint string, body []byte) (int, []byte, error) {
	if r.opts.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, r.opts.Timeout)
		defer cancel()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(body))
	if err != nil {
		return 0, nil, errors.New("could not build the request")
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		var uerr *url.Error
		if errors.As(err, &uerr) {
			err = uerr.Err // its text repeats the URL
		}
		if ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return 0, nil, fmt.Errorf("%w after %s", errTimedOut, r.opts.Timeout)
		}
		return 0, nil, fmt.Errorf("request failed: %w", err)
	}
	defer resp.Body.Close()
	reply, err := io.ReadAll(io.LimitReader(resp.Body, maxWebhookReply))
	if err != nil {
		return 0, nil, fmt.Errorf("could not read the reply: %w", err)
	}
	return resp.StatusCode, reply, nil
}
