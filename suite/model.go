// Package suite holds the eval-suite model and the front-ends that load AgentV files into it.
// Loading never stops at the first problem: every malformed file, case or field becomes a
// positioned Diagnostic and the rest still loads.
package suite

import (
	"encoding/json"
	"time"
)

// Suite is one loaded eval file.
type Suite struct {
	Path     string // as shown to users: relative to the working directory when inside it
	Abs      string // absolute path of the eval file
	Dir      string // absolute directory of the eval file
	RepoRoot string // absolute repository root used for file references and guideline matching
	Format   string // "yaml", "jsonl" or "json" (Agent Skills evals.json)
	Dialect  string // Dialect5 (AgentV 5.x), Dialect4 (4.x, `tests`), else Dialect25 (set with setDialect)
	// TrialPassAt is the score a trial passes at whatever the case threshold (4.x: 0.8); 0: the
	// case threshold. TrialPassAt, Agent and Grading are set with setDialect.
	TrialPassAt float64
	Agent       AgentRules
	Grading     GradingRules
	Name        string // 4.x `name`, "" if none (it also names the dataset)
	Version     string // 4.x `version`
	Tags        []string
	Targets     []string // 4.x `execution.targets`: run every test on each
	Threshold   *float64 // 4.x `execution.threshold` (0–1), nil if none
	Trials      *Trials  // 4.x `execution.trials`, nil if none (each case runs once)
	Dataset     string   // `dataset`, else the file's base name without extension
	Description string
	Target      string     // suite-level target name (`execution.target`, else `target`), "" if none
	Workspace   *Workspace // 4.x `workspace`, nil if none
	// Dependencies: a test of the file has `depends_on` (4.x), so the runner tracks when each
	// case finishes.
	Dependencies bool `json:",omitempty"`
	// Evaluators is the suite default list; Case.Evaluators is final.
	Evaluators        []*EvaluatorSpec
	GuidelinePatterns []string // patterns in force for this file (config file or defaults)
	Cases             []*Case  // in file order; cases that failed to load are absent
	Diagnostics       []Diagnostic

	// BudgetUSD and Workers are a 5.x file's evaluate_options.budget_usd and max_concurrency,
	// 0 if none: what the file's tests may cost in all, and how many of them run at once on
	// each target, unless the run's --budget-usd or --workers says otherwise.
	BudgetUSD float64 `json:",omitempty"`
	Workers   int     `json:",omitempty"`

	// TargetDefs are the targets the eval file defines itself (5.x, promptfoo `providers`),
	// nil if none; with OwnTargets they are its only ones and no targets file is read.
	TargetDefs []TargetDef `json:",omitempty"`
	OwnTargets bool        `json:",omitempty"`
}

// TrialPassAt4 is the score a trial of an AgentV 4.x file passes at, whatever the case
// threshold: 4.42.4 grades each trial with scoreToVerdict's default
// (packages/core/src/evaluation/orchestrator.ts, runEvalCaseWithTrials, line 2278), stops
// pass_at_k at the first such pass (line 2309) and counts them as passedAttempts.
const TrialPassAt4 = 0.8

// AgentRules are how agent targets (claude, codex, cli) treat a file's cases where the
// programs its dialect comes from differ.
type AgentRules struct {
	// CwdFromWorkDir resolves a claude or codex target's relative cwd against the working
	// directory, as AgentV 4.42.4's path.resolve does (claude-cli.ts and codex.ts, resolveCwd),
	// not against the eval file's folder (2.5).
	CwdFromWorkDir bool
	// AbsoluteFileRefs refers agents to input files by absolute path, so they find them from
	// any working directory (4.42.4's formatting/segment-formatter.ts, formatSegment).
	AbsoluteFileRefs bool
	// PromptAs442 sends claude and codex targets the prompt document AgentV 4.42.4 builds (no
	// default instructions before it), and runs Claude Code with 4.42.4's flags and stream log.
	PromptAs442 bool
}

// SetDialect records a file's dialect and the rules that follow from it: later stages ask for
// the rules, never the dialect.
func (s *Suite) SetDialect(d string) {
	s.Dialect = d
	s.TrialPassAt, s.Agent, s.Grading = 0, AgentRules{}, GradingRulesOf(d)
	// AgentV 5.x keeps 4.x's runtime: its orchestrator, llm-grader and script grader are
	// 4.42.4's, renamed (no rule of 5.3.1-next.1 is known to differ yet).
	if d == Dialect4 || d == Dialect5 {
		s.Agent = AgentRules{CwdFromWorkDir: true, AbsoluteFileRefs: true, PromptAs442: true}
	}
	// 5.3.1-next.1 grades each repeat at the test's threshold (orchestrator.ts:2497,
	// executionStatus from classifyQualityStatus), where 4.42.4 used 0.8.
	if d == Dialect4 {
		s.TrialPassAt = TrialPassAt4
	}
}

// DialectName names a dialect for people: "AgentV 5.x"; "" for a file whose dialect could
// not be told (it did not parse, or mixes dialects).
func DialectName(d string) string {
	switch d {
	case Dialect25:
		return "AgentV 2.5"
	case Dialect4:
		return "AgentV 4.x"
	case Dialect5:
		return "AgentV 5.x"
	case DialectPromptfoo:
		return "promptfoo"
	}
	return ""
}

// GradingRules are how graders score a file's cases where the programs its dialect comes
// from differ. The zero value is AgentV 2.5's way.
type GradingRules struct {
	// As442 runs llm and code graders as AgentV 4.42.4's llm-grader and code-grader: its
	// prompts and reading of the judge's answer (a grader that could not grade is a skip),
	// its code-grader payload and reading of the script's output, its composite aggregators
	// (members that could not score left out); and a test with a grader that could not score
	// scores 0 (orchestrator.ts).
	As442 bool
	// PassFail gives each grader result a pass or fail verdict at 0.8, which negation swaps
	// (4.x scoreToVerdict, negateScore); else the verdict is 2.5's band of the score.
	PassFail bool
	// AllItems lists every hit and miss of a field_accuracy grader (2.5 keeps four of each).
	AllItems bool
	// ExpectedName is what graders call the case's expected data in their misses; "" is
	// 2.5's expected_messages.
	ExpectedName string
	// ExactToolArgs makes tool_trajectory compare arguments exactly by default (2.5: the
	// answer's arguments may hold more keys), and TraceOptional lets it score a case whose
	// target left no trace (2.5 fails it).
	ExactToolArgs, TraceOptional bool
	// PromptfooReplies reads a judge reply with `pass` or `reason` the promptfoo way: its pass
	// (and the entry's threshold) is the verdict (AgentV 5.x, llm-grader.ts:252-415).
	PromptfooReplies bool

	// Rules of promptfoo 0.123.1 (docs/promptfoo.md, How a test is scored):
	// ScoresAsReturned keeps a script's numeric score as it returned it (1.5, -0.5) and the
	// case's weighted mean unclamped; ZeroWeightPasses reports an assertion of weight 0 as
	// passing whatever it found (an assert-set keeps its verdict); NegateScriptVerdict makes
	// not- on a javascript or python result flip its verdict and keep its score; and
	// VerdictOfResults makes a case without its own threshold pass only when every result
	// passed, whatever its score (evaluators.Outcome.Passed); NoGradersPass scores a case
	// without graders 1 and passes it, where other dialects run the default judge.
	ScoresAsReturned, ZeroWeightPasses, NegateScriptVerdict, VerdictOfResults bool `json:",omitempty"`
	NoGradersPass                                                             bool `json:",omitempty"`
	// PromptfooRubric asks an llm-rubric grader once for {reason, pass, score} and reads
	// promptfoo's defaults (pass true, score by pass, kept as given); GraderErrorFails makes a
	// grader that could not grade a failing assertion with score 0, the case still scored.
	PromptfooRubric, GraderErrorFails bool `json:",omitempty"`
	// SimilarCosine scores similar by the cosine of the embeddings itself, as promptfoo does,
	// where AgentV 5.x maps it onto 0..1 as (cos + 1) / 2.
	SimilarCosine bool `json:",omitempty"`
	// SetMembersNegate applies a not- (negate) of an assert-set's member, as promptfoo does;
	// AgentV 5.x applies negation to a test's own list only.
	SetMembersNegate bool `json:",omitempty"`
	// PythonObjectThreshold fails a python assertion's result object whose score is below the
	// assertion's threshold, as promptfoo does (5.x keeps the object's own pass).
	PythonObjectThreshold bool `json:",omitempty"`
	// PromptfooJSBody makes inline javascript a function body as promptfoo does: one line
	// (after trimming its end) gets `return` in front even when it says return itself (a
	// syntax error there, so a failing assertion), where 5.x keeps a line with return as
	// written.
	PromptfooJSBody bool `json:",omitempty"`
	// SimilarValues makes similar compare the answer with each of its values (the list the
	// promptfoo front-end leaves in config.values): it passes on the first value that passes,
	// with that score, else fails with the best score (promptfoo: handleSimilar).
	SimilarValues bool `json:",omitempty"`
	// JSONSchemaValue makes is-json check the answer against its `value` as a JSON schema, as
	// promptfoo does (AgentV 4.x and 5.x ignore an is-json value).
	JSONSchemaValue bool `json:",omitempty"`
	// ContextVars hands javascript and python code the test's vars as context.vars, as
	// promptfoo does (5.x's context has none).
	ContextVars bool `json:",omitempty"`
}

func GradingRulesOf(dialect string) GradingRules {
	if dialect == Dialect4 || dialect == Dialect5 {
		return GradingRules{As442: true, PassFail: true, AllItems: true,
			ExpectedName: "expected_output", ExactToolArgs: true, TraceOptional: true,
			PromptfooReplies: dialect == Dialect5}
	}
	return GradingRules{}
}

// Case is one eval case, ready to run.
type Case struct {
	Suite           *Suite
	ID              string
	Line, Col       int // 1-based position of the case in its file (JSONL: line, col 1)
	ConversationID  string
	ExpectedOutcome string    // `expected_outcome` (alias `outcome`)
	Input           []Message // input_messages / input / question
	Expected        []Message // expected_messages / expected_output
	// ReferenceAnswer is the explicit `reference_answer`, else derived from the last expected
	// message. HasReference is false when neither exists (payload: null).
	ReferenceAnswer string
	HasReference    bool
	Question        string   // the plain text of the input messages (see question)
	GuidelinePaths  []string // absolute paths of referenced guideline files, in order of reference
	InputFiles      []string // absolute paths of referenced non-guideline files, in order
	Target          string   // case-level `execution.target`, "" if none
	Targets         []string // 4.x case-level `execution.targets`, nil if none
	Threshold       *float64 // 4.x case-level `execution.threshold` (0–1), nil if none
	// Trials are the case's own (5.x `run.repeat`), over its suite's; nil: the suite's.
	Trials *Trials `json:",omitempty"`
	// DependsOn are the ids of the tests of the same file this 4.x test waits for, and
	// OnDependencyFailure what happens when one errors: skip (also ""), fail or run.
	DependsOn           []string `json:",omitempty"`
	OnDependencyFailure string   `json:",omitempty"`
	// Evaluators is the case's own list, else the suite's; empty runs the default llm_judge
	// (for a conversation, which they score whole after the last turn: none).
	Evaluators []*EvaluatorSpec
	// Metadata is a 4.x test's `metadata` merged with its file's (a JSON object), nil if none.
	Metadata json.RawMessage `json:",omitempty"`
	// Conversation is a 4.x `mode: conversation` test's turns (Input is its opening), else nil.
	Conversation *Conversation `json:",omitempty"`
	// Transform shapes the answer every grader of the case sees (5.x `options.transform`),
	// nil for none; Vars and Prompt are what a transform gets as its context.
	Transform *Transform      `json:",omitempty"`
	Vars      json.RawMessage `json:",omitempty"` // a 5.x test's vars (a JSON object), nil if none
	Prompt    *PromptRef      `json:",omitempty"` // the 5.x prompt the case was made from, nil if none
}

// Conversation aggregations and turn-failure policies (AgentV 4.x's values).
const (
	AggregateMean = "mean" // the mean of the turn scores (default)
	AggregateMin  = "min"  // the weakest turn
	AggregateMax  = "max"  // the best turn

	OnTurnFailureContinue = "continue" // later turns still run (default)
	OnTurnFailureStop     = "stop"     // later turns are not sent and score 0
)

// Conversation is a multi-turn test: each turn's input is sent with the conversation so far.
type Conversation struct {
	Turns         []*Turn
	Aggregation   string // AggregateMean, AggregateMin or AggregateMax
	OnTurnFailure string // OnTurnFailureContinue or OnTurnFailureStop
	// WindowSize, when > 0, limits what each turn sends and its graders see to the system
	// messages and the last WindowSize exchanges (2 × WindowSize messages).
	WindowSize int
	// EntryType is the type the results give each turn's entry and the transcript's, as the
	// file's AgentV version records them; "" for 4.x's "turn" and "conversation".
	EntryType string `json:",omitempty"`
	// Unweighted: those entries carry no weight in the results (5.3.1-next.1 records none);
	// false gives each weight 1, as 4.x does.
	Unweighted bool `json:",omitempty"`
}

// Turn is one user message of a conversation and how its answer is scored.
type Turn struct {
	Line, Col       int       // position of the turn in its file
	Input           Message   // the user message (non-string content is sent as its JSON text)
	Expected        []Message // `expected_output`, for judges only
	ReferenceAnswer string
	HasReference    bool
	// Evaluators score the turn's answer. With none and no Expected the turn scores 1; with
	// Expected only, the default llm_judge runs.
	Evaluators []*EvaluatorSpec
}

func (c *Case) Dataset() string {
	if c.Suite == nil {
		return ""
	}
	return c.Suite.Dataset
}

// FilePaths returns guideline paths followed by input-file paths (the payload's `file_paths`).
func (c *Case) FilePaths() []string {
	out := make([]string, 0, len(c.GuidelinePaths)+len(c.InputFiles))
	out = append(out, c.GuidelinePaths...)
	return append(out, c.InputFiles...)
}

// Roles a message may have.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// Message is one chat message of a case or of a provider's answer.
type Message struct {
	Role      string
	Name      string
	Content   Content
	ToolCalls json.RawMessage // `tool_calls` verbatim (a JSON array), nil when absent
}

// ContentKind says which field of Content holds the content.
type ContentKind uint8

const (
	ContentNone       ContentKind = iota // no content (e.g. a message with tool_calls only)
	ContentText                          // Content.Text
	ContentSegments                      // Content.Segments: [{type: text|file, value}, ...]
	ContentStructured                    // Content.Structured: an object or a non-segment array, verbatim JSON
)

// Content is a message's content, in the field its Kind names.
type Content struct {
	Kind       ContentKind
	Text       string
	Segments   []Segment
	Structured json.RawMessage // JSON in the source's key order
}

// Segment is one item of a content list.
type Segment struct {
	Type  string // "text", "file", or anything else (kept in Raw)
	Value string // the text, or the file path as written
	// For file segments, after resolution:
	Path      string          // display path: Value without leading separators
	Resolved  string          // absolute path; "" when the file was not found
	FileText  string          // file contents (CRLF → LF), shared by the cases naming the file
	Guideline bool            // the file matched the guideline patterns
	Raw       json.RawMessage // the item verbatim, for types other than text and file
}

// Position is a 1-based location in a file.
type Position struct {
	File      string // display path
	Line, Col int
}

// Evaluator types whose settings the loader models (prompts, scripts); every accepted type is
// registered (EvaluatorType).
const (
	TypeLLMJudge  = "llm_judge"
	TypeCodeJudge = "code_judge"
)

// EvaluatorSpec is one configured evaluator.
type EvaluatorSpec struct {
	Name      string  // explicit `name`, else the type, suffixed -2, -3 when repeated within a case
	Type      string  // canonical type name
	Weight    float64 // `weight`, default 1
	WeightSet bool    // weight was written explicitly
	Pos       Position
	// JudgeCommonKeys: negate, required and min_score act on an llm_judge or code_judge
	// entry's result (4.x); in 2.5 files they are the judge's own config (the quickstart's
	// code judge reads `required` as texts an answer needs).
	JudgeCommonKeys bool `json:",omitempty"`
	// llm_judge
	Prompt *PromptSpec // nil: default prompt
	Target string      // judge target override (`target`), "" if none
	// Criteria, when set, stands for the case's criteria in the default prompt, used instead of
	// Prompt: an Agent Skills assertion string judged on its own.
	Criteria string `json:",omitempty"`

	// code_judge
	Script      []string     // argv; a string script becomes ["sh", "-c", script]
	Cwd         string       // absolute working directory (default: the eval file's directory)
	TargetProxy *TargetProxy // `target`: the judge may call the case's target; nil: no proxy

	// Config is the pass-through config: the keys of the entry that are not its own settings,
	// merged under an explicit `config:` map (which wins); a JSON object in source order, or nil.
	Config json.RawMessage
	// Settings holds every key of the entry verbatim (a JSON object in source order).
	Settings json.RawMessage
	Members  []*EvaluatorSpec // a composite's `evaluators`, parsed like any entry
	// Transform shapes the answer this grader alone sees (5.x assertion `transform`), nil for none.
	Transform *Transform `json:",omitempty"`

	// Parsed is what the type's Parse made of the settings at load time, shared read-only by
	// the cases using the entry; nil for a spec built in code (the evaluator reads Settings).
	Parsed any `json:"-"`

	// RecordType is the type results show when the file's dialect records the name as written
	// (AgentV 5.x: `script`, `token-usage`, `llm-rubric`); "" shows Type.
	RecordType string `json:",omitempty"`
}

// DefaultMaxCalls is how many calls a target proxy allows without `max_calls`.
const DefaultMaxCalls = 50

// TargetProxy is a code judge's access to the case's target and judge, through a loopback proxy.
type TargetProxy struct {
	MaxCalls int // calls allowed in one evaluation; 0 allows none
}

// PromptKind says where an llm_judge custom prompt comes from.
type PromptKind uint8

const (
	PromptInline PromptKind = iota + 1 // Text is the template
	PromptFile                         // Text is the template read from Path
	PromptScript                       // an executable template: Path (by extension) or Script argv
)

// PromptSpec is an llm_judge custom prompt.
type PromptSpec struct {
	Kind    PromptKind
	Text    string   // template text (inline and file kinds)
	Path    string   // absolute path of the template file or script ("" for inline / argv-only)
	Display string   // the value as written in the eval file
	Script  []string // explicit argv of the {script: [...]} form (last element resolved to an absolute path)
	// Config is the `config` of the {script, config} form; nil means use the evaluator's Config.
	Config json.RawMessage
}

// Workspace is the directory the tests of a 4.x suite run in: made for the run from a template
// directory, then set up by its hooks (nil if none).
type Workspace struct {
	Template  string // absolute path of the template directory, "" for an empty workspace
	BeforeAll *Hook
	// BeforeEach runs before each test's target is asked, AfterEach once it answered (before
	// grading; 5.x afterEach extensions after it), AfterAll when the run is over.
	BeforeEach, AfterEach, AfterAll *Hook
	// Workdir is a 5.x host environment's directory: the tests run in it as it is (made when
	// missing), not in a temporary copy, and it is left in place. "" for a temporary directory.
	Workdir string
	// Setup is a 5.x host environment's setup command, run once in Workdir's run before
	// BeforeAll, nil if none.
	Setup *Hook
	// PerCase gives each test an empty directory of its own (its target and its BeforeEach
	// and AfterEach run there), BeforeAll and AfterAll running in the shared one: 5.x
	// extensions without an environment.
	PerCase bool
}

// Hook is a workspace command.
type Hook struct {
	Line    int // of its key in the eval file, for the warning a failing late hook leaves
	Command []string
	Cwd     string        // absolute; "" is the eval file's directory
	Timeout time.Duration // 0: the default
	// Env are NAME=value entries added to the hook's environment (a 5.x environment's env).
	Env []string
	// Stdin, when set, is what the hook reads instead of the hook context (a 5.x environment
	// setup reads {"environment": {"type": "host", "workdir": …}}).
	Stdin []byte
	// Extensions, when set, make the hook a call of these JavaScript or TypeScript module
	// functions (5.x `extensions`), in order, instead of Command; Name is the function.
	Extensions []Extension
	Name       string
}

// Extension is one 5.x `extensions` entry: a module file and the lifecycle hook it exports.
type Extension struct {
	Module string // absolute path of the .ts, .mts, .cts, .js, .mjs or .cjs file
	Line   int    // of the entry in the eval file
}
