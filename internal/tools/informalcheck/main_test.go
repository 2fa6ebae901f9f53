package main

import (
	"testing"

	"github.com/driftkit/driftkit/workspace"
)

func TestCheck(t *testing.T) {
	ws, err := workspace.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	decls := []workspace.Declaration{{Name: "A"}, {Name: "B"}, {Name: "D"}}
	if err := workspace.WriteTable(ws.Path(workspace.DeclarationsFile), decls); err != nil {
		t.Fatal(err)
	}
	rows := []workspace.Informal{
		{Name: "A", InformalName: "a", InformalStatement: "s", OwnInputSHA256: "x"},
		{Name: "A", InformalName: "a", InformalStatement: "s", OwnInputSHA256: "x"},
		{Name: "C", InformalName: "c", InformalStatement: "s"},
		{Name: "D", InformalName: "d", InformalStatement: "s", OwnInputSHA256: "y",
			Context: []workspace.InformalContext{{Name: "A", InformalSHA256: workspace.InformalTextSHA256("a", "an older s")}}},
	}
	if err := workspace.WriteTable(ws.Path(workspace.InformalFile), rows); err != nil {
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
