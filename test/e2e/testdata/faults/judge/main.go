// Command judge is the code judge of the fault-injection run (e2e_faults_test.go): it scores 1
// only when the candidate answer names its own case's id (found in the question) and no other.
// It is a compiled program, not a Python script, because 1,000 interpreter start-ups at 64 at a
// time would dominate the run on two cores and push judges past --timeout.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"slices"
)

var caseID = regexp.MustCompile(`fault-\d{4}`)

func main() {
	var p struct {
		Question        string `json:"question"`
		CandidateAnswer string `json:"candidate_answer"`
	}
	if err := json.NewDecoder(os.Stdin).Decode(&p); err != nil {
		fmt.Fprintln(os.Stderr, "judge: payload:", err)
		os.Exit(1)
	}
	want := caseID.FindString(p.Question)
	got := caseID.FindAllString(p.CandidateAnswer, -1)
	out := map[string]any{"score": 0, "hits": []string{}, "misses": []string{fmt.Sprintf("answer names %q, want only %q", got, want)}}
	if want != "" && slices.Equal(got, []string{want}) {
		out = map[string]any{"score": 1, "hits": []string{"answer names " + want}, "misses": []string{}}
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		os.Exit(1)
	}
}
