// Command gen writes the synthetic benchmark suites of internal/suitegen:
//
//	go run ./bench/gen -out DIR [-modes fa,code_py,code_node,llm,none,delay] [-sizes 1,100,1000,5000]
//
// One directory DIR/<mode>-<size> per mode and size, each printed on its own line. See
// internal/suitegen for what each mode's cases carry. (The differential suites are written by
// `go test ./test/differential -run TestWriteSuites -args -suites DIR`.)
package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/agentv/action/internal/suitegen"
)

func main() {
	out := flag.String("out", "suites", "directory to write the suites under")
	modes := flag.String("modes", strings.Join(suitegen.Modes, ","), "comma-separated modes")
	sizes := flag.String("sizes", "1,100,1000,5000", "comma-separated case counts")
	flag.Parse()
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
