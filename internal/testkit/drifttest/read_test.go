package drifttest_test

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/driftkit/driftkit/serve/drift"
)

func readRecords(dir string) ([]drift.Record, error) {
	f, err := os.Open(filepath.Join(dir, drift.RecordsFile))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	var out []drift.Record
	for sc.Scan() {
		var r drift.Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, sc.Err()
}
