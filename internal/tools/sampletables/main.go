// Command sampletables writes every workspace table with sample rows into a
// folder, for the Python interoperability tests (pyarrow, datasets).
package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/driftkit/driftkit/internal/testkit/sample"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: sampletables DIR")
		os.Exit(2)
	}
	counts, err := sample.WriteAll(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	json.NewEncoder(os.Stdout).Encode(counts)
}
