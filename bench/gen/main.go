// Command gen writes the synthetic benchmark suites of internal/suitegen:
//
//	go run ./bench/gen -out DIR [-modes fa,code_py,code_node,llm,none,delay] [-sizes 1,100,1000,5000]
//
// One directory DIR/<mode>-<size> per mode and size, each printed on its own line. See
// internal/suitegen for what each mode's cases carry.
//
//	go run ./bench/gen -differential DIR -base-url http://127.0.0.1:PORT/v1
//
// writes the differential suites test/differential runs through agentv and AgentV 4.42.4 (their
// LM targets and graders need an OpenAI-compatible server at the base URL), and prints each eval
// file with the targets file to run it with.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/agentv/action/internal/suitegen"
)

func main() {
	out := flag.String("out", "suites", "directory to write the suites under")
	modes := flag.String("modes", strings.Join(suitegen.Modes, ","), "comma-separated modes")
	sizes := flag.String("sizes", "1,100,1000,5000", "comma-separated case counts")
	differential := flag.String("differential", "", "write the differential suites under this directory instead")
	baseURL := flag.String("base-url", "http://127.0.0.1:8080/v1", "with -differential: the OpenAI-compatible server's URL")
	flag.Parse()
	if *differential != "" {
		s, err := suitegen.WriteDifferential(*differential, *baseURL)
		if err != nil {
			fmt.Fprintf(os.Stderr, "gen: %v\n", err)
			os.Exit(2)
		}
		for _, f := range s.Files {
			fmt.Println(filepath.Join(s.Dir, f.Eval), "--targets", filepath.Join(s.Dir, f.Targets))
		}
		return
	}
	for _, mode := range strings.Split(*modes, ",") {
		for _, s := range strings.Split(*sizes, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil {
				fmt.Fprintf(os.Stderr, "gen: bad size %q: want a whole number\n", s)
				os.Exit(2)
			}
			dir, err := suitegen.Write(*out, strings.TrimSpace(mode), n)
			if err != nil {
				fmt.Fprintf(os.Stderr, "gen: %v\n", err)
				os.Exit(2)
			}
			fmt.Println(dir)
		}
	}
}
