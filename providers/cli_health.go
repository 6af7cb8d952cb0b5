package providers

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/agentv/action/targets"
)

// cliHealthDefaultTimeout bounds an HTTP probe when neither the healthcheck nor the run
// sets a timeout.
const cliHealthDefaultTimeout = 30 * time.Second

// HealthCheck runs the target's `healthcheck` once per eval file directory (WithEvalDir;
// a relative cwd depends on it); later calls for that directory return the first result
// (concurrent callers wait for it). A probe interrupted because ctx ended is not remembered,
// so a later caller may run it again. No healthcheck: nil.
func (p *cliProvider) HealthCheck(ctx context.Context) error {
	h := p.cfg.Health
	if h == nil {
		return nil
	}
	evalDir := ctxValue[string](ctx, evalDirKey)
	p.healthMu.Lock()
	defer p.healthMu.Unlock()
	if err, done := p.health[evalDir]; done {
		return err
	}
	var err error
	if h.Kind == "http" {
		err = p.healthHTTP(ctx, h)
	} else {
		err = p.healthCommand(ctx, h, evalDir)
	}
	if err != nil && ctx.Err() != nil {
		return err
	}
	p.health[evalDir] = err
	return err
}

func (p *cliProvider) healthHTTP(ctx context.Context, h *targets.CLIHealth) error {
	timeout := cmp.Or(h.Timeout, p.opts.Timeout, cliHealthDefaultTimeout) // none is negative
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	shown := cliShowURL(h.URL)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, h.URL, nil)
	if err != nil {
		return fmt.Errorf("healthcheck of cli target %q failed: invalid URL %s", p.target.Name, shown)
	}
	client := p.opts.HTTPClient
	if client == nil {
		client = &http.Client{}
	}
	resp, err := client.Do(req)
	if err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			return fmt.Errorf("healthcheck of cli target %q failed: GET %s did not answer within %s", p.target.Name, shown, timeout)
		}
		return fmt.Errorf("healthcheck of cli target %q failed: GET %s: %w", p.target.Name, shown, cliURLErr(err))
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("healthcheck of cli target %q failed: GET %s answered %s (want 2xx)", p.target.Name, shown, resp.Status)
	}
	return nil
}

// healthCommand runs a command healthcheck in its cwd resolved against the eval file's
// directory, or in that directory when it sets none: AgentV 2.5 and 4.x do not fall back to
// the target's own cwd here (packages/core/src/evaluation/providers/targets.ts,
// normalizeCliHealthcheck, at v2.5.1 and v4.42.4).
func (p *cliProvider) healthCommand(ctx context.Context, h *targets.CLIHealth, evalDir string) error {
	dir, err := p.workDir(evalDir, h.Cwd)
	if err != nil {
		return fmt.Errorf("healthcheck of cli target %q failed: %w", p.target.Name, err)
	}
	v, done, err := p.tempFiles(h.Template, "healthcheck", "healthcheck.json", "")
	if err != nil {
		return err
	}
	defer done()
	if _, _, err := p.run(ctx, cliRender(h.Template, p.cfg.FilesFormat, v), dir, p.timeout(h.Timeout), ""); err != nil {
		return fmt.Errorf("healthcheck of %w", err)
	}
	return nil
}

// cliShowURL drops credentials and the query from a URL shown in an error, where tokens
// usually travel (the same idea as go-github's sanitizeURL).
func cliShowURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(invalid URL)"
	}
	u.User = nil
	if u.RawQuery != "" {
		u.RawQuery = "…"
	}
	u.Fragment = ""
	return u.String()
}

// cliURLErr strips the URL *url.Error repeats (it may carry a query string).
func cliURLErr(err error) error {
	if ue := (*url.Error)(nil); errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
