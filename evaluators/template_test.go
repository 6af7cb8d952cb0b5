package evaluators

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentv/action/suite"
)

func TestSubstitute(t *testing.T) {
	t.Parallel()
	vars := func(name string) (string, bool) {
		v, ok := map[string]string{"a": "A", "candidate_answer": "{{ a }}", "empty": ""}[name]
		return v, ok
	}
	tests := []struct{ name, in, want string }{
		{"plain", "no placeholders", "no placeholders"},
		{"tight", "{{a}}", "A"},
		{"spaces and newlines", "x {{ \t\na\r\n }} y", "x A y"},
		{"unknown kept", "{{ nope }} and {{a}}", "{{ nope }} and A"},
		{"values are not rescanned", "{{candidate_answer}}", "{{ a }}"},
		{"triple brace", "{{{a}}}", "{A}"},
		{"bad name", "{{ a-b }} {{ }} {{a b}}", "{{ a-b }} {{ }} {{a b}}"},
		{"empty value", "[{{empty}}]", "[]"},
		{"unterminated", "{{ a", "{{ a"},
		{"vertical tab is not space", "{{\va}}", "{{\va}}"},
	}
	for _, tt := range tests {
		if got := substitute(tt.in, vars); got != tt.want {
			t.Errorf("%s: substitute(%q) = %q, want %q", tt.name, tt.in, got, tt.want)
		}
	}
}

// substituteRegexp is the reference definition: AgentV's regex, unknown names kept.
func substituteRegexp(tmpl string, vars func(string) (string, bool)) string {
	re := regexp.MustCompile(`{{\s*([a-zA-Z0-9_]+)\s*}}`)
	return re.ReplaceAllStringFunc(tmpl, func(m string) string {
		if v, ok := vars(re.FindStringSubmatch(m)[1]); ok {
			return v
		}
		return m
	})
}

func FuzzSubstitute(f *testing.F) {
	for _, s := range []string{"{{ question }}", "{{a}}{{b}}", "{{{{ x }}}}", "{{ \n candidate_answer\t}}", "{{", "}}{{}}"} {
		f.Add(s, "v{{question}}")
	}
	f.Fuzz(func(t *testing.T, tmpl, value string) {
		vars := func(name string) (string, bool) {
			switch name {
			case "question", "a", "x":
				return value, true
			}
			return "", false
		}
		if got, want := substitute(tmpl, vars), substituteRegexp(tmpl, vars); got != want {
			t.Fatalf("substitute(%q) = %q, regexp gives %q", tmpl, got, want)
		}
	})
}

func TestCustomTextPrompts(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tmpl := "Q={{ question }}\nA={{candidate_answer}}|{{ actual_output }}\nO={{expected_outcome}}\nR=[{{ reference_answer }}]\n" +
		"E={{ expected_output }}\nI={{input}}\nOUT={{ output_messages }}\nKEEP={{ not_a_var }}"
	want := "Q=Formatted: What is the risk level?\nA=High|High\nO=Correctly classify as high risk\nR=[]\n" +
		"E=[\n  {\n    \"role\": \"assistant\",\n    \"content\": {\n      \"riskLevel\": \"High\"\n    }\n  }\n]\n" +
		"I=[\n  {\n    \"role\": \"user\",\n    \"content\": \"What is the risk level?\"\n  }\n]\n" +
		"OUT=[\n  {\n    \"role\": \"assistant\",\n    \"content\": \" High \"\n  }\n]\nKEEP={{ not_a_var }}"
	for _, kind := range []suite.PromptKind{suite.PromptInline, suite.PromptFile} {
		spec := &suite.EvaluatorSpec{Name: "custom", Type: suite.TypeLLMJudge,
			Prompt: &suite.PromptSpec{Kind: kind, Text: tmpl, Path: filepath.Join(dir, "p.md"), Display: "p.md"}}
		j := &fakeJudge{name: "j", reply: `{"score": 1}`}
		out := Evaluate(t.Context(), riskInput(riskCase(dir, spec), " High "), judgeOpts(j, nil))
		req := j.requests()[0]
		if req.Question != want {
			t.Errorf("kind %d: user prompt\n%s\nwant\n%s", kind, req.Question, want)
		}
		if req.SystemPrompt != SystemPrompt {
			t.Errorf("kind %d: custom prompt lost the JSON-contract system prompt", kind)
		}
		if out.Errored {
			t.Errorf("kind %d: %+v", kind, out.Results[0])
		}
	}
}

func TestCustomPromptOutputMessagesEmpty(t *testing.T) {
	t.Parallel()
	spec := &suite.EvaluatorSpec{Name: "c", Type: suite.TypeLLMJudge,
		Prompt: &suite.PromptSpec{Kind: suite.PromptInline, Text: "{{output_messages}}|{{expected_messages}}"}}
	c := riskCase(t.TempDir(), spec)
	c.Expected = nil
	in := riskInput(c, "x")
	in.Response.OutputMessages = nil
	j := &fakeJudge{name: "j", reply: `{"score": 1}`}
	Evaluate(t.Context(), in, judgeOpts(j, nil))
	if q := j.requests()[0].Question; q != "[]|[]" {
		t.Errorf("user prompt = %q, want []|[]", q)
	}
}

// Template scripts print the payload fields they read, so the tests see what arrived.
const (
	templateJS = `let s = '';
process.stdin.on('data', (c) => { s += c; });
process.stdin.on('end', () => {
  const d = JSON.parse(s);
  console.log("\n  JS Q=" + d.question + " A=" + d.actual_output + " old=" + d.candidate_answer +
    " rubric=" + (d.config && d.config.rubric) + " risk=" + d.expected_output[0].content.riskLevel +
    " cwd=" + process.cwd() + " outcome={{ expected_outcome }}  \n");
});
`
	templateTS = `const chunks: string[] = [];
process.stdin.on('data', (c: Buffer) => chunks.push(c.toString()));
process.stdin.on('end', () => {
  const d: { question: string; candidate_answer: string } = JSON.parse(chunks.join(''));
  process.stdout.write("TS Q=" + d.question + " A=" + d.candidate_answer);
});
`
	templatePy = `import json, os, sys
d = json.load(sys.stdin)
print("PY Q=%s A=%s rubric=%s ref=%s cwd=%s" % (d["question"], d["actual_output"], (d["config"] or {}).get("rubric"), d["reference_answer"], os.getcwd()))
`
)

func TestScriptTemplates(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sub := filepath.Join(dir, "prompts")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	js := writeFile(t, sub, "p.js", templateJS)
	ts := writeFile(t, sub, "p.ts", templateTS)
	py := writeFile(t, sub, "p.py", templatePy)
	cfg := json.RawMessage(`{"rubric": "be strict"}`)
	tests := []struct {
		name   string
		tool   string
		prompt *suite.PromptSpec
		want   string
	}{
		{name: "js via node", tool: "node", prompt: &suite.PromptSpec{Kind: suite.PromptScript, Path: js, Display: "prompts/p.js"},
			want: "JS Q=What is the risk level? A=High old=High rubric=be strict risk=High cwd=" + sub + " outcome=Correctly classify as high risk"},
		{name: "ts via resolver", tool: "bun", prompt: &suite.PromptSpec{Kind: suite.PromptScript, Path: ts, Display: "prompts/p.ts"},
			want: "TS Q=What is the risk level? A=High"},
		{name: "ts via tsx argv", tool: "tsx", prompt: &suite.PromptSpec{Kind: suite.PromptScript, Script: []string{"tsx", ts}},
			want: "TS Q=What is the risk level? A=High"},
		{name: "py via resolver", tool: "python3", prompt: &suite.PromptSpec{Kind: suite.PromptScript, Path: py},
			want: "PY Q=What is the risk level? A=High rubric=be strict ref=None cwd=" + sub},
		{name: "script form with its own config", tool: "python3",
			prompt: &suite.PromptSpec{Kind: suite.PromptScript, Script: []string{"python3", py}, Config: json.RawMessage(`{"rubric": "own"}`)},
			want:   "PY Q=What is the risk level? A=High rubric=own ref=None cwd=" + sub},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			needTool(t, tt.tool)
			spec := &suite.EvaluatorSpec{Name: "tmpl", Type: suite.TypeLLMJudge, Prompt: tt.prompt, Config: cfg}
			j := &fakeJudge{name: "j", reply: `{"score": 0.8}`}
			out := Evaluate(t.Context(), riskInput(riskCase(dir, spec), "High"), judgeOpts(j, nil))
			if out.Errored {
				t.Fatalf("errored: %+v", out.Results[0])
			}
			req := j.requests()[0]
			if req.Question != tt.want {
				t.Errorf("user prompt = %q\nwant          %q", req.Question, tt.want)
			}
			if req.SystemPrompt != SystemPrompt || out.Score != 0.8 {
				t.Errorf("system prompt or score wrong: %+v", out.Results[0])
			}
		})
	}
}

func TestScriptTemplateFailures(t *testing.T) {
	t.Parallel()
	needTool(t, "python3")
	dir := t.TempDir()
	tests := []struct {
		name    string
		script  string
		timeout time.Duration
		wantErr []string // substrings of Error; nil: no error
		want    string   // user prompt when no error
	}{
		{name: "empty output is an empty prompt", script: "import sys\nsys.stdin.read()\n", want: ""},
		{name: "whitespace output is an empty prompt", script: "print('   \\n\\n')\n", want: ""},
		{name: "failing script", script: "import sys\nsys.stderr.write('template exploded: missing rubric\\n')\nsys.exit(3)\n",
			wantErr: []string{"exited with code 3", "template exploded: missing rubric", "prompt template"}},
		{name: "hanging script", script: "import time\ntime.sleep(60)\n", timeout: 3 * time.Second,
			wantErr: []string{"timed out after 3s"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := writeFile(t, dir, strings.ReplaceAll(tt.name, " ", "_")+".py", tt.script)
			spec := &suite.EvaluatorSpec{Name: "tmpl", Type: suite.TypeLLMJudge, Prompt: &suite.PromptSpec{Kind: suite.PromptScript, Path: path}}
			other := codeSpec("after", "python3", "-c", `print('{"score": 1}')`)
			j := &fakeJudge{name: "j", reply: `{"score": 1}`}
			opts := judgeOpts(j, nil)
			if tt.timeout > 0 {
				opts.Timeout = tt.timeout
			}
			out := Evaluate(t.Context(), riskInput(riskCase(dir, spec, other), "x"), opts)
			res := out.Results[0]
			if len(out.Results) != 2 || out.Results[1].Score != 1 {
				t.Errorf("the next evaluator did not run: %+v", out.Results)
			}
			if tt.wantErr == nil {
				if res.Error != "" || len(j.requests()) != 1 || j.requests()[0].Question != tt.want {
					t.Fatalf("result %+v, requests %d", res, len(j.requests()))
				}
				var er map[string]any
				_ = json.Unmarshal(res.EvaluatorProviderRequest, &er)
				if up, ok := er["user_prompt"]; !ok || up != "" {
					t.Errorf("evaluator_provider_request = %s, want user_prompt \"\"", res.EvaluatorProviderRequest)
				}
				return
			}
			if !out.Errored || res.Score != 0 || len(j.requests()) != 0 {
				t.Errorf("want an errored evaluator that never called the judge: %+v", res)
			}
			for _, w := range tt.wantErr {
				if !strings.Contains(res.Error, w) || !strings.Contains(strings.Join(res.Misses, " "), w) {
					t.Errorf("error %q / misses %q lack %q", res.Error, res.Misses, w)
				}
			}
		})
	}
}
