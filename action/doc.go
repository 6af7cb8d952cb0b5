// Package action is the GitHub Actions runtime of agentv: it reads the step's inputs and
// event context, writes outputs, the step summary, masks, groups and annotations, and keeps
// one sticky pull-request comment current through the GitHub REST API.
//
// Everything the runner provides is read once, at the edge, through a getenv function:
//
//	env := action.LoadEnv(os.Getenv)
//	in, errs := action.ParseInputs(os.Getenv)
//	ev, err := action.LoadEvent(os.Getenv)
//	cmds := action.NewCommands(os.Stdout, redactor) // ::add-mask:: for every secret, now and later
//	out := action.Outputs{Path: env.OutputPath}
//	_ = out.SetAll(action.RunOutputs{Outcome: gate.Pass, Total: 3, Passed: 3}.Pairs())
//
// The package renders no Markdown: the report package builds the summary and comment bodies,
// this one only delivers them.
package action
