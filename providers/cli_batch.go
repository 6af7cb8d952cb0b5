package providers

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/agentv/action/internal/proc"
)

// InvokeBatch answers many requests with one command (provider_batching: true): PROMPT and
// GUIDELINES are empty, {PROMPT_FILE} holds the cases (cliBatchPrompt), EVAL_ID is "batch",
// FILES is the union of the requests' files, and
// the command writes JSONL to {OUTPUT_FILE} (stdout when the template has no {OUTPUT_FILE}),
// one `{id, text | output_messages, token_usage?, cost_usd?, duration_ms?}` per line.
// Responses are in request order; an id missing from the output gives a Response with
// Error set. Output that is not such JSONL fails the whole batch (the runner then falls
// back to one call per case). The time limit is timeout_seconds when set, else the run's
// per-invocation timeout times the number of requests.
func (p *cliBatchProvider) InvokeBatch(ctx context.Context, reqs []*Request) ([]*Response, error) {
	if len(reqs) == 0 {
		return nil, nil
	}
	var files []string
	for _, r := range reqs {
		files = append(files, r.Files...)
	}
	dir, v, done, err := p.prepare(reqs[0], "batch", "batch.jsonl", cliBatchPrompt(reqs))
	if err != nil {
		return nil, err
	}
	defer done()
	v.Files = UniqueFiles(files)
	timeout := cmp.Or(p.cfg.Timeout, p.opts.Timeout*time.Duration(len(reqs))) // neither is negative
	cmdline := cliRender(p.cfg.Template, p.cfg.FilesFormat, v)
	out, elapsed, err := p.run(ctx, cmdline, dir, timeout, v.OutputFile)
	if err != nil {
		return nil, err
	}
	if out.truncated {
		return nil, fmt.Errorf("cli target %q: batch output was cut off at %d MiB", p.target.Name, proc.DefaultMaxOutput>>20)
	}
	byID, err := cliParseBatch(out.data)
	if err != nil {
		return nil, fmt.Errorf("cli target %q: invalid batch output: %w", p.target.Name, err)
	}
	share := elapsed / time.Duration(len(reqs))
	resps := make([]*Response, len(reqs))
	for i, r := range reqs {
		rec, ok := byID[r.EvalID]
		if !ok {
			resps[i] = &Response{Error: fmt.Sprintf("batch output missing id %q", r.EvalID)}
			continue
		}
		resp, warns := cliParseRecord(rec)
		p.warn(warns)
		p.finish(resp, share)
		resps[i] = resp
	}
	return resps, nil
}

// cliParseBatch reads batch JSONL: every non-blank line an object with a non-empty string
// `id`, ids unique.
func cliParseBatch(data []byte) (map[string]map[string]json.RawMessage, error) {
	out := map[string]map[string]json.RawMessage{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), len(data)+1)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var obj map[string]json.RawMessage
		if line[0] != '{' || json.Unmarshal(line, &obj) != nil {
			return nil, fmt.Errorf("line %d: not a JSON object: %s", n, cliExcerpt(string(line)))
		}
		var id string
		if json.Unmarshal(obj["id"], &id) != nil || id == "" {
			return nil, fmt.Errorf("line %d: missing string `id`", n)
		}
		if _, dup := out[id]; dup {
			return nil, fmt.Errorf("line %d: duplicate id %q", n, id)
		}
		out[id] = obj
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// cliBatchPrompt is a batch's {PROMPT_FILE}: one JSON object per case, {"id", "input" (the text
// {PROMPT} would carry), "input_files"?}. AgentV 4.x documents this file so
// (targets/cli-provider.mdx, Batching) but its code writes it empty (providers/cli.ts,
// invokeBatch, which passes an empty question); the documented form is the one a command can use.
func cliBatchPrompt(reqs []*Request) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b) // one line per value
	enc.SetEscapeHTML(false)
	for _, r := range reqs {
		_ = enc.Encode(struct {
			ID         string   `json:"id"`
			Input      string   `json:"input"`
			InputFiles []string `json:"input_files,omitempty"`
		}{r.EvalID, r.Question, r.Files})
	}
	return b.String()
}
