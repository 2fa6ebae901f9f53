package jixia

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/driftkit/driftkit/dataset"
)

func TestSampleDump(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "..", "shared", "samples", "extractors")
	if _, err := os.Stat(dir); err != nil {
		t.Skip(err)
	}
	ws, _ := dataset.Open(t.TempDir())
	st, err := Import(context.Background(), ws, []Pair{{Decl: filepath.Join(dir, "jixia_Example.decl.json"), Sym: filepath.Join(dir, "jixia_Example.sym.json"), Module: "Example"}}, Options{Library: "ex", Src: os.Getenv("JIXIA_SRC")})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", st)
	rows, _ := dataset.ReadTable[dataset.Declaration](ws.Path(dataset.DeclarationsFile))
	for _, r := range rows {
		r.Code = ""
		b, _ := json.Marshal(r)
		t.Log(string(b))
	}
}
