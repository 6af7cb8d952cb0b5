// Package action is the GitHub Actions runtime of agentv: it reads the step's inputs and
// event context, writes outputs, the step summary, masks, groups and annotations, and keeps
// one sticky pull-request comment current through the GitHub REST API.
//
// Everything the runner provides is read once, at the edge, through a getenv function:
//
//	env := action.LoadEnv(os.Getenv)
//	in, errs := action.ParseInputs(os.Getenv)      // []error, each naming its input
//	ev, err := action.LoadEvent(os.Getenv)         // err: a warning, ev is still usable
//	cmds := action.NewCommands(os.Stdout, redactor) // ::add-mask:: for every secret, now and later
//
// After the run, report first, then exit:
//
//	_ = action.Summary{Path: env.SummaryPath}.Append(summaryMarkdown)
//	cmds.Annotate(action.BuildAnnotations(diags, records, nil, false, action.AnnotationOptions{...}), 0)
//	store, err := action.NewGitHubStore(in.GitHubToken, env.APIURL, env.Repository)
//	url, err := action.Upsert(ctx, store, in.PR(ev), env.CommentMarker(in.CommentKey),
//		commentMarkdown, in.Comment, decision.Outcome, hasWarnings) // err: a warning
//	_ = action.Outputs{Path: env.OutputPath}.SetAll(action.RunOutputs{...}.Pairs())
//
// The package renders no Markdown: the report package builds the summary and comment
// bodies, this one only delivers them.
package action
