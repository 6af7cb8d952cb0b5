package suite

import (
	"slices"

	yaml "go.yaml.in/yaml/v4"
)

// FrontEnd reads the YAML eval files of one dialect into the model. AgentV 2.5 and 4.x are
// read by this package; the newer dialects are packages of their own (suite/agentv5,
// suite/promptfoo) that register here from init, so a new dialect is one package and the
// loader asks it without knowing it.
type FrontEnd struct {
	// Dialect is the value Suite.Dialect takes for its files (one of the Dialect constants).
	Dialect string
	// Before names the dialect this one is asked ahead of: a file of this dialect would also
	// pass for that one's (a promptfoo config looks like an AgentV 5.x file).
	Before string
	// Detect tells whether root, a file's top-level mapping, is written in this dialect. ok is
	// false after the one positioned error for a file that mixes its keys with another
	// dialect's; the file is then not read.
	Detect func(r *Reader, root *yaml.Node) (mine, ok bool)
	// Load reads the file into r.Suite, reporting every problem through r.
	Load func(r *Reader, root *yaml.Node)
}

// frontEnds are the registered front-ends, in the order they are asked.
var frontEnds []FrontEnd

// RegisterFrontEnd adds a dialect's front-end (from the init of its package). A dialect
// registered twice, or a front-end without Detect or Load, is a programming error.
func RegisterFrontEnd(fe FrontEnd) {
	if fe.Dialect == "" || fe.Detect == nil || fe.Load == nil {
		panic("suite: RegisterFrontEnd needs a Dialect, Detect and Load")
	}
	if slices.ContainsFunc(frontEnds, func(o FrontEnd) bool { return o.Dialect == fe.Dialect }) {
		panic("suite: front-end registered twice: " + fe.Dialect)
	}
	// Ahead of the dialect it names; one that names this dialect was appended earlier and so
	// stays ahead of it.
	at := slices.IndexFunc(frontEnds, func(o FrontEnd) bool { return o.Dialect == fe.Before })
	if fe.Before == "" || at < 0 {
		at = len(frontEnds)
	}
	frontEnds = slices.Insert(frontEnds, at, fe)
}

// FrontEnds returns the dialects of the registered front-ends, in the order they are asked.
func FrontEnds() []string {
	var ds []string
	for _, fe := range frontEnds {
		ds = append(ds, fe.Dialect)
	}
	return ds
}

func frontEndOf(dialect string) (FrontEnd, bool) {
	i := slices.IndexFunc(frontEnds, func(o FrontEnd) bool { return o.Dialect == dialect })
	if i < 0 {
		return FrontEnd{}, false
	}
	return frontEnds[i], true
}
