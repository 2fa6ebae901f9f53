// Command twindump lists a workspace's generated rows (generated_from set:
// to_additive/to_dual twins, simps and alias rows, …) as name, source,
// signature (one line) and statement dependencies, tab-separated, one row a
// line: joined by name with another workspace's, it shows which twins'
// signatures a change of extract translated.
//
//	go run ./internal/tools/twindump WS
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/driftkit/driftkit/workspace"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: twindump WS")
		os.Exit(2)
	}
	rows, err := workspace.ReadTable[workspace.Declaration](filepath.Join(os.Args[1], workspace.DeclarationsFile))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	one := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	for _, r := range rows {
		if r.GeneratedFrom == nil {
			continue
		}
		fmt.Printf("%s\t%s\t%s\t%s\n", r.Name, *r.GeneratedFrom, one(r.Signature), strings.Join(r.StatementDeps, " "))
	}
}
