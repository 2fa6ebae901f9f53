package main

import (
	"testing"

	"github.com/driftkit/driftkit/dataset"
)

func TestCheck(t *testing.T) {
	ws, err := dataset.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	decls := []dataset.Declaration{{Name: "A"}, {Name: "B"}, {Name: "D"}}
	if err := dataset.WriteTable(ws.Path(dataset.DeclarationsFile), decls); err != nil {
		t.Fatal(err)
	}
	rows := []dataset.Informal{
		{Name: "A", InformalName: "a", InformalStatement: "s", OwnInputSHA256: "x"},
		{Name: "A", InformalName: "a", InformalStatement: "s", OwnInputSHA256: "x"},
		{Name: "C", InformalName: "c", InformalStatement: "s"},
		{Name: "D", InformalName: "d", InformalStatement: "s", OwnInputSHA256: "y",
			Context: []dataset.InformalContext{{Name: "A", InformalSHA256: dataset.InformalTextSHA256("a", "an older s")}}},
	}
	if err := dataset.WriteTable(ws.Path(dataset.InformalFile), rows); err != nil {
		t.Fatal(err)
	}
	rep, err := check(ws.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Rows != 4 || rep.Missing != 1 || rep.Repeated != 1 || rep.Foreign != 1 || rep.LegacyRows != 1 || rep.StaleContext != 1 {
		t.Errorf("%+v", rep)
	}
}
