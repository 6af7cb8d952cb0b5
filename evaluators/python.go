package evaluators

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/agentv/action/internal/jsonx"
	"github.com/agentv/action/internal/proc"
	"github.com/agentv/action/suite"
)

// python (AgentV 5.x, promptfoo) runs Python the author wrote against the answer: an inline
// expression, the body of main(output, context), or a file:// module's function.
func init() {
	register("python", nil, scriptAssertionKeys, parsePython, python)
}

// pyAssertion is a python entry: the program 5.x builds from inline code, or a module file and
// its function (get_assert unless named, as promptfoo calls it).
type pyAssertion struct {
	*scriptAssertion
	program  string
	file, fn string
}

func parsePython(spec *suite.EvaluatorSpec) (*pyAssertion, error) {
	cfg, err := parseScriptAssertion(spec, "a Python expression such as 'x' in output, or file://check.py[:function]")
	if err != nil {
		return nil, err
	}
	a := &pyAssertion{scriptAssertion: cfg}
	if ref, ok := strings.CutPrefix(strings.TrimSpace(cfg.value), "file://"); ok {
		a.file, a.fn = splitFileRef(ref)
		if a.file == "" {
			return nil, settingErr("value", "file:// names no file: want file://path/to/check.py or file://check.py:function_name")
		}
		if a.fn == "" {
			a.fn = "get_assert"
		}
		a.program = pyFileHarness
		return a, nil
	}
	a.program = pyProgram(cfg.value)
	return a, nil
}

// pyProgram is the program 5.x runs for inline code (buildPythonProgram,
// promptfoo-assertions.ts:137-157): code with a line break is the body of main(output,
// context), each line indented; a single line is returned. The value is used as written, so
// a YAML block scalar (`|`, which ends in a line break) is a body even for one line, and
// then needs its own `return`.
func pyProgram(code string) string {
	var body string
	if strings.Contains(code, "\n") {
		lines := strings.Split(code, "\n")
		for i := range lines {
			lines[i] = "    " + lines[i]
		}
		body = strings.Join(lines, "\n")
	} else {
		body = "    return " + code
	}
	return "import json\nimport sys\n\npayload = json.load(sys.stdin)\n\ndef main(output, context):\n" + body +
		"\n\nresult = main(payload.get(\"output\", \"\"), payload.get(\"context\", {}))\nprint(json.dumps(result))\n"
}

// pyFileHarness imports a module file and calls its function with (output, context).
const pyFileHarness = `import importlib.util
import json
import os
import sys

payload = json.load(sys.stdin)
path = payload["file"]
sys.path.insert(0, os.path.dirname(path))
spec = importlib.util.spec_from_file_location("agentv_python_assertion", path)
if spec is None or spec.loader is None:
    sys.exit("cannot load %s as a Python module" % path)
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
fn = getattr(module, payload["fn"], None)
if not callable(fn):
    sys.exit("%s has no function %s(output, context)" % (path, payload["fn"]))
print(json.dumps(fn(payload["output"], payload["context"])))
`

func python(ctx context.Context, r *caseRun, _ *suite.EvaluatorSpec, a *pyAssertion) verdict {
	const label = "Python assertion"
	py, err := pyInterpreter()
	if err != nil {
		return verdict{err: err}
	}
	actx, err := r.assertionContext(a.config, false)
	if err != nil {
		return errorf(nil, "could not build the assertion context: %v", err)
	}
	file := a.file
	if file != "" && !filepath.IsAbs(file) {
		file = filepath.Join(r.dir(), file)
	}
	stdin, err := jsonx.Marshal(struct {
		Output  string          `json:"output"`
		Context json.RawMessage `json:"context"`
		File    string          `json:"file,omitempty"`
		Fn      string          `json:"fn,omitempty"`
	}{r.in.Candidate, actx, file, a.fn})
	if err != nil {
		return errorf(nil, "could not encode the assertion input: %v", err)
	}
	res, err := r.runProcess(ctx, []string{py, "-c", a.program}, r.dir(), stdin, nil)
	if _, failure := harnessReply(res, err); failure != nil {
		return verdict{err: fmt.Errorf("python assertion: %w", failure)}
	}
	if err != nil { // the code raised or exited: 5.x fails the assertion with its stderr
		return failedScript(label, processFailure(res, err))
	}
	// 5.x parses the whole of stdout: a print() of inline code spoils the result. A file's
	// function may print (promptfoo reads its result apart): its result is the last line.
	out := strings.TrimSpace(string(res.Stdout))
	if i := strings.LastIndexByte(out, '\n'); a.file != "" && i >= 0 {
		out = out[i+1:]
	}
	if !json.Valid([]byte(out)) {
		return failedScript(label, "its output is not one JSON value (does the code print?): "+proc.Excerpt(out, 200))
	}
	return r.pythonThreshold(scriptResult(json.RawMessage(out), label, a.threshold), json.RawMessage(out), a.threshold)
}

// pyInterpreter finds python3, else python.
func pyInterpreter() (string, error) {
	for _, name := range []string{"python3", "python"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", errors.New("python assertion needs python3 on PATH")
}
