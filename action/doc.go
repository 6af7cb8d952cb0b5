// Package action is the GitHub Actions runtime of agentv: it reads the step's inputs and
// event context (ParseInputs, LoadEnv, LoadEvent), writes outputs, the step summary, masks,
// groups and annotations (Outputs, Summary, Commands), and keeps one sticky pull-request
// comment current through the GitHub REST API (NewGitHubStore, Upsert). Everything the runner
// provides is read once, at the edge, through a getenv function.
//
// The package renders no Markdown: the report package builds the summary and comment
// bodies, this one only delivers them.
package action
