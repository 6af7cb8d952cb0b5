package suite_test

import (
	"fmt"

	"github.com/agentv/action/suite"
)

func ExampleLoad() {
	s := suite.Load("testdata/good/script-prompts.yaml", suite.LoadOptions{Cwd: "."})
	for _, d := range s.Diagnostics {
		fmt.Println(d)
	}
	for _, c := range s.Cases {
		e := c.Evaluators[0]
		fmt.Printf("%s: %q judged by %s (%s, prompt kind %d)\n", c.ID, c.Question, e.Name, e.Type, e.Prompt.Kind)
	}
	// Output:
	// example: "What is the capital of France?" judged by llm_judge (llm_judge, prompt kind 3)
	// explicit-script: "What is 6 x 7?" judged by llm_judge (llm_judge, prompt kind 3)
}

func ExampleLoad_diagnostics() {
	s := suite.Load("testdata/bad/ids.yaml", suite.LoadOptions{Cwd: "."})
	fmt.Println(len(s.Cases), "cases loaded")
	for _, d := range s.Diagnostics {
		fmt.Println(d)
	}
	// Output:
	// 2 cases loaded
	// testdata/bad/ids.yaml:2:5: eval case has no "id" (case not loaded)
	// testdata/bad/ids.yaml:3:5: eval case has no "id" (case not loaded)
	// testdata/bad/ids.yaml:5:9: "id" must be a string, got a mapping (case not loaded)
	// testdata/bad/ids.yaml:9:9: duplicate case id "same": first defined at line 7, again at line 9 (case "same" not loaded)
	// testdata/bad/ids.yaml:11:5: an eval case must be a mapping with id and input, got a string (case not loaded)
}

func ExampleExpand() {
	files, diags := suite.Expand([]string{"testdata/good", "testdata/nothing/*.yaml"}, ".")
	fmt.Println(files)
	for _, d := range diags {
		fmt.Println(d)
	}
	// Output:
	// [testdata/good/agentv.yaml testdata/good/dataset.jsonl testdata/good/script-prompts.yaml testdata/good/v4-lines.jsonl testdata/good/v4-list.yaml testdata/good/v4.eval.yaml]
	// no eval files matched "testdata/nothing/*.yaml"
}
