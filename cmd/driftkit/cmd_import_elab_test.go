package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/driftkit/driftkit/extract"
	"github.com/driftkit/driftkit/internal/testkit/elabtest"
	"github.com/driftkit/driftkit/workspace"
)

// TestElaboratedImportsThroughPipeline: the bundled library, extracted from
// source, written out as jixia output and as a lean4export export (both
// generated from its rows), imported by each importer, then taken through
// every later stage: template informalization, index, search, mining, and
// eval extract scoring the source extraction against the imported workspace.
func TestElaboratedImportsThroughPipeline(t *testing.T) {
	lib := filepath.Join("..", "..", "testdata", "lean")
	src := t.TempDir()
	if code := run([]string{"extract", "--src", lib, "--library", "driftlib", "--ws", src, "--quiet"}, io0(), io0()); code != 0 {
		t.Fatalf("extract: exit %d", code)
	}
	rows, err := workspace.ReadTable[workspace.Declaration](filepath.Join(src, workspace.DeclarationsFile))
	if err != nil {
		t.Fatal(err)
	}
	fix := t.TempDir()
	export := filepath.Join(fix, "driftlib.ndjson")
	var buf bytes.Buffer
	if err := elabtest.WriteLean4export(&buf, rows, elabtest.Lean4exportOptions{Aux: true}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(export, buf.Bytes(), 0o644)
	jdir := filepath.Join(fix, "jixia")
	os.MkdirAll(jdir, 0o755)
	if _, err := elabtest.WriteJixia(jdir, lib, rows, true); err != nil {
		t.Fatal(err)
	}
	for _, imp := range [][]string{
		{"import", "jixia", "--dir", jdir, "--src", lib, "--library", "driftlib", "--quiet"},
		{"import", "lean4export", "--library", "driftlib", "--quiet", export},
	} {
		t.Run(imp[1], func(t *testing.T) {
			ws := t.TempDir()
			var out, errb bytes.Buffer
			if code := run(append([]string{imp[0], imp[1], "--ws", ws}, imp[2:]...), &out, &errb); code != 0 {
				t.Fatalf("%v: exit %d: %s", imp, code, errb.String())
			}
			// No --revision: recorded as unknown, with a warning (never "").
			if !strings.Contains(out.String(), "declarations") || errb.String() != "warning: no --revision given: the rows record revision \"unknown\"\n" {
				t.Errorf("import output %q, stderr %q", out.String(), errb.String())
			}
			imported, err := workspace.ReadTable[workspace.Declaration](filepath.Join(ws, workspace.DeclarationsFile))
			if err != nil || len(imported) == 0 || imported[0].Revision != extract.UnknownRevision {
				t.Fatalf("imported rows: %d, revision %q (%v)", len(imported), imported[0].Revision, err)
			}
			for _, args := range [][]string{
				{"informalize", "--ws", ws, "--provider", "template"},
				{"index", "--ws", ws, "--dim", "32"},
				{"mine", "--ws", ws, "--allow-template", "--negatives", "4", "--valid-frac", "0.2"},
			} {
				if code := run(args, io0(), io0()); code != 0 {
					t.Fatalf("%v: exit %d", args, code)
				}
			}
			out.Reset()
			if code := run([]string{"search", "--ws", ws, "--json", "--k", "3", "a group homomorphism preserves multiplication"}, &out, io0()); code != 0 {
				t.Fatalf("search: exit %d", code)
			}
			var hits any
			if err := json.Unmarshal(out.Bytes(), &hits); err != nil || !strings.Contains(out.String(), "Driftlib.") {
				t.Fatalf("search output %q (%v)", out.String(), err)
			}
			pairs, err := workspace.ReadTable[workspace.Pair](filepath.Join(ws, workspace.PairsFile))
			if err != nil || len(pairs) < 50 {
				t.Fatalf("%d pairs (%v)", len(pairs), err)
			}
			out.Reset()
			if code := run([]string{"eval", "extract", "--ws", src, "--reference-ws", ws, "--json"}, &out, io0()); code != 0 {
				t.Fatalf("eval extract: exit %d", code)
			}
			var rep struct {
				StmtDeps  struct{ F1 float64 }  `json:"statement_deps"`
				ProofDeps *struct{ F1 float64 } `json:"proof_deps"`
				Names     []struct {
					Kind   string
					Recall float64
				} `json:"names"`
			}
			if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
				t.Fatal(err)
			}
			// the fixtures carry the source extraction's own dependencies:
			// scored against itself, it must be (nearly) perfect
			if rep.StmtDeps.F1 < 0.99 {
				t.Errorf("statement F1 %.3f against an export of the same rows", rep.StmtDeps.F1)
			}
			// an export has no value for inductive types and structures, whose
			// source rows carry the proof dependencies of their field defaults
			minProof := 0.99
			if imp[1] == "lean4export" {
				minProof = 0.85
			}
			if rep.ProofDeps == nil || rep.ProofDeps.F1 < minProof {
				t.Errorf("proof deps %+v against an export of the same rows", rep.ProofDeps)
			}
			for _, k := range rep.Names {
				if k.Recall < 0.99 {
					t.Errorf("%s name recall %.3f", k.Kind, k.Recall)
				}
			}
		})
	}
}

func io0() *bytes.Buffer { return &bytes.Buffer{} }

// TestImportCommandErrors: bad invocations exit 2 before touching a
// workspace; a malformed export exits 1 naming file and line.
func TestImportCommandErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.ndjson")
	os.WriteFile(bad, []byte(`{"meta":{"exporter":{"name":"lean4export","version":"3.1.0"},"format":{"version":"3.1.0"},"lean":{"githash":"0","version":"4"}}}`+"\n"+`{"ie":0,"app":{"fn":7,"arg":8}}`+"\n"), 0o644)
	decl := filepath.Join(dir, "M.decl.json")
	os.WriteFile(decl, []byte("[]"), 0o644)
	ws := filepath.Join(dir, "ws")
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"import", "jixia", "--ws", ws}, 2, "required"},
		{[]string{"import", "jixia", "--ws", ws, "--library", "x", "--decl", decl}, 2, "1 --decl files but 0 --sym"},
		{[]string{"import", "lean4export", "--ws", ws, "--library", "x"}, 2, "one export file"},
		{[]string{"import", "lean4export", "--ws", ws, "--library", "x", filepath.Join(dir, "nope.ndjson")}, 1, "no such file"},
		{[]string{"import", "lean4export", "--ws", ws, "--library", "x", "--quiet", bad}, 1, bad + ":2:"},
	} {
		var stderr bytes.Buffer
		if code := run(c.args, io0(), &stderr); code != c.code || !strings.Contains(stderr.String(), c.msg) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, code, stderr.String(), c.code, c.msg)
		}
	}
	if _, err := os.Stat(filepath.Join(ws, workspace.DeclarationsFile)); err == nil {
		t.Error("a failed import wrote a table")
	}
}
