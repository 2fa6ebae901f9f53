package lean4export

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/driftkit/driftkit/extract"
	"github.com/driftkit/driftkit/extract/elab"
	"github.com/driftkit/driftkit/internal/testkit/elabtest"
	"github.com/driftkit/driftkit/workspace"
)

// driftlibRows extracts the bundled library: the rows the fixtures are made of.
func driftlibRows(t testing.TB) []workspace.Declaration {
	t.Helper()
	ws, err := workspace.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join("..", "..", "testdata", "lean")
	if _, err := extract.Run(context.Background(), ws, extract.Options{Sources: []extract.Source{{Dir: root, Library: "driftlib", Revision: "t"}}}); err != nil {
		t.Fatal(err)
	}
	rows, err := workspace.ReadTable[workspace.Declaration](ws.Path(workspace.DeclarationsFile))
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func without(deps []string, self string) []string {
	out := []string{}
	for _, d := range deps {
		if d != self && !elab.IsAuxiliary(d) && !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}

// TestRoundTrip writes the bundled library's rows as an export (both format
// versions, with auxiliary proofs to inline) and checks that the importer
// gives back every name, kind and dependency list.
func TestRoundTrip(t *testing.T) {
	rows := driftlibRows(t)
	if len(rows) < 300 {
		t.Fatalf("only %d rows: the fixture would be too small", len(rows))
	}
	hasFields := map[string]bool{}
	for _, r := range rows {
		if r.Kind == workspace.KindProjection && r.GeneratedFrom != nil {
			hasFields[*r.GeneratedFrom] = true
		}
	}
	for _, format := range []string{"3.1.0", "3.0.0"} {
		t.Run(format, func(t *testing.T) {
			var buf bytes.Buffer
			if err := elabtest.WriteLean4export(&buf, rows, elabtest.Lean4exportOptions{Format: format, Aux: true}); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "driftlib.ndjson")
			if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			st, got := importFile(t, path)
			if st.WarningCount != 0 {
				t.Fatalf("warnings: %v", st.Warnings)
			}
			if st.Auxiliary == 0 {
				t.Fatal("no auxiliary constant was inlined: the fixture does not exercise inlining")
			}
			n := 0
			for i := range rows {
				want := &rows[i]
				if elab.IsAuxiliary(want.Name) {
					continue
				}
				n++
				g, ok := got[want.Name]
				if !ok {
					t.Errorf("%s (%s) missing", want.Name, want.Kind)
					continue
				}
				wk := elabtest.ExpectedKind(want)
				if (wk == workspace.KindStructure || wk == workspace.KindClass) && !hasFields[want.Name] {
					wk = workspace.KindInductive // no projection shows it is a structure
				}
				if g.Kind != wk {
					t.Errorf("%s: kind %s, want %s", want.Name, g.Kind, wk)
				}
				if w := without(want.StatementDeps, want.Name); !slices.Equal(g.StatementDeps, w) {
					t.Errorf("%s: statement deps\n got %v\nwant %v", want.Name, g.StatementDeps, w)
				}
				if want.Kind != workspace.KindProjection && want.Kind != workspace.KindAxiom && !isTypeKind(want.Kind) && want.Kind != workspace.KindConstructor {
					if w := without(want.ProofDeps, want.Name); !slices.Equal(g.ProofDeps, w) {
						t.Errorf("%s: proof deps\n got %v\nwant %v", want.Name, g.ProofDeps, w)
					}
				}
				if slices.Contains(want.Modifiers, "private") != slices.Contains(g.Modifiers, "private") {
					t.Errorf("%s: modifiers %v, want private as in %v", want.Name, g.Modifiers, want.Modifiers)
				}
			}
			t.Logf("%d rows compared, %d auxiliary constants inlined", n, st.Auxiliary)
			if len(got) != n {
				t.Errorf("%d rows imported, want %d", len(got), n)
			}
		})
	}
}

func isTypeKind(k string) bool {
	return k == workspace.KindStructure || k == workspace.KindClass || k == workspace.KindInductive
}
