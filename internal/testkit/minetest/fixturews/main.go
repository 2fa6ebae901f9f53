// Command fixturews writes the minetest fixture workspace (declarations,
// informal rows and, with -pairs, hand-made pairs) for the Python
// interoperability tests: go run ./internal/testkit/minetest/fixturews -pairs DIR
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/driftkit/driftkit/internal/testkit/minetest"
)

func main() {
	copies := flag.Int("copies", 3, "module copies of the fixture library")
	pairs := flag.Bool("pairs", false, "also write pairs.parquet")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: fixturews [-copies N] [-pairs] DIR")
		os.Exit(2)
	}
	dir := flag.Arg(0)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := minetest.WriteWorkspace(dir, *copies, *pairs); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
