package suite

// Transform is JavaScript that reshapes a target's answer before graders see it (AgentV
// 5.x `transform`): Code, an expression or a function body of (output, context), or File's
// exported function (Fn, "" for the default export). The evaluators run it.
type Transform struct {
	Code string `json:",omitempty"`
	File string `json:",omitempty"` // absolute path of a .js, .mjs or .cjs module
	Fn   string `json:",omitempty"`
	Pos  Position
}

// PromptRef names the 5.x prompt a case was rendered from, as a transform's context shows it.
type PromptRef struct {
	ID    string `json:",omitempty"`
	Label string `json:",omitempty"`
	Raw   string `json:",omitempty"` // the rendered prompt text
}
