// Command twindump lists a workspace's to_additive/to_dual twins (rows with
// generated_from whose source is a row too) as name, source, signature, one
// a line, tab-separated, for reading twins' signature translation.
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
