package extract

import (
	"fmt"
	"os"
	"testing"
)

func TestDebugFile(t *testing.T) {
	p := os.Getenv("DRIFTKIT_DEBUG_FILE")
	if p == "" {
		t.Skip()
	}
	b, _ := os.ReadFile(p)
	rows, _, errs := ParseFile(b, "Debug.lean", "dbg")
	for _, r := range rows {
		fmt.Printf("%s %s sig=%q S=%v P=%v\n", r.Name, r.Kind, r.Signature, r.StatementDeps, r.ProofDeps)
	}
	fmt.Println(errs)
}
