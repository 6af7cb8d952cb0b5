package evaluators

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/agentv/action/providers"
	"github.com/agentv/action/suite"
)

// similar (AgentV 5.x, graders/promptfoo-assertions.ts, SimilarAssertionGrader) embeds
// `value` and the answer and scores their cosine similarity mapped onto 0..1,
// (cos + 1) / 2, passing at `threshold` (default 0.75).
func init() {
	register("similar", nil, []string{"value", "threshold", "provider", "metric", "transform"}, parseSimilar, similar)
}

// similarDefaultThreshold is 5.x's pass mark when the entry sets none.
const similarDefaultThreshold = 0.75

type similarConfig struct {
	value     string
	values    []string // config.values, read under GradingRules.SimilarValues
	threshold float64
	// The embeddings server: base URL, model and key from the entry, as 5.x reads them
	// (config.embedding_provider, else an object `provider`, else `config`). Without a base
	// URL the grader target is asked, when it is an OpenAI-compatible target.
	baseURL, model, apiKey string
}

func parseSimilar(spec *suite.EvaluatorSpec) (*similarConfig, error) {
	s, err := settingsOf(spec)
	if err != nil {
		return nil, err
	}
	cfg := &similarConfig{threshold: similarDefaultThreshold}
	var errs []error
	raw, _ := s.raw("value")
	switch {
	case raw == nil:
		errs = append(errs, errors.New("similar needs `value`: the text the answer should mean"))
	case json.Unmarshal(raw, &cfg.value) != nil:
		errs = append(errs, settingErr("value", "must be a string, got %s", kindOf(raw)))
	case strings.TrimSpace(cfg.value) == "":
		errs = append(errs, settingErr("value", "must not be empty"))
	}
	if t, err := unitThreshold(s); err != nil {
		errs = append(errs, err)
	} else if t != nil {
		cfg.threshold = *t
	}
	var config, provider map[string]json.RawMessage
	if raw, _ := s.raw("config"); raw != nil {
		if err := decodeAt(raw, &config, "config"); err != nil {
			errs = append(errs, err)
		}
	}
	if raw := config["values"]; raw != nil {
		if json.Unmarshal(raw, &cfg.values) != nil || len(cfg.values) == 0 {
			errs = append(errs, settingErr("config.values", "must be a list of texts, got %s", kindOf(raw)))
		}
	}
	if raw, _ := s.raw("provider"); raw != nil && jsonKind(raw) == "object" {
		_ = json.Unmarshal(raw, &provider)
	}
	from, path := config, "config"
	if raw := config["embedding_provider"]; jsonKind(raw) == "object" {
		_ = json.Unmarshal(raw, &from)
		path = "config.embedding_provider"
	} else if provider != nil {
		from, path = provider, "provider"
	}
	str := func(keys ...string) string {
		for _, k := range keys {
			var v string
			if json.Unmarshal(from[k], &v) == nil && strings.TrimSpace(v) != "" {
				return strings.TrimSpace(v)
			}
		}
		return ""
	}
	cfg.baseURL, cfg.model, cfg.apiKey = str("base_url", "endpoint"), str("model"), str("api_key")
	if cfg.baseURL != "" && cfg.model == "" {
		errs = append(errs, settingErr(path, "names an embeddings server (base_url) but no `model`"))
	}
	return cfg, errors.Join(errs...)
}

// envRef is a key written as a reference to the environment: {{ env.NAME }} or ${{ NAME }}.
var envRef = regexp.MustCompile(`^(?:\{\{\s*env\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}|\$\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\})$`)

func similar(ctx context.Context, r *caseRun, _ *suite.EvaluatorSpec, cfg *similarConfig) verdict {
	client, err := r.embedder(cfg)
	if err != nil {
		return verdict{err: fmt.Errorf("similar: %w", err)}
	}
	values := []string{cfg.value}
	if r.rules.SimilarValues && len(cfg.values) > 0 {
		values = cfg.values
	}
	var vecs [][]float64
	err = r.withRetries(ctx, func() error {
		cctx, cancel := ctx, context.CancelFunc(func() {})
		if r.opts.Timeout > 0 {
			cctx, cancel = context.WithTimeout(ctx, r.opts.Timeout)
		}
		defer cancel()
		vecs, err = client.Embed(cctx, append(slices.Clone(values), r.in.Candidate))
		if err != nil && ctx.Err() == nil && errors.Is(cctx.Err(), context.DeadlineExceeded) {
			return fmt.Errorf("%w after %s: %w", errTimedOut, r.opts.Timeout, err)
		}
		return err
	})
	if err != nil {
		return verdict{err: fmt.Errorf("similar: %w", err)}
	}
	if len(vecs) != len(values)+1 {
		return verdict{err: fmt.Errorf("similar: the embeddings server returned %d vectors for %d texts", len(vecs), len(values)+1)}
	}
	answer := vecs[len(values)]
	// The first value that passes gives the score, else the best does (promptfoo's
	// handleSimilar; with one value, that value). Negation, applied after, makes this
	// promptfoo's not-similar of a list too: it fails on the first value close enough, else
	// passes with the score of the closest.
	score, pass := math.Inf(-1), false
	for _, vec := range vecs[:len(values)] {
		cos := cosine(vec, answer)
		s := clamp01((cos + 1) / 2)
		if r.rules.SimilarCosine {
			s = cos // promptfoo scores the cosine itself (matchesSimilarity)
		}
		if s >= cfg.threshold {
			score, pass = s, true
			break
		}
		score = max(score, s)
	}
	op := "<"
	if pass {
		op = ">="
	}
	v := passFail(pass, fmt.Sprintf("Embedding similarity %s %s %s", strconv.FormatFloat(score, 'f', 3, 64), op, jsNumber(cfg.threshold)))
	if !pass && len(values) > 1 {
		v = passFail(false, fmt.Sprintf("Embedding similarity of the closest of %d values %s < %s", len(values), strconv.FormatFloat(score, 'f', 3, 64), jsNumber(cfg.threshold)))
	}
	v.score = score
	if r.rules.SimilarCosine {
		v.returned = &score
	}
	v.details, _ = json.Marshal(struct {
		Threshold float64 `json:"threshold"`
		Metric    string  `json:"metric"`
	}{cfg.threshold, "cosine"})
	return v
}

// embedder is the entry's embeddings server, else the grader target's.
func (r *caseRun) embedder(cfg *similarConfig) (*providers.EmbeddingClient, error) {
	if cfg.baseURL != "" {
		key := cfg.apiKey
		if m := envRef.FindStringSubmatch(key); m != nil {
			key = r.getenv(cmp.Or(m[1], m[2]))
		}
		r.opts.Redactor.Add(key)
		return &providers.EmbeddingClient{BaseURL: cfg.baseURL, Model: cfg.model, APIKey: key, Redactor: r.opts.Redactor}, nil
	}
	if r.opts.Judges == nil {
		return nil, errors.New("no embeddings server: set config.embedding_provider {base_url, model, api_key?} (an OpenAI-compatible server) or use an OpenAI-compatible grader target")
	}
	judge, err := r.opts.Judges(r.in.Target, "")
	if err != nil {
		return nil, err
	}
	c, err := providers.NewEmbeddingClient(judge.Target(), providers.Options{})
	if err != nil {
		return nil, fmt.Errorf("%w; or set config.embedding_provider {base_url, model, api_key?}", err)
	}
	if cfg.model != "" {
		c.Model = cfg.model
	}
	return c, nil
}

// getenv reads the run's environment (the process's when unset).
func (r *caseRun) getenv(name string) string {
	if r.opts.Env == nil {
		return os.Getenv(name)
	}
	for i := len(r.opts.Env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(r.opts.Env[i], "="); ok && k == name {
			return v
		}
	}
	return ""
}

// cosine is the cosine similarity of two vectors over their common length; 0 when either
// is all zeros (5.x's cosine, promptfoo-assertions.ts).
func cosine(a, b []float64) float64 {
	var dot, am, bm float64
	for i := range min(len(a), len(b)) {
		dot += a[i] * b[i]
		am += a[i] * a[i]
		bm += b[i] * b[i]
	}
	if am == 0 || bm == 0 {
		return 0
	}
	return dot / (math.Sqrt(am) * math.Sqrt(bm))
}
