package targets

import (
	"errors"
	"regexp"
	"strings"

	yaml "go.yaml.in/yaml/v4"

	"github.com/agentv/action/internal/redact"
)

// AgentV 5.x targets files (providers/targets-file.ts and targets.ts at v5.3.1-next.1) name
// a target by `id` (`name` and `label` are rejected), may nest provider settings under
// `config` (the target's own keys win: normalizeTargetDefinition spreads config first), and
// read the environment as `{{ env.NAME }}` (`${{ NAME }}` is rejected). A file is read as 5.x
// when its targets use `id` and none uses `name`; 4.x files are read as before.
//
// A 5.x entry is rewritten into the 4.x shape the loader reads: `id` becomes `name`,
// config's settings move up, a whole-value `{{ env.NAME }}` becomes `${{ NAME }}` (resolved
// when the target is built, as in 4.x) and one inside text is resolved at load.

var (
	v5WholeEnv = regexp.MustCompile(`^\s*\{\{\s*env\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}\s*$`)
	v5EnvRef   = regexp.MustCompile(`\{\{\s*env\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}`)
	v5AnyEnv   = regexp.MustCompile(`\{\{\s*env\.`)
	// v5Removed are target settings 5.x rejects, with their replacement (targets.ts,
	// assertNoRemovedTargetFields, normalizeTargetDefinition).
	v5Removed = map[string]string{
		"judge_target":      "grader_target",
		"provider_batching": "batch_requests",
		"log_format":        "stream_log",
		"log_output_format": "stream_log",
		"label":             "id",
	}
	// v5Renamed are 5.x settings read under their 4.x names.
	v5Renamed = map[string]string{"batch_requests": "provider_batching"}
)

// isV5File reports whether the entries of a `targets` list are written for AgentV 5.x; when
// they mix `id` and `name`, the error is reported and the file read as 4.x.
func (f *File) isV5File(list *yaml.Node) bool {
	var id, name *yaml.Node
	for _, it := range list.Content {
		it = deref(it)
		if it.Kind != yaml.MappingNode {
			continue
		}
		for _, kv := range mappingPairs(it) {
			switch kv[0].Value {
			case "id":
				id = cmpOr(id, kv[0])
			case "name":
				name = cmpOr(name, kv[0])
			}
		}
	}
	if id != nil && name != nil {
		f.errorf(f.pos(id), "the targets file mixes AgentV 5.x `id` (line %d) and 4.x `name` (line %d); name every target the same way", id.Line, name.Line)
		return false
	}
	return id != nil
}

func cmpOr(a, b *yaml.Node) *yaml.Node {
	if a != nil {
		return a
	}
	return b
}

// v5Entry rewrites one 5.x target mapping into the 4.x shape, in place; it returns the first
// error (all are reported) that makes the target unusable.
func (f *File) v5Entry(n *yaml.Node, env LookupEnv, red *redact.Redactor) error {
	if n.Kind != yaml.MappingNode {
		return nil // loadEntry reports it
	}
	first := len(f.Diagnostics)
	if !hasID(n) {
		f.errorf(f.pos(n), "a target needs a non-empty `id`")
		return errNoID
	}
	ok := true
	own := map[string]bool{}
	var out, config []*yaml.Node
	for _, kv := range mappingPairs(n) {
		k, v := kv[0], deref(kv[1])
		key := SnakeCase(k.Value)
		own[key] = true
		switch {
		case k.Value == "id":
			k = renamed(k, "name")
		case k.Value == "config":
			if v.Kind != yaml.MappingNode {
				f.errorf(f.pos(v), "target `config` must be a map of provider settings")
				ok = false
				continue
			}
			config = append(config, mappingPairsFlat(v)...)
			continue
		case k.Value == "runtime":
			mode := v.Value
			if v.Kind == yaml.MappingNode {
				for _, m := range mappingPairs(v) {
					if m[0].Value == "mode" {
						mode = deref(m[1]).Value
					}
				}
			}
			if mode != "host" {
				f.errorf(f.pos(v), "target runtime %q is not supported yet (only host)", mode)
				ok = false
			}
			continue
		case k.Value == "environment" || k.Value == "container" || k.Value == "install":
			f.errorf(f.pos(k), "target `%s` is not accepted in AgentV 5.x: describe the testbed with an environment recipe", k.Value)
			ok = false
			continue
		case v5Removed[key] != "":
			f.errorf(f.pos(k), "target setting `%s` has been removed in AgentV 5.x: use `%s`", k.Value, v5Removed[key])
			ok = false
			continue
		case v5Renamed[key] != "":
			k = renamed(k, v5Renamed[key])
		}
		ok = f.v5Env(v, env, red) && ok
		out = append(out, k, kv[1])
	}
	for i := 0; i+1 < len(config); i += 2 {
		k := config[i]
		if own[SnakeCase(k.Value)] {
			continue // the target's own setting wins
		}
		if r := v5Renamed[SnakeCase(k.Value)]; r != "" {
			k = renamed(k, r)
		}
		ok = f.v5Env(deref(config[i+1]), env, red) && ok
		out = append(out, k, config[i+1])
	}
	n.Content = out
	if !ok {
		for _, d := range f.Diagnostics[first:] {
			if d.IsError() {
				return errors.New(d.Message)
			}
		}
	}
	return nil
}

// errNoID is a 5.x target without `id`: there is no target to load.
var errNoID = errors.New("a target needs a non-empty `id`")

func hasID(n *yaml.Node) bool {
	for _, kv := range mappingPairs(n) {
		if v := deref(kv[1]); kv[0].Value == "id" && v.Kind == yaml.ScalarNode && strings.TrimSpace(v.Value) != "" {
			return true
		}
	}
	return false
}

// mappingPairsFlat is a mapping's key and value nodes, one after the other.
func mappingPairsFlat(n *yaml.Node) []*yaml.Node {
	var out []*yaml.Node
	for _, kv := range mappingPairs(n) {
		out = append(out, kv[0], kv[1])
	}
	return out
}

func renamed(k *yaml.Node, name string) *yaml.Node {
	c := *k
	c.Value = name
	return &c
}

// v5Env rewrites the environment references below n (see the comment at the top); a 4.x
// `${{ NAME }}` is an error, as in 5.x.
func (f *File) v5Env(n *yaml.Node, env LookupEnv, red *redact.Redactor) bool {
	n = deref(n)
	if n == nil {
		return true
	}
	if n.Kind != yaml.ScalarNode {
		ok := true
		for _, c := range n.Content {
			ok = f.v5Env(c, env, red) && ok
		}
		return ok
	}
	if name, legacy := EnvRef(n.Value); legacy || strings.Contains(n.Value, "${{") {
		f.errorf(f.pos(n), "`${{ %s }}` is AgentV 4.x syntax: a 5.x targets file reads the environment as `{{ env.%s }}`", cmpStr(name, "NAME"), cmpStr(name, "NAME"))
		return false
	}
	if !v5AnyEnv.MatchString(n.Value) {
		return true
	}
	if m := v5WholeEnv.FindStringSubmatch(n.Value); m != nil {
		n.Value = "${{ " + m[1] + " }}"
		registerRefs(n, env, red)
		return true
	}
	n.Value = v5EnvRef.ReplaceAllStringFunc(n.Value, func(ref string) string {
		name := v5EnvRef.FindStringSubmatch(ref)[1]
		var v string
		if env != nil {
			v, _ = env(name)
		}
		if strings.TrimSpace(v) == "" {
			f.warnf(f.pos(n), "unset-var", "environment variable %s is not set; {{ env.%s }} becomes empty", name, name)
		} else if !plainValue(v) {
			red.Add(v)
		}
		return v
	})
	if v5AnyEnv.MatchString(n.Value) {
		f.errorf(f.pos(n), "only `{{ env.NAME }}` is supported in an environment reference")
		return false
	}
	return true
}

func cmpStr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
