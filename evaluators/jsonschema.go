package evaluators

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	yaml "go.yaml.in/yaml/v4"
)

// promptfoo's is-json and contains-json check the answer against a JSON schema given as
// their `value`: a mapping, or a text read as YAML (json.ts, handleIsJson; loadYaml). It
// compiles it with Ajv (draft-07, ajv-formats). Here the schema is compiled the same way:
// draft-07 unless its $schema says otherwise, formats asserted, patterns with JavaScript's
// semantics, Ajv's strict mode (strictSchema), and no $ref fetched from outside the schema.

// jsonSchema is a compiled `value` schema.
type jsonSchema struct{ s *jsonschema.Schema }

// compileValueSchema compiles an entry's `value` (raw JSON: a mapping, or a string holding
// YAML or JSON) as a JSON schema; nil, nil when the value is absent or empty, which promptfoo
// skips (a falsy renderedValue).
func compileValueSchema(raw json.RawMessage) (*jsonSchema, error) {
	if isNull(raw) {
		return nil, nil
	}
	var doc any
	switch jsonKind(raw) {
	case "string":
		var text string
		_ = json.Unmarshal(raw, &text)
		if text == "" {
			return nil, nil
		}
		if strings.HasPrefix(text, "file://") {
			return nil, settingErr("value", "a schema from a file (%s) is not supported: write the schema in the file", text)
		}
		var err error
		if doc, err = yamlValue(text); err != nil {
			return nil, settingErr("value", "the schema text is not valid YAML or JSON: %v", err)
		}
	case "object":
		var err error
		if doc, err = jsonschema.UnmarshalJSON(bytes.NewReader(raw)); err != nil {
			return nil, settingErr("value", "%v", err)
		}
	case "boolean":
		if string(raw) == "false" {
			return nil, nil // falsy: no schema (promptfoo skips it)
		}
		return nil, settingErr("value", "must be a JSON schema (a mapping, or its text), got a boolean")
	default:
		if string(raw) == "0" {
			return nil, nil
		}
		return nil, settingErr("value", "must be a JSON schema (a mapping, or its text), got %s", kindOf(raw))
	}
	if _, ok := doc.(map[string]any); !ok {
		return nil, settingErr("value", "must be a JSON schema: a mapping such as {type: object, required: [name]}, got %s", describeAny(doc))
	}
	if err := strictSchema(doc, ""); err != nil {
		return nil, settingErr("value", "not a valid JSON schema: %v", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft7)
	c.AssertFormat()
	c.UseLoader(noLoader{})
	c.UseRegexpEngine(jsSchemaRegexp)
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, settingErr("value", "not a valid JSON schema: %s", schemaMessage(err))
	}
	s, err := c.Compile(schemaURL)
	if err != nil {
		return nil, settingErr("value", "not a valid JSON schema: %s", schemaMessage(err))
	}
	return &jsonSchema{s}, nil
}

// validate reports why v (as jsonschema.UnmarshalJSON or yamlValue reads values) does not
// conform; nil when it does.
func (s *jsonSchema) validate(v any) error {
	if err := s.s.Validate(v); err != nil {
		return errors.New(schemaMessage(err))
	}
	return nil
}

// schemaURL is the name the schema is compiled under; messages leave it out.
const schemaURL = "urn:agentv:value"

// schemaMessage is a compile or validation error on one line, without the library's header
// ("jsonschema validation failed with …") or the schema's URL: "at '/age': missing property …;
// at …".
func schemaMessage(err error) string {
	var sve *jsonschema.SchemaValidationError
	if errors.As(err, &sve) {
		err = sve.Err
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return strings.ReplaceAll(err.Error(), schemaURL, "value")
	}
	var parts []string
	for i, line := range strings.Split(ve.Error(), "\n") {
		line = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "- "))
		if i == 0 && strings.HasPrefix(line, "jsonschema validation failed") || line == "" {
			continue
		}
		parts = append(parts, line)
	}
	if len(parts) == 0 {
		return ve.Error()
	}
	return strings.Join(parts, "; ")
}

// noLoader refuses every $ref outside the schema: Ajv fetches none either.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("$ref %s: schemas are not loaded from files or the network", url)
}

// jsSchemaRegexp compiles `pattern` and `patternProperties` as Ajv does: new RegExp(p, "u").
func jsSchemaRegexp(s string) (jsonschema.Regexp, error) {
	p, err := compileJS(s, "u")
	if err != nil {
		return nil, err
	}
	return schemaPattern{s, p}, nil
}

type schemaPattern struct {
	src string
	p   *jsPattern
}

func (p schemaPattern) String() string { return p.src }

// MatchString is false when the match could not finish (timeout): the value does not
// conform, which is the cautious answer.
func (p schemaPattern) MatchString(s string) bool {
	ok, err := p.p.test(s)
	return ok && err == nil
}

// yamlValue reads text as one YAML document (YAML is a superset of JSON) into the values
// the validator takes: maps with string keys, slices, json.Number, strings, booleans, nil.
func yamlValue(text string) (any, error) {
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(text), &n); err != nil {
		return nil, err
	}
	if n.Kind == 0 {
		return nil, nil // an empty document
	}
	return nodeValue(&n, 0)
}

func nodeValue(n *yaml.Node, depth int) (any, error) {
	if depth > 200 {
		return nil, errors.New("nested too deeply")
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return nodeValue(n.Content[0], depth+1)
	case yaml.AliasNode:
		return nodeValue(n.Alias, depth+1)
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			v, err := nodeValue(c, depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case yaml.MappingNode:
		out := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode {
				return nil, fmt.Errorf("line %d: a key must be a text", k.Line)
			}
			v, err := nodeValue(n.Content[i+1], depth+1)
			if err != nil {
				return nil, err
			}
			out[k.Value] = v
		}
		return out, nil
	}
	switch n.ShortTag() {
	case "!!null":
		return nil, nil
	case "!!bool":
		var b bool
		err := n.Decode(&b)
		return b, err
	case "!!int", "!!float":
		var f float64
		if err := n.Decode(&f); err != nil {
			return nil, err
		}
		if n.ShortTag() == "!!int" {
			var i int64
			if n.Decode(&i) == nil {
				return json.Number(strconv.FormatInt(i, 10)), nil
			}
		}
		return json.Number(strconv.FormatFloat(f, 'g', -1, 64)), nil
	case "!!timestamp":
		var t time.Time
		if n.Decode(&t) == nil {
			return t.UTC().Format(time.RFC3339Nano), nil
		}
	}
	return n.Value, nil
}

// describeAny names the kind of a decoded value for messages.
func describeAny(v any) string {
	switch v.(type) {
	case nil:
		return "nothing"
	case []any:
		return "a list"
	case string:
		return "a text"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	}
	return "a mapping"
}

// Ajv's strict mode (promptfoo's default, strictSchema) refuses a schema with a keyword or a
// format it does not know, so a misspelt keyword is an error, not a check silently skipped.
var (
	// ajvKeywords are the keywords of Ajv's draft-07 vocabularies (core, validation,
	// applicator, format, metadata, content).
	ajvKeywords = []string{"$id", "$schema", "$ref", "$comment", "$defs", "$vocabulary", "definitions",
		"multipleOf", "maximum", "minimum", "exclusiveMaximum", "exclusiveMinimum", "maxLength", "minLength",
		"pattern", "maxItems", "minItems", "uniqueItems", "maxProperties", "minProperties", "required", "enum",
		"const", "type", "nullable", "additionalItems", "items", "contains", "dependencies", "propertyNames",
		"additionalProperties", "properties", "patternProperties", "not", "anyOf", "oneOf", "allOf", "if",
		"then", "else", "format", "title", "description", "default", "deprecated", "readOnly", "writeOnly",
		"examples", "contentMediaType", "contentEncoding", "contentSchema"}
	// ajvFormats are the formats ajv-formats adds.
	ajvFormats = []string{"date", "time", "date-time", "iso-time", "iso-date-time", "duration", "uri",
		"uri-reference", "uri-template", "url", "email", "hostname", "ipv4", "ipv6", "regex", "uuid",
		"json-pointer", "json-pointer-uri-fragment", "relative-json-pointer", "byte", "int32", "int64",
		"float", "double", "password", "binary"}
)

// strictSchema reports the first keyword or format of schema (at JSON pointer at) that Ajv's
// strict mode refuses.
func strictSchema(schema any, at string) error {
	m, ok := schema.(map[string]any)
	if !ok {
		return nil // true/false schemas; a wrong kind is the metaschema's to report
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys) // the same keyword is reported on every run
	for _, k := range keys {
		v := m[k]
		here := at + "/" + k
		switch k {
		case "format":
			if f, ok := v.(string); ok && !slices.Contains(ajvFormats, f) {
				return fmt.Errorf("at '%s': unknown format %q (known: %s)", here, f, strings.Join(ajvFormats, ", "))
			}
		case "properties", "patternProperties", "definitions", "$defs", "dependencies":
			if sub, ok := v.(map[string]any); ok {
				names := slices.Sorted(maps.Keys(sub))
				for _, name := range names {
					if err := strictSchema(sub[name], here+"/"+name); err != nil {
						return err
					}
				}
			}
		case "items", "anyOf", "oneOf", "allOf":
			if list, ok := v.([]any); ok {
				for i, s := range list {
					if err := strictSchema(s, fmt.Sprintf("%s/%d", here, i)); err != nil {
						return err
					}
				}
				continue
			}
			if err := strictSchema(v, here); err != nil {
				return err
			}
		case "additionalItems", "contains", "propertyNames", "additionalProperties", "not", "if", "then", "else", "contentSchema":
			if err := strictSchema(v, here); err != nil {
				return err
			}
		default:
			if !slices.Contains(ajvKeywords, k) {
				return fmt.Errorf("at '%s': unknown keyword %q (strict mode, as promptfoo's Ajv)", here, k)
			}
		}
	}
	return nil
}
