package extract

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/driftkit/driftkit/dataset"
)

// TestDump prints declarations.parquet of $DRIFTKIT_DUMP as JSON lines (a
// development aid; skipped unless the variable is set).
func TestDump(t *testing.T) {
	p := os.Getenv("DRIFTKIT_DUMP")
	if p == "" {
		t.Skip("set DRIFTKIT_DUMP to a declarations.parquet")
	}
	rows, err := dataset.ReadTable[dataset.Declaration](p)
	if err != nil {
		t.Fatal(err)
	}
	enc := json.NewEncoder(os.Stdout)
	for _, r := range rows {
		r.Code = ""
		enc.Encode(r)
	}
}
