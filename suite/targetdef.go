package suite

import "encoding/json"

// TargetDef is a target an AgentV 5.x eval file defines itself: a `targets` item or the
// `target` mapping with a `provider`. The targets package builds it as it builds a targets
// file's entry.
type TargetDef struct {
	Name string
	Pos  Position
	// Settings is the mapping as written (id, provider, config, …): a JSON object in source order.
	Settings json.RawMessage
	// Overrides: the definition wins over a targets-file target of the same name (the
	// `target` mapping); a `targets` item is used only when the targets file has no such target.
	Overrides bool `json:",omitempty"`
}
