package suite

import "encoding/json"

// TargetDef is a target an eval file defines itself: an AgentV 5.x `targets` item or
// `target` mapping with a `provider`, or a promptfoo provider. targets.Inline builds it as
// it builds a targets file's entry.
type TargetDef struct {
	Name string
	Pos  Position
	// Settings is a 5.x definition as written (id, provider, config, …): a JSON object in
	// source order.
	Settings json.RawMessage `json:",omitempty"`
	// Provider is a promptfoo provider id (openai:chat:gpt-4o-mini, exec:python3 x.py) and
	// Config its `config` as a JSON object (nil if none), instead of Settings.
	Provider string          `json:",omitempty"`
	Config   json.RawMessage `json:",omitempty"`
	// Overrides: the definition wins over a targets-file target of the same name (the
	// `target` mapping); a `targets` item is used only when the targets file has no such target.
	Overrides bool `json:",omitempty"`
}
